package dev.ringer.reactnative

import com.facebook.react.bridge.Arguments
import com.facebook.react.bridge.WritableArray
import com.facebook.react.bridge.WritableMap
import org.json.JSONArray
import org.json.JSONObject

/** The host's JSON values as React Native hands them to JavaScript. */
internal object ReactJson {
    /** A promise's value: objects and arrays converted, JSON null as null, others as they are. */
    fun value(value: Any?): Any? = when (value) {
        is JSONObject -> map(value)
        is JSONArray -> array(value)
        null, JSONObject.NULL -> null
        else -> value
    }

    /** An object, deeply; whole numbers that fit stay ints, others are doubles (JavaScript has one number type). */
    fun map(json: JSONObject): WritableMap {
        val map = Arguments.createMap()
        for (key in json.keys()) {
            val value = json.opt(key)
            when (value) {
                is JSONObject -> map.putMap(key, map(value))
                is JSONArray -> map.putArray(key, array(value))
                is String -> map.putString(key, value)
                is Boolean -> map.putBoolean(key, value)
                is Int -> map.putInt(key, value)
                is Number -> map.putDouble(key, value.toDouble())
                else -> map.putNull(key)
            }
        }
        return map
    }

    /** An array, deeply, as [map] converts values. */
    fun array(json: JSONArray): WritableArray {
        val array = Arguments.createArray()
        for (index in 0 until json.length()) {
            val value = json.opt(index)
            when (value) {
                is JSONObject -> array.pushMap(map(value))
                is JSONArray -> array.pushArray(array(value))
                is String -> array.pushString(value)
                is Boolean -> array.pushBoolean(value)
                is Int -> array.pushInt(value)
                is Number -> array.pushDouble(value.toDouble())
                else -> array.pushNull()
            }
        }
        return array
    }
}
