package dev.ringer.kit

import java.io.File
import org.json.JSONArray
import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * Runs the language-neutral vectors of the audio route (TestVectors/audio-route/\*.json, beside the folder in the
 * system property `ringer.vectors`; format in docs/test-vectors.md) against [AudioRouteMachine], as the Swift runner
 * (Tests/RingerKitTests/AudioRouteVectorTests.swift) does: unknown keys and unknown routes fail a file.
 */
class AudioRouteVectorTest {
    private val folder = File(File(System.getProperty("ringer.vectors") ?: "TestVectors/phone-call").parentFile, "audio-route")

    @Test fun everyVectorHolds() {
        val files = folder.listFiles { file -> file.name.endsWith(".json") }?.sortedBy { it.name } ?: emptyList()
        assertTrue("only ${files.size} vectors in ${folder.path}", files.size >= 6)
        val failures = files.flatMap { run(it.name, JSONObject(it.readText())) }
        assertEquals(emptyList<String>(), failures)
    }

    @Test fun aWrongExpectationIsReported() {
        val vector = JSONObject(File(folder, "the-apps-choice-goes-through-the-system.json").readText())
        vector.getJSONObject("final").put("chosen", "speaker")
        assertEquals(listOf("bad: chosen is earpiece"), run("bad", vector))
    }

    private fun run(file: String, vector: JSONObject): List<String> {
        only(vector, file, setOf("description", "steps", "final"))
        val machine = AudioRouteMachine()
        val failures = ArrayList<String>()
        val steps = vector.getJSONArray("steps")
        for (index in 0 until steps.length()) {
            val step = steps.getJSONObject(index)
            only(step, "$file steps[$index]", setOf("input", "effects"))
            val effects = machine.handle(input(step.getJSONObject("input"), "$file steps[$index]")).map(::json)
            val expected = step.getJSONArray("effects").let { list -> (0 until list.length()).map { canonical(list.getJSONObject(it)) } }
            if (effects != expected) failures.add("$file steps[$index]: effects $effects, expected $expected")
        }
        val final = vector.getJSONObject("final")
        only(final, "$file final", setOf("current", "chosen", "audio_active"))
        if (machine.routes.current?.id != final.optStringOrNull("current")) failures.add("$file: current is ${machine.routes.current?.id}")
        if (machine.chosen != final.optStringOrNull("chosen")) failures.add("$file: chosen is ${machine.chosen}")
        if (machine.audioActive != final.getBoolean("audio_active")) failures.add("$file: audio active is ${machine.audioActive}")
        return failures
    }

    private fun input(input: JSONObject, what: String): AudioRouteInput {
        val keys = mapOf(
            "outputs_changed" to setOf("current", "outputs"), "select" to setOf("output_id"),
            "audio_activated" to setOf("video"), "audio_deactivated" to setOf("calls_left"))
        val type = input.getString("type")
        val known = keys[type] ?: throw AssertionError("$what: unknown input type $type")
        only(input, "$what.input", known + "type")
        return when (type) {
            "outputs_changed" -> AudioRouteInput.OutputsChanged(input.optStringOrNull("current"),
                input.getJSONArray("outputs").let { list -> (0 until list.length()).map { output(list.getJSONObject(it), what) } })
            "select" -> AudioRouteInput.Select(input.getString("output_id"))
            "audio_activated" -> AudioRouteInput.AudioActivated(input.getBoolean("video"))
            else -> AudioRouteInput.AudioDeactivated(input.getBoolean("calls_left"))
        }
    }

    private fun output(json: JSONObject, what: String): AudioOutput {
        only(json, "$what output", setOf("id", "route", "name"))
        val route = AudioRoute.of(json.getString("route")) ?: throw AssertionError("$what: unknown route ${json.getString("route")}")
        return AudioOutput(json.getString("id"), route, json.getString("name"))
    }

    private fun json(effect: AudioRouteEffect): String = when (effect) {
        is AudioRouteEffect.Apply -> canonical(JSONObject().put("type", "apply").put("output_id", effect.output.id))
        is AudioRouteEffect.Release -> canonical(JSONObject().put("type", "release"))
        is AudioRouteEffect.RouteChanged -> canonical(JSONObject().put("type", "route_changed")
            .put("current", effect.routes.current?.id ?: JSONObject.NULL)
            .put("outputs", JSONArray(effect.routes.outputs.map { it.id })))
    }

    /** One spelling per object: keys sorted. */
    private fun canonical(json: JSONObject): String =
        json.keys().asSequence().sorted().joinToString(",", "{", "}") { key ->
            val value = json.get(key)
            JSONObject.quote(key) + ":" + when (value) {
                is String -> JSONObject.quote(value)
                is JSONArray -> (0 until value.length()).joinToString(",", "[", "]") { JSONObject.quote(value.getString(it)) }
                else -> value.toString()
            }
        }

    private fun only(json: JSONObject, what: String, keys: Set<String>) {
        val actual = json.keys().asSequence().toSet()
        if (actual != keys) throw AssertionError("$what has keys ${actual.sorted()}, expected ${keys.sorted()}")
    }

    private fun JSONObject.optStringOrNull(key: String): String? = if (isNull(key)) null else getString(key)
}
