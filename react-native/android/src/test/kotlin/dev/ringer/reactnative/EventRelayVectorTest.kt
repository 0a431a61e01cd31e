package dev.ringer.reactnative

import dev.ringer.reactnative.ReactNativeVectors.canonical
import dev.ringer.reactnative.ReactNativeVectors.objects
import dev.ringer.reactnative.ReactNativeVectors.only
import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.fail
import org.junit.Test

/**
 * Every case of TestVectors/react-native/relay.json through [EventRelay], as the Swift half runs the same file: what
 * an event emits at once, what each attach replays, with the case's capacity.
 */
class EventRelayVectorTest {
    @Test
    fun everyCaseOfRelayJsonHolds() {
        val failures = ArrayList<String>()
        val cases = ReactNativeVectors.cases(ReactNativeVectors.file("relay.json"), setOf("capacity", "steps"))
        for ((index, case) in cases.withIndex()) {
            val relay = EventRelay(case.getInt("capacity"))
            for ((step, json) in objects(case.getJSONArray("steps")).withIndex()) {
                val what = "case $index (${case.getString("description")}) step $step"
                val input = json.getJSONObject("input")
                val (made, expected) = when (input.getString("type")) {
                    "event" -> {
                        only(json, what, setOf("input", "emitted"))
                        only(input, "$what input", setOf("type", "event"))
                        val emitted = relay.offer(input.getJSONObject("event"))
                        Pair(canonical(listOfNotNull(emitted)), canonical(json.getJSONArray("emitted")))
                    }
                    "attach" -> {
                        only(json, what, setOf("input", "replayed"))
                        Pair(canonical(relay.attach()), canonical(json.getJSONArray("replayed")))
                    }
                    "detach" -> {
                        only(json, what, setOf("input"))
                        relay.detach()
                        Pair("", "")
                    }
                    else -> throw AssertionError("$what: unknown input ${input.getString("type")}")
                }
                if (made != expected) failures.add("$what: expected $expected, made $made")
            }
        }
        if (failures.isNotEmpty()) fail(failures.joinToString("\n"))
    }

    @Test
    fun theAppKeeps200EventsAndSaysHowManyItDropped() {
        val relay = EventRelay()
        assertEquals(200, relay.capacity)
        for (index in 1..205) relay.offer(JSONObject().put("type", "connectionChanged").put("status", "lost").put("n", index))
        val replay = relay.attach()
        assertEquals(201, replay.size)
        assertEquals(canonical(JSONObject().put("type", "eventsDropped").put("count", 5)), canonical(replay[0]))
        assertEquals(6, replay[1].getInt("n"))
    }
}
