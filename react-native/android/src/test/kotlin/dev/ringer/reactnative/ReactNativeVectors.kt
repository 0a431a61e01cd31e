package dev.ringer.reactnative

import org.json.JSONArray
import org.json.JSONObject
import java.io.File

/**
 * The shared vectors of the React Native package (TestVectors/react-native, the folder the system property
 * `ringer.rn.vectors` names), read strictly: an unknown or missing key fails the file, so a typo cannot pass.
 */
object ReactNativeVectors {
    /** A vector file's object. @throws AssertionError when the property is unset or the file is missing. */
    fun file(name: String): JSONObject {
        val folder = System.getProperty("ringer.rn.vectors") ?: throw AssertionError("system property ringer.rn.vectors is not set")
        val file = File(folder, name)
        if (!file.isFile) throw AssertionError("no vector file ${file.path}")
        return JSONObject(file.readText())
    }

    /** The file's cases, each checked to have only [keys] besides its description. */
    fun cases(file: JSONObject, keys: Set<String>): List<JSONObject> {
        only(file, "the file", setOf("description", "cases"))
        val cases = file.getJSONArray("cases")
        if (cases.length() == 0) throw AssertionError("no cases")
        return (0 until cases.length()).map { index ->
            cases.getJSONObject(index).also { only(it, "case $index", keys + "description") }
        }
    }

    /** The objects of [array]. */
    fun objects(array: JSONArray): List<JSONObject> = (0 until array.length()).map { array.getJSONObject(it) }

    /** @throws AssertionError when [json] has a key outside [allowed] or lacks one of [required]. */
    fun only(json: JSONObject, what: String, allowed: Set<String>, required: Set<String> = allowed) {
        val keys = json.keys().asSequence().toSet()
        val unknown = keys - allowed
        val missing = required - keys
        if (unknown.isNotEmpty() || missing.isNotEmpty()) throw AssertionError("$what: unknown keys $unknown, missing $missing")
    }

    /** A JSON value written with sorted keys and plain numbers, so equal values compare equal as text. */
    fun canonical(value: Any?): String = when (value) {
        null, JSONObject.NULL -> "null"
        is JSONObject -> value.keys().asSequence().sorted()
            .joinToString(",", "{", "}") { JSONObject.quote(it) + ":" + canonical(value.opt(it)) }
        is JSONArray -> (0 until value.length()).joinToString(",", "[", "]") { canonical(value.opt(it)) }
        is Collection<*> -> value.joinToString(",", "[", "]") { canonical(it) }
        is String -> JSONObject.quote(value)
        is Number -> if (value.toDouble() == Math.floor(value.toDouble())) value.toLong().toString() else value.toString()
        else -> value.toString()
    }
}
