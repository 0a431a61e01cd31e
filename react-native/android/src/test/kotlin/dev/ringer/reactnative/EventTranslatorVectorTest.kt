package dev.ringer.reactnative

import dev.ringer.kit.AudioOutput
import dev.ringer.kit.AudioRoute
import dev.ringer.kit.AudioRoutes
import dev.ringer.kit.PushGroup
import dev.ringer.reactnative.ReactNativeVectors.canonical
import dev.ringer.reactnative.ReactNativeVectors.objects
import dev.ringer.reactnative.ReactNativeVectors.only
import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.fail
import org.junit.Test

/**
 * Every case of TestVectors/react-native/events.json through [EventTranslator], step by step, as the Swift half runs
 * the same file: each step's observation, with the coordinator's calls at that moment, makes exactly its events.
 */
class EventTranslatorVectorTest {
    @Test
    fun everyCaseOfEventsJsonHolds() {
        val failures = ArrayList<String>()
        val cases = ReactNativeVectors.cases(ReactNativeVectors.file("events.json"), setOf("steps"))
        for ((index, case) in cases.withIndex()) {
            val translator = EventTranslator()
            for ((step, json) in objects(case.getJSONArray("steps")).withIndex()) {
                only(json, "case $index step $step", setOf("observation", "calls", "events"))
                val made = translator.translate(observed(json.getJSONObject("observation")), calls(json.getJSONObject("calls")))
                val expected = canonical(json.getJSONArray("events"))
                if (canonical(made) != expected) {
                    failures.add("case $index (${case.getString("description")}) step $step: expected $expected, made ${canonical(made)}")
                }
            }
        }
        if (failures.isNotEmpty()) fail(failures.joinToString("\n"))
    }

    @Test
    fun theVectorsUseEveryObservationType() {
        val types = ReactNativeVectors.cases(ReactNativeVectors.file("events.json"), setOf("steps"))
            .flatMap { objects(it.getJSONArray("steps")) }.map { it.getJSONObject("observation").getString("type") }.toSet()
        assertEquals(setOf("ringing", "answered", "outgoing_answered", "media_can_start", "ended", "event", "push_reported",
                           "request_failed", "stream_status", "readiness", "call_started", "participants_changed",
                           "held_changed", "muted_changed", "dtmf", "audio_route_changed", "call_back_requested"), types)
    }

    private fun observed(json: JSONObject): Observed {
        val type = json.getString("type")
        fun keys(vararg names: String) = only(json, "observation $type", setOf("type", *names))
        fun callId() = json.getString("call_id")
        fun media(): Observed.Media {
            val media = json.getJSONObject("media")
            only(media, "media", setOf("url", "token"))
            return Observed.Media(media.getString("url"), media.getString("token"))
        }
        return when (type) {
            "ringing" -> { keys("call_id"); Observed.Ringing(callId()) }
            "call_started" -> { keys("call_id"); Observed.CallStarted(callId()) }
            "answered" -> { keys("call_id", "media"); Observed.Answered(callId(), media()) }
            "outgoing_answered" -> { keys("call_id", "media"); Observed.OutgoingAnswered(callId(), media()) }
            "media_can_start" -> { keys("call_id", "media"); Observed.MediaCanStart(callId(), media()) }
            "ended" -> { keys("call_id", "reason"); Observed.Ended(callId(), json.opt("reason") as? String) }
            "push_reported" -> { keys("call_id", "disposition"); Observed.PushReported(json.opt("call_id") as? String, json.getString("disposition")) }
            "request_failed" -> { keys("call_id", "detail"); Observed.RequestFailed(callId(), json.getString("detail")) }
            "participants_changed" -> {
                keys("call_id", "legs")
                val legs = json.getJSONArray("legs")
                Observed.ParticipantsChanged(callId(), (0 until legs.length()).map { index ->
                    val leg = legs.getJSONObject(index)
                    only(leg, "legs[$index]", setOf("user", "state"))
                    val user = leg.getJSONObject("user")
                    only(user, "legs[$index].user", setOf("id", "name"))
                    Observed.Participant(CallInfo.Peer(user.getString("id"), user.opt("name") as? String), leg.getString("state"))
                })
            }
            "held_changed" -> { keys("call_id", "held"); Observed.HeldChanged(callId(), json.getBoolean("held")) }
            "muted_changed" -> { keys("call_id", "muted"); Observed.MutedChanged(callId(), json.getBoolean("muted")) }
            "dtmf" -> { keys("call_id", "digits"); Observed.Dtmf(callId(), json.getString("digits")) }
            "audio_route_changed" -> {
                keys("current", "outputs")
                val outputs = json.getJSONArray("outputs")
                val list = (0 until outputs.length()).map { index ->
                    val output = outputs.getJSONObject(index)
                    only(output, "outputs[$index]", setOf("id", "route", "name"))
                    AudioOutput(output.getString("id"), AudioRoute.of(output.getString("route"))
                        ?: throw AssertionError("unknown route ${output.getString("route")}"), output.getString("name"))
                }
                val current = json.opt("current") as? String
                Observed.AudioRouteChanged(AudioRoutes(list.firstOrNull { it.id == current }, list))
            }
            "call_back_requested" -> {
                keys("user_id", "has_video")
                Observed.CallBackRequested(json.getString("user_id"), json.getBoolean("has_video"))
            }
            "stream_status" -> { keys("status"); Observed.StreamStatus(json.getString("status")) }
            "readiness" -> {
                keys("problems")
                val problems = json.getJSONArray("problems")
                Observed.Readiness((0 until problems.length()).map { problems.getString(it) })
            }
            "event" -> {
                keys("event")
                val event = json.getJSONObject("event")
                only(event, "event", setOf("type", "call"))
                val call = event.getJSONObject("call")
                only(call, "event.call", setOf("call_id", "state", "end_reason"))
                Observed.ServerEvent(event.getString("type"), call.getString("call_id"), call.getString("state"),
                                     call.opt("end_reason") as? String)
            }
            else -> throw AssertionError("unknown observation type $type")
        }
    }

    private fun calls(json: JSONObject): Map<String, CallInfo> = json.keys().asSequence().associateWith { callId ->
        val call = json.getJSONObject(callId)
        only(call, "calls.$callId", setOf("direction", "peer", "has_video", "group", "waiting"), setOf("direction", "peer", "has_video"))
        val peer = call.getJSONObject("peer")
        only(peer, "calls.$callId.peer", setOf("id", "name"))
        CallInfo(call.getString("direction"), CallInfo.Peer(peer.getString("id"), peer.opt("name") as? String), call.getBoolean("has_video"),
            call.optJSONObject("group")?.let { PushGroup.fromJson(it) }, call.optBoolean("waiting", false))
    }
}
