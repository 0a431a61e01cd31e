package dev.ringer.kit

import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test

/** The readiness report as the server shows it on a device (`GET /v1/devices`) and on a push attempt. */
class ReadinessWireTest {
    private fun attempt(readiness: String?): String =
        "{\"call_id\":\"c1\",\"device_id\":\"bob-pixel\",\"provider\":\"fcm\",\"push_type\":\"high\",\"status\":200," +
            "\"latency_ms\":12.5,\"attempts\":1,\"sent_at\":\"2026-12-01T12:00:00.250Z\"" +
            (readiness?.let { ",\"readiness\":$it" } ?: "") + "}"

    private fun expectWireError(what: String, block: () -> Unit) {
        try {
            block()
        } catch (e: RingerWireException) {
            return
        }
        fail("$what: expected RingerWireException")
    }

    @Test
    fun aDeviceReadsItsReadinessWithTheServersReportTime() {
        val device = Device.fromJson(JSONObject(Samples.device("bob-pixel", "tok",
            "{\"problems\":[\"battery_optimized\",\"notifications_disabled\"],\"reported_at\":\"2026-12-01T12:00:01.500Z\"}")))
        assertEquals(listOf(ReadinessProblem.BATTERY_OPTIMIZED, ReadinessProblem.NOTIFICATIONS_DISABLED),
                     device.readiness?.problems)
        assertEquals(RingerJson.parseTimestamp("2026-12-01T12:00:01.500Z"), device.readiness?.reportedAtMs)
        assertEquals(device, Device.fromJson(device.toJson()))
    }

    @Test
    fun aDeviceThatNeverReportedHasNoReadinessAndAnEmptyReportIsKeptAsNothingFound() {
        assertNull(Device.fromJson(JSONObject(Samples.device("bob-pixel", "tok"))).readiness)
        assertNull(Device.fromJson(JSONObject(Samples.device("bob-pixel", "tok", "null"))).readiness)
        val checked = Device.fromJson(JSONObject(Samples.device("bob-pixel", "tok",
            "{\"problems\":[],\"reported_at\":\"2026-12-01T12:00:01.000Z\"}")))
        assertEquals(emptyList<String>(), checked.readiness?.problems)
    }

    @Test
    fun aProblemNameThisBuildDoesNotKnowIsKept() {
        val device = Device.fromJson(JSONObject(Samples.device("bob-pixel", "tok",
            "{\"problems\":[\"some_future_problem\"],\"reported_at\":\"2026-12-01T12:00:01.000Z\"}")))
        assertEquals(listOf("some_future_problem"), device.readiness?.problems)
        assertFalse(ReadinessProblem.KNOWN.contains("some_future_problem"))
    }

    @Test
    fun aDeviceReadinessOfTheWrongShapeIsAWireError() {
        for (readiness in listOf("[\"battery_optimized\"]", "{}", "{\"problems\":\"battery_optimized\"}",
                                 "{\"problems\":[5]}", "{\"problems\":[],\"reported_at\":\"yesterday\"}")) {
            expectWireError(readiness) { Device.fromJson(JSONObject(Samples.device("bob-pixel", "tok", readiness))) }
        }
    }

    @Test
    fun aPushAttemptReadsTheProblemsTheDeviceHadWhenItWasSent() {
        val attempt = PushAttempt.fromJson(JSONObject(attempt("[\"full_screen_intent_denied\",\"some_future_problem\"]")))
        assertEquals(listOf(ReadinessProblem.FULL_SCREEN_INTENT_DENIED, "some_future_problem"), attempt.readiness)
        assertEquals(200, attempt.status)
        assertEquals(attempt, PushAttempt.fromJson(attempt.toJson()))
    }

    @Test
    fun aPushAttemptWithoutReadinessHasNoneAndWritesNone() {
        val attempt = PushAttempt.fromJson(JSONObject(attempt(null)))
        assertNull(attempt.readiness)
        assertFalse(attempt.toJson().has("readiness"))
        assertNull(PushAttempt.fromJson(JSONObject(attempt("null"))).readiness)
    }

    @Test
    fun aGroupCallsPushAttemptNamesWhosePhoneItWasAndA1to1OneDoesNot() {
        val group = PushAttempt.fromJson(JSONObject(attempt(null)).put("user_id", "carol"))
        assertEquals("carol", group.userId)
        assertEquals(group, PushAttempt.fromJson(group.toJson()))
        val single = PushAttempt.fromJson(JSONObject(attempt(null)))
        assertNull(single.userId)
        assertFalse(single.toJson().has("user_id"))
    }

    @Test
    fun aPushAttemptReadinessOfTheWrongShapeIsAWireError() {
        for (readiness in listOf("\"battery_optimized\"", "{\"problems\":[]}", "[7]", "[null]")) {
            expectWireError(readiness) { PushAttempt.fromJson(JSONObject(attempt(readiness))) }
        }
    }

    @Test
    fun theCalleesPushesOnACallCarryTheirReadiness() {
        val call = JSONObject(Samples.call()).put("pushes", org.json.JSONArray().put(JSONObject(attempt("[\"battery_optimized\"]"))))
        assertEquals(listOf(listOf(ReadinessProblem.BATTERY_OPTIMIZED)), Call.fromJson(call).pushes?.map { it.readiness })
    }

    @Test
    fun aFaultyReportIsMadeRegistrableMalformedNamesDroppedAndTheCapKeptWithKnownNamesFirst() {
        val own = (1..20).map { "app_problem_$it" }
        val report = DeviceReadiness(own + listOf("Bad Name", "", "double__underscore", "trailing_", "9lives",
                                                  ReadinessProblem.NO_PUSH_TOKEN, ReadinessProblem.NO_PUSH_TOKEN))
        val sent = report.registrable.problems
        assertEquals(DeviceReadiness.MAX_PROBLEMS, sent.size)
        assertTrue("the known name is kept over the app's own", ReadinessProblem.NO_PUSH_TOKEN in sent)
        assertTrue(sent.all { ReadinessProblem.isWellFormed(it) })
        assertEquals(sent.sorted(), sent)
        assertEquals(listOf(ReadinessProblem.BATTERY_OPTIMIZED),
                     DeviceReadiness(listOf(ReadinessProblem.BATTERY_OPTIMIZED)).registrable.problems)
    }

    @Test
    fun wellFormedNamesAreTheServersSnakeCaseOfAtMost64Bytes() {
        for (name in ReadinessProblem.KNOWN) assertTrue(name, ReadinessProblem.isWellFormed(name))
        assertTrue(ReadinessProblem.isWellFormed("a" + "b".repeat(63)))
        for (name in listOf("", "a" + "b".repeat(64), "Notifications", "_a", "a_", "a__b", "1a", "a-b", "a b", "é")) {
            assertFalse(name, ReadinessProblem.isWellFormed(name))
        }
    }

    @Test
    fun aCallReadsTheCalleesReadinessAndLeavesItOutWhenAbsent() {
        val base = "{\"call_id\":\"c1\",\"state\":\"ringing\",\"caller\":{\"id\":\"alice\"},\"callee\":{\"id\":\"bob\"}," +
            "\"has_video\":false,\"created_at\":\"2026-12-01T12:00:00Z\",\"expires_at\":\"2026-12-01T12:00:30Z\""
        val call = Call.fromJson(JSONObject("$base,\"callee_readiness\":[\"battery_optimized\",\"notifications_disabled\"]}"))
        assertEquals(listOf(ReadinessProblem.BATTERY_OPTIMIZED, ReadinessProblem.NOTIFICATIONS_DISABLED), call.calleeReadiness)
        assertEquals(call, Call.fromJson(call.toJson()))
        assertNull(Call.fromJson(JSONObject("$base}")).calleeReadiness)
        expectWireError("a non-string problem") { Call.fromJson(JSONObject("$base,\"callee_readiness\":[3]}")) }
    }
}
