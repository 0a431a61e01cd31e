package dev.ringer.kit

import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

/** The wire types read what the server sends, keep unknown enum values, and refuse bad input with RingerWireException. */
class WireParsingTest {
    private val callText = """{"call_id":"4f0c2a9e-0000-4000-8000-000000000001","state":"ringing",
        "caller":{"id":"alice","name":"Alice"},"callee":{"id":"bob"},"has_video":false,
        "created_at":"2026-11-30T12:00:00.123Z","expires_at":"2026-11-30T12:00:45Z","future_key":{"x":1}}"""

    private fun refuses(what: String, block: () -> Unit) {
        try {
            block()
            fail("$what: expected RingerWireException")
        } catch (e: RingerWireException) {
            assertTrue(what, e.detail.isNotEmpty())
        }
    }

    @Test fun callReadsTimesAsUnixMillisAndIgnoresUnknownKeys() {
        val call = Call.fromJson(JSONObject(callText))
        assertEquals(1_796_040_000_123L, call.createdAtMs)
        assertEquals(1_796_040_045_000L, call.expiresAtMs)
        assertEquals(CallState.RINGING, call.state)
        assertEquals(Party("alice", "Alice"), call.caller)
        assertNull(call.acceptedDeviceId)
        assertEquals(call, Call.fromJson(call.toJson()))
    }

    @Test fun unknownEnumValuesAreKept() {
        val call = Call.fromJson(JSONObject(callText.replace("\"ringing\"", "\"on_hold\"")))
        assertEquals("on_hold", call.state.rawValue)
        assertFalse(call.state.isLive)
        assertFalse(CallState.KNOWN.contains(call.state))
        assertEquals("call.transferred", CallEvent.fromJson(JSONObject()
            .put("seq", 3).put("type", "call.transferred").put("call", JSONObject(callText))).type.rawValue)
        val ended = Call.fromJson(JSONObject(callText).put("state", "ended").put("end_reason", "server_restart"))
        assertEquals(SystemEndReason("server_restart"), ended.endReason)
        assertFalse(SystemEndReason.KNOWN.contains(ended.endReason))
        assertEquals(ended, Call.fromJson(ended.toJson()))
        val problem = Problem.fromJson(JSONObject("""{"type":"https://ringer.dev/problems/call-state-conflict","title":"x",
            "status":409,"call_state":"parked"}"""))
        assertEquals("parked", problem.callState?.rawValue)
        assertEquals("call.transferred", AlertOrBackgroundPush.fromJson(JSONObject("""{"aps":{"content-available":1},
            "ringer":{"v":1,"type":"call.transferred","call_id":"c"}}""")).ringer.type.rawValue)
    }

    @Test fun truncatedOrNonObjectJsonIsARingerWireException() {
        refuses("truncated") { Call.fromJson(RingerJson.parseObject(callText.substring(0, 40), "call")) }
        refuses("array") { RingerJson.parseObject("[1,2]", "call") }
        refuses("empty") { RingerJson.parseObject("", "call") }
        refuses("string") { RingerJson.parseObject("\"call\"", "call") }
    }

    @Test fun missingOrIllTypedFieldsAreARingerWireException() {
        for (key in listOf("call_id", "state", "caller", "callee", "has_video", "created_at", "expires_at")) {
            val json = JSONObject(callText)
            json.remove(key)
            refuses("missing $key") { Call.fromJson(json) }
            refuses("null $key") { Call.fromJson(JSONObject(callText).put(key, JSONObject.NULL)) }
        }
        refuses("number id") { Call.fromJson(JSONObject(callText).put("call_id", 7)) }
        refuses("string has_video") { Call.fromJson(JSONObject(callText).put("has_video", "false")) }
        refuses("bad date") { Call.fromJson(JSONObject(callText).put("created_at", "yesterday")) }
        refuses("february 30") { Call.fromJson(JSONObject(callText).put("created_at", "2026-02-30T00:00:00Z")) }
        refuses("caller string") { Call.fromJson(JSONObject(callText).put("caller", "alice")) }
        refuses("pushes object") { Call.fromJson(JSONObject(callText).put("pushes", JSONObject())) }
        refuses("fractional seq") { CallEvent.fromJson(JSONObject().put("seq", 1.5).put("type", "call.ended").put("call", JSONObject(callText))) }
        refuses("problem without status") { Problem.fromJson(JSONObject("""{"type":"about:blank","title":"x"}""")) }
        refuses("stream.ready of another type") { StreamReady.fromJson(JSONObject("""{"type":"call.ended","seq":1}""")) }
    }

    @Test fun pushBodiesReadMillisecondTimes() {
        val body = RingerPushBody.fromPushPayload(JSONObject("""{"ringer":{"v":1,"type":"call.incoming",
            "call_id":"4f0c2a9e-0000-4000-8000-000000000001","caller":{"id":"alice"},"has_video":true,
            "sent_at":1800000000000,"expires_at":1800000030000},"app":"own"}"""))
        assertEquals(1_800_000_030_000L, body.expiresAtMs)
        assertNull(body.calleeId)
        assertEquals(body, RingerPushBody.fromJson(body.toJson()))
        refuses("string sent_at") { RingerPushBody.fromJson(body.toJson().put("sent_at", "1800000000000")) }
        refuses("no ringer") { RingerPushBody.fromPushPayload(JSONObject("""{"aps":{}}""")) }
        val update = AlertOrBackgroundPush.fromJson(JSONObject("""{"aps":{"content-available":1},
            "ringer":{"v":1,"type":"call.cancelled","call_id":"c"}}"""))
        assertEquals(EventType.CALL_CANCELLED, update.ringer.type)
        assertEquals(1, update.aps.contentAvailable)
    }

    @Test fun timestampsRoundTripAndSnapToTheMillisecond() {
        assertEquals(0L, RingerJson.parseTimestamp("1970-01-01T00:00:00Z"))
        assertEquals(124L, RingerJson.parseTimestamp("1970-01-01T00:00:00.1235Z"))
        assertEquals(3_600_000L, RingerJson.parseTimestamp("1970-01-01T02:00:00+01:00"))
        assertEquals(-1L, RingerJson.parseTimestamp("1969-12-31T23:59:59.999Z"))
        assertEquals("1969-12-31T23:59:59.999Z", RingerJson.formatTimestamp(-1L))
        assertEquals("2026-11-30T12:00:00.123Z", RingerJson.formatTimestamp(1_796_040_000_123L))
        assertEquals("2024-02-29T00:00:00.000Z", RingerJson.formatTimestamp(RingerJson.parseTimestamp("2024-02-29T00:00:00Z")!!))
        assertNull(RingerJson.parseTimestamp("2026-11-30 12:00:00Z"))
    }

    @Test fun mediaSessionNeverShowsItsToken() {
        assertFalse(MediaSession("wss://m", "secret-token").toString().contains("secret-token"))
    }

    @Test fun aGroupCallReadsItsLegsAndA1to1CallHasNone() {
        val oneToOne = Call.fromJson(JSONObject(callText))
        assertNull(oneToOne.legs)
        assertFalse(oneToOne.isGroup)
        assertFalse(oneToOne.toJson().has("legs") || oneToOne.toJson().has("answer_policy"))
        val group = Call.fromJson(JSONObject(callText).put("answer_policy", "first_answer").put("legs", org.json.JSONArray(
            """[{"user":{"id":"bob","name":"Bob"},"state":"accepted","rung_at":"2026-11-30T12:00:00.123Z",
            "expires_at":"2026-11-30T12:00:45.123Z","accepted_at":"2026-11-30T12:00:03Z","accepted_device_id":"bob-1"},
            {"user":{"id":"carol"},"state":"on_hold","rung_at":"2026-11-30T12:00:00.123Z",
            "expires_at":"2026-11-30T12:00:45.123Z","ended_by":"bob","future":1}]""")))
        assertTrue(group.isGroup)
        assertEquals(AnswerPolicy.FIRST_ANSWER, group.answerPolicy)
        assertEquals(LegState.ACCEPTED, group.legOf("bob")?.state)
        assertEquals("bob-1", group.legOf("bob")?.acceptedDeviceId)
        assertEquals("on_hold", group.legOf("carol")?.state?.rawValue)
        assertFalse(group.legOf("carol")!!.state.isLive)
        assertNull(group.legOf("alice"))
        assertEquals(group, Call.fromJson(group.toJson()))
        refuses("a leg that is not an object") {
            Call.fromJson(JSONObject(callText).put("legs", org.json.JSONArray("[1]")))
        }
        refuses("a leg without a user") {
            Call.fromJson(JSONObject(callText).put("legs", org.json.JSONArray("""[{"state":"ringing"}]""")))
        }
    }

    @Test fun aGroupPushNamesOthersAndA1to1PushHasNoGroup() {
        val text = """{"v":1,"type":"call.incoming","call_id":"c","caller":{"id":"alice"},"callee_id":"bob",
            "has_video":false,"sent_at":1,"expires_at":2}"""
        val single = RingerPushBody.fromJson(JSONObject(text))
        assertNull(single.group)
        assertFalse(single.toJson().has("group"))
        val group = RingerPushBody.fromJson(JSONObject(text).put("group",
            JSONObject("""{"count":3,"others":[{"id":"carol","name":"Carol"},{"id":"dave"}]}""")))
        assertEquals(PushGroup(3, listOf(Party("carol", "Carol"), Party("dave"))), group.group)
        assertEquals(group, RingerPushBody.fromJson(group.toJson()))
        refuses("a group without a count") {
            RingerPushBody.fromJson(JSONObject(text).put("group", JSONObject("""{"others":[]}""")))
        }
    }

    @Test fun aProblemNamesCalleesAndLegState() {
        val problem = Problem.fromJson(JSONObject("""{"type":"https://ringer.dev/problems/duplicate-callee",
            "title":"Duplicate callee","status":422,"callees":["bob"],"leg_state":"left"}"""))
        assertEquals(ProblemType.DUPLICATE_CALLEE, problem.problemType)
        assertEquals(listOf("bob"), problem.callees)
        assertEquals(LegState.LEFT, problem.legState)
        assertEquals(problem, Problem.fromJson(problem.toJson()))
        assertTrue(EventType.KNOWN.contains(EventType.CALL_UPDATED))
    }
}
