package dev.ringer.kit

import kotlinx.coroutines.runBlocking
import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test
import java.io.IOException

class RingerApiClientTest {
    private val token = Samples.jwt("{\"sub\":\"bob\",\"name\":\"Bob\",\"exp\":1999999999}")
    private val transport = FakeHttpTransport { FakeHttpTransport.json(200, Samples.call()) }
    private val api = RingerApiClient("http://127.0.0.1:8080/", token, transport)

    private suspend fun failure(block: suspend () -> Unit): RingerApiException {
        try {
            block()
        } catch (e: RingerApiException) {
            return e
        }
        fail("expected RingerApiException")
        throw AssertionError()
    }

    @Test
    fun theUserIdIsTheTokensSubject() {
        assertEquals("bob", api.userId)
        assertNull(RingerApiClient("http://h", "not-a-jwt", transport).userId)
        assertNull(RingerApiClient("http://h", Samples.jwt("{\"sub\":7}"), transport).userId)
        assertNull(RingerApiClient("http://h", "a.%%%.c", transport).userId)
    }

    @Test
    fun theTokenNeverAppearsInToString() {
        assertFalse(api.toString().contains(token))
        assertEquals("Bearer $token", api.authorizationHeaders["Authorization"])
    }

    @Test
    fun registerDevicePutsTheRegistrationWithReadinessAndReadsTheDevice() = runBlocking {
        transport.answer = {
            FakeHttpTransport.json(200, Samples.device("d 1", "fcm-1",
                "{\"problems\":[\"battery_optimized\"],\"reported_at\":\"2026-12-01T12:00:01.500Z\"}"))
        }
        val device = api.registerDevice("d 1", DeviceRegistration(Platform.ANDROID, fcmToken = "fcm-1",
            readiness = DeviceReadiness(listOf(ReadinessProblem.BATTERY_OPTIMIZED))))
        val request = transport.next()
        assertEquals("PUT", request.method)
        assertEquals("http://127.0.0.1:8080/v1/devices/d%201", request.url)
        assertEquals("Bearer $token", request.headers["Authorization"])
        assertEquals("application/json", request.headers["Content-Type"])
        val body = JSONObject(request.text)
        assertEquals("android", body.getString("platform"))
        assertEquals("fcm-1", body.getString("fcm_token"))
        assertEquals("battery_optimized", body.getJSONObject("readiness").getJSONArray("problems").getString(0))
        assertFalse(body.getJSONObject("readiness").has("reported_at"))
        assertFalse(body.has("voip_token"))
        assertEquals("d 1", device.deviceId)
        assertEquals(DeviceReadiness(listOf("battery_optimized"), RingerJson.parseTimestamp("2026-12-01T12:00:01.500Z")), device.readiness)
        assertFalse(device.toString().contains("fcm-1"))
    }

    @Test
    fun callActionsUseTheirPathsAndBodies() = runBlocking {
        api.ringing("c1", "d1")
        transport.next().let {
            assertEquals("POST http://127.0.0.1:8080/v1/calls/c1/ringing", it.toString())
            assertEquals("d1", JSONObject(it.text).getString("device_id"))
        }
        api.decline("c1", "d1")
        assertEquals("POST http://127.0.0.1:8080/v1/calls/c1/decline", transport.next().toString())
        api.cancel("c1")
        transport.next().let {
            assertEquals("POST http://127.0.0.1:8080/v1/calls/c1/cancel", it.toString())
            assertNull(it.body)
            assertNull(it.headers["Content-Type"])
        }
        api.end("c1")
        assertEquals("POST http://127.0.0.1:8080/v1/calls/c1/end", transport.next().toString())
        val call = api.call("c1")
        assertEquals("GET http://127.0.0.1:8080/v1/calls/c1", transport.next().toString())
        assertEquals("c1", call.callId)
        transport.answer = { HttpResponse(204, emptyMap(), ByteArray(0)) }
        api.keepalive("c1")
        assertEquals("POST http://127.0.0.1:8080/v1/calls/c1/keepalive", transport.next().toString())
        api.unregisterDevice("d1")
        assertEquals("DELETE http://127.0.0.1:8080/v1/devices/d1", transport.next().toString())
    }

    @Test
    fun recentCallsReadsAPageAndPassesLimitAndBeforeAsQueryParameters() = runBlocking {
        transport.answer = {
            FakeHttpTransport.json(200, "{\"calls\":[${Samples.call()}],\"next_before\":\"c1\"}")
        }
        val page = api.recentCalls(limit = 1)
        assertEquals("GET http://127.0.0.1:8080/v1/calls?limit=1", transport.next().toString())
        assertEquals(listOf("c1"), page.calls.map { it.callId })
        assertEquals("c1", page.nextBefore)
        transport.answer = { FakeHttpTransport.json(200, "{\"calls\":[]}") }
        val last = api.recentCalls(limit = 20, before = "c1")
        assertEquals("GET http://127.0.0.1:8080/v1/calls?limit=20&before=c1", transport.next().toString())
        assertEquals(CallList(emptyList(), null), last)
        api.recentCalls()
        assertEquals("GET http://127.0.0.1:8080/v1/calls", transport.next().toString())
        transport.answer = { FakeHttpTransport.json(200, "{\"calls\":[7]}") }
        assertEquals(RingerApiException.Code.UNEXPECTED_RESPONSE, failure { api.recentCalls() }.code)
    }

    @Test
    fun createCallSendsTheCalleeVideoFlagAndIdempotencyKey() = runBlocking {
        api.createCall("alice", hasVideo = true, idempotencyKey = "key-1")
        val request = transport.next()
        assertEquals("POST http://127.0.0.1:8080/v1/calls", request.toString())
        assertEquals("key-1", request.headers["Idempotency-Key"])
        val body = JSONObject(request.text)
        assertEquals("alice", body.getString("callee"))
        assertTrue(body.getBoolean("has_video"))
        assertFalse("the server's --call-waiting decides", body.has("call_waiting"))
        api.createCall("alice")
        val generated = transport.next().headers["Idempotency-Key"]!!
        assertTrue(generated, Regex("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").matches(generated))
        api.createCall("alice", callWaiting = true)
        assertTrue(JSONObject(transport.next().text).getBoolean("call_waiting"))
        api.createGroupCall(listOf("alice", "bob"), callWaiting = false)
        assertFalse(JSONObject(transport.next().text).getBoolean("call_waiting"))
    }

    @Test
    fun aWaitingCallAndItsPushSayWaiting() {
        val call = Call.fromJson(JSONObject(Samples.call()).put("waiting", true))
        assertEquals(true, call.waiting)
        assertEquals(true, Call.fromJson(call.toJson()).waiting)
        assertEquals(null, Call.fromJson(JSONObject(Samples.call())).waiting)
        val push = RingerPushBody.fromJson(RingerPushBody(call.callId, call.caller, "bob", false, 1, 2, waiting = true).toJson())
        assertEquals(true, push.waiting)
        assertEquals(RingerWireException::class.java,
            runCatching { Call.fromJson(JSONObject(Samples.call()).put("waiting", "yes")) }.exceptionOrNull()?.javaClass)
    }

    @Test
    fun acceptAndMediaReadTheMediaSession() = runBlocking {
        transport.answer = {
            FakeHttpTransport.json(200, "{\"call\":${Samples.call(state = "accepted")}," +
                "\"media\":{\"url\":\"wss://media\",\"token\":\"m\"}}")
        }
        val accepted = api.accept("c1", "d1")
        assertEquals("POST http://127.0.0.1:8080/v1/calls/c1/accept", transport.next().toString())
        assertEquals(MediaSession("wss://media", "m"), accepted.media)
        transport.answer = { FakeHttpTransport.json(200, "{\"url\":\"wss://media\",\"token\":\"m2\"}") }
        assertEquals("m2", api.media("c1").token)
        assertEquals("GET http://127.0.0.1:8080/v1/calls/c1/media", transport.next().toString())
    }

    @Test
    fun aProblemAnswerIsThrownWithItsTypeAndCallState() = runBlocking {
        transport.answer = {
            HttpResponse(409, mapOf("Content-Type" to "application/problem+json"),
                ("{\"type\":\"https://ringer.dev/problems/call-state-conflict\",\"title\":\"Conflict\"," +
                    "\"status\":409,\"detail\":\"call is cancelled\",\"call_state\":\"cancelled\"}").toByteArray())
        }
        val error = failure { api.accept("c1", "d1") }
        assertEquals(RingerApiException.Code.PROBLEM, error.code)
        assertEquals("https://ringer.dev/problems/call-state-conflict", error.problem!!.type)
        assertEquals(CallState.CANCELLED, error.problem!!.callState)
        assertEquals("409 https://ringer.dev/problems/call-state-conflict: call is cancelled", error.detail)
        assertFalse(error.isRetryable)
    }

    @Test
    fun fiveHundredsAreRetryableAndABodyThatIsNoProblemBecomesAboutBlank() = runBlocking {
        transport.answer = { HttpResponse(502, emptyMap(), "<html>bad gateway</html>".toByteArray()) }
        val error = failure { api.call("c1") }
        assertEquals(Problem("about:blank", "HTTP 502", 502), error.problem)
        assertTrue(error.isRetryable)
        transport.answer = { HttpResponse(404, emptyMap(), ByteArray(0)) }
        assertFalse(failure { api.call("c1") }.isRetryable)
    }

    /** RFC 9110 §15.5.9 and RFC 6585 §4: a 408 or 429 says the request was not processed, so sending it again may work. */
    @Test
    fun requestTimeoutAndTooManyRequestsAreRetryableButOtherClientErrorsAreNot() = runBlocking {
        for ((status, retryable) in listOf(408 to true, 429 to true, 400 to false, 409 to false, 410 to false)) {
            transport.answer = { HttpResponse(status, emptyMap(), ByteArray(0)) }
            assertEquals("$status", retryable, failure { api.accept("c1", "d1") }.isRetryable)
        }
    }

    @Test
    fun noAnswerIsARetryableTransportFailureWithoutTheToken() = runBlocking {
        transport.answer = { throw IOException("connection refused") }
        val error = failure { api.end("c1") }
        assertEquals(RingerApiException.Code.TRANSPORT, error.code)
        assertTrue(error.isRetryable)
        assertNull(error.problem)
        assertFalse(error.detail.contains(token))
    }

    @Test
    fun anUnreadableSuccessIsAnUnexpectedResponse() = runBlocking {
        transport.answer = { FakeHttpTransport.json(200, "{\"call_id\":\"c1\"}") }
        val error = failure { api.call("c1") }
        assertEquals(RingerApiException.Code.UNEXPECTED_RESPONSE, error.code)
        assertFalse(error.isRetryable)
        transport.answer = { FakeHttpTransport.json(200, "not json") }
        assertEquals(RingerApiException.Code.UNEXPECTED_RESPONSE, failure { api.call("c1") }.code)
    }

    @Test
    fun theDateHeaderOfEveryAnswerIsObservedAsTheMiddleOfItsSecond() = runBlocking {
        val observed = ArrayList<Long>()
        val observing = api.observingServerTime { observed.add(it) }
        transport.answer = {
            HttpResponse(409, mapOf("date" to "Tue, 01 Dec 2026 12:00:05 GMT"), "{}".toByteArray())
        }
        failure { observing.call("c1") }
        transport.answer = { FakeHttpTransport.json(200, Samples.call(), mapOf("Date" to "garbage")) }
        observing.call("c1")
        api.call("c1")
        assertEquals(listOf(RingerJson.parseTimestamp("2026-12-01T12:00:05.500Z")!!), observed)
    }

    @Test
    fun httpDatesParseOnlyAsImfFixdate() {
        assertEquals(784_111_777_000L, HttpDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        assertNull(HttpDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"))
        assertNull(HttpDate.parse("Sun, 30 Feb 1994 08:49:37 GMT"))
        assertNull(HttpDate.parse("Sun, 06 Foo 1994 08:49:37 GMT"))
        assertNull(HttpDate.parse("Sun, 06 Nov 1994 24:49:37 GMT"))
    }

    @Test
    fun eventsUrlSwitchesToWebSocketSchemesAndCarriesSince() {
        assertEquals("ws://127.0.0.1:8080/v1/events?device_id=d1", api.eventsUrl("d1", null))
        assertEquals("ws://127.0.0.1:8080/v1/events?device_id=d%261&since=42", api.eventsUrl("d&1", 42))
        val secure = RingerApiClient("https://ringer.example.com/api", token, transport)
        assertEquals("wss://ringer.example.com/api/v1/events?device_id=d1&since=0", secure.eventsUrl("d1", 0))
        assertEquals("https://ringer.example.com/api", secure.baseUrl)
    }
}
