package dev.ringer.kit

import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.runBlocking
import org.json.JSONObject
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.IOException
import java.util.Collections

class PushTokenRegistrarTest {
    private val job = Job()
    private val scope = CoroutineScope(Dispatchers.Default + job)
    private val clock = FakeClock()
    private val observations: MutableList<PushTokenRegistrarObservation> = Collections.synchronizedList(ArrayList())
    /** Answers PUT with the registered device, DELETE with 204; tests replace it to fail. */
    private val server = FakeHttpTransport { request -> answer(request) }
    private val bob = RingerApiClient("http://127.0.0.1:8080", Samples.jwt("{\"sub\":\"bob\"}"), server)
    private val carol = RingerApiClient("http://127.0.0.1:8080", Samples.jwt("{\"sub\":\"carol\"}"), server)
    private val registrar = PushTokenRegistrar("d1", scope, random = { 0.5 }, now = { clock.now() },
                                               sleepUntil = { clock.sleepUntil(it) },
                                               observer = { observations.add(it) })

    private fun answer(request: RecordedRequest): HttpResponse = when (request.method) {
        "PUT" -> {
            val body = JSONObject(request.text)
            val readiness = body.optJSONObject("readiness")?.toString()
            FakeHttpTransport.json(200, Samples.device("d1", body.optString("fcm_token"), readiness))
        }
        else -> HttpResponse(204, emptyMap(), ByteArray(0))
    }

    @After
    fun cancel() {
        job.cancel()
    }

    private fun idle() = runBlocking { registrar.waitUntilIdle() }

    @Test
    fun nothingIsSentBeforeLoginAndTheHeldTokenIsRegisteredRightAfter() {
        registrar.setToken("fcm-1")
        server.assertNoneWithin(50)
        assertFalse(registrar.status.isLoggedIn)
        assertTrue(registrar.status.hasFcmToken)
        registrar.logIn(bob)
        val request = server.next()
        assertEquals("PUT http://127.0.0.1:8080/v1/devices/d1", request.toString())
        assertEquals(bob.authorizationHeaders["Authorization"], request.headers["Authorization"])
        val body = JSONObject(request.text)
        assertEquals("android", body.getString("platform"))
        assertEquals("fcm-1", body.getString("fcm_token"))
        assertFalse(body.has("readiness"))
        idle()
        assertEquals("fcm-1", registrar.status.registeredDevice?.fcmToken)
        assertTrue(observations.single() is PushTokenRegistrarObservation.Registered)
    }

    @Test
    fun aRotatedTokenReRegistersAndTheSameTokenAgainSendsNothing() {
        registrar.logIn(bob)
        server.assertNoneWithin(50)
        registrar.setToken("fcm-1")
        assertEquals("fcm-1", JSONObject(server.next().text).getString("fcm_token"))
        idle()
        registrar.setToken("fcm-1")
        server.assertNoneWithin(50)
        registrar.setToken("fcm-2")
        assertEquals("fcm-2", JSONObject(server.next().text).getString("fcm_token"))
        idle()
        assertEquals("fcm-2", registrar.status.registeredDevice?.fcmToken)
    }

    @Test
    fun logoutUnregistersWithTheLoggedOutUsersCredentials() {
        registrar.setToken("fcm-1")
        registrar.logIn(bob)
        server.next()
        idle()
        registrar.logOut()
        val delete = server.next()
        assertEquals("DELETE http://127.0.0.1:8080/v1/devices/d1", delete.toString())
        assertEquals(bob.authorizationHeaders["Authorization"], delete.headers["Authorization"])
        idle()
        assertFalse(registrar.status.isLoggedIn)
        assertNull(registrar.status.registeredDevice)
        assertEquals(PushTokenRegistrarObservation.Unregistered("d1"), observations.last())
        // The token belongs to the install: the next user gets it registered.
        registrar.logIn(carol)
        val put = server.next()
        assertEquals(carol.authorizationHeaders["Authorization"], put.headers["Authorization"])
        assertEquals("fcm-1", JSONObject(put.text).getString("fcm_token"))
    }

    @Test
    fun logoutWithNobodyLoggedInSendsNothing() {
        registrar.setToken("fcm-1")
        registrar.logOut()
        server.assertNoneWithin(50)
    }

    @Test
    fun anInvalidatedTokenUnregistersTheDevice() {
        registrar.setToken("fcm-1")
        registrar.logIn(bob)
        server.next()
        idle()
        registrar.invalidateToken()
        assertEquals("DELETE http://127.0.0.1:8080/v1/devices/d1", server.next().toString())
        idle()
        assertNull(registrar.status.registeredDevice)
        registrar.setToken("")
        server.assertNoneWithin(50)
    }

    @Test
    fun aChangedReadinessReportReRegistersAndTheSameProblemsInAnotherOrderDoNot() {
        registrar.setReadiness(DeviceReadiness(listOf(ReadinessProblem.NOTIFICATIONS_DISABLED)))
        registrar.setToken("fcm-1")
        server.assertNoneWithin(50)
        registrar.logIn(bob)
        val first = JSONObject(server.next().text).getJSONObject("readiness").getJSONArray("problems")
        assertEquals(listOf("notifications_disabled"), (0 until first.length()).map { first.getString(it) })
        idle()
        registrar.setReadiness(DeviceReadiness(listOf(ReadinessProblem.NOTIFICATIONS_DISABLED,
                                                      ReadinessProblem.BATTERY_OPTIMIZED)))
        val second = JSONObject(server.next().text).getJSONObject("readiness").getJSONArray("problems")
        assertEquals(listOf("battery_optimized", "notifications_disabled"),
                     (0 until second.length()).map { second.getString(it) })
        idle()
        registrar.setReadiness(DeviceReadiness(listOf(ReadinessProblem.NOTIFICATIONS_DISABLED,
                                                      ReadinessProblem.BATTERY_OPTIMIZED,
                                                      ReadinessProblem.NOTIFICATIONS_DISABLED)))
        server.assertNoneWithin(50)
        registrar.setReadiness(DeviceReadiness(emptyList()))
        val cleared = JSONObject(server.next().text).getJSONObject("readiness").getJSONArray("problems")
        assertEquals(0, cleared.length())
        idle()
        assertEquals(emptyList<String>(), registrar.status.registeredDevice?.readiness?.problems)
    }

    @Test
    fun transientFailuresAreRetriedAfterTheBackoffOnTheInjectedClock() {
        var failuresLeft = 2
        server.answer = { request ->
            if (failuresLeft > 0) {
                failuresLeft -= 1
                if (failuresLeft == 1) throw IOException("unreachable")
                HttpResponse(503, emptyMap(), ByteArray(0))
            } else {
                answer(request)
            }
        }
        registrar.setToken("fcm-1")
        registrar.logIn(bob)
        server.next()
        eventually("first wait") { clock.deadlines.size == 1 }
        // 1 s policy, random 0.5: 750 ms before the first retry, 1.5 s before the second.
        assertEquals(listOf(clock.now() + 750), clock.deadlines)
        server.assertNoneWithin(30)
        clock.advance(750)
        server.next()
        eventually("second wait") { clock.deadlines.size == 1 }
        clock.advance(1_500)
        server.next()
        idle()
        val retries = observations.filterIsInstance<PushTokenRegistrarObservation.Retrying>()
        assertEquals(listOf(1 to 750L, 2 to 1_500L), retries.map { it.attempt to it.delayMs })
        assertTrue(observations.last() is PushTokenRegistrarObservation.Registered)
    }

    @Test
    fun aChangeDuringTheBackoffWaitRetriesAtOnceWithTheNewState() {
        var fail = true
        server.answer = { request -> if (fail) HttpResponse(500, emptyMap(), ByteArray(0)) else answer(request) }
        registrar.setToken("fcm-1")
        registrar.logIn(bob)
        server.next()
        eventually("waiting") { clock.deadlines.size == 1 }
        fail = false
        registrar.setToken("fcm-2")
        assertEquals("fcm-2", JSONObject(server.next().text).getString("fcm_token"))
        idle()
        server.assertNoneWithin(50)
        assertEquals("fcm-2", registrar.status.registeredDevice?.fcmToken)
    }

    @Test
    fun aRefusedRegistrationIsNotRetriedUntilTheStateChanges() {
        server.answer = { request ->
            if (request.method == "PUT" && JSONObject(request.text).getString("fcm_token") == "bad") {
                HttpResponse(422, emptyMap(), ("{\"type\":\"https://ringer.dev/problems/invalid-field\"," +
                    "\"title\":\"Invalid field\",\"status\":422}").toByteArray())
            } else {
                answer(request)
            }
        }
        registrar.setToken("bad")
        registrar.logIn(bob)
        server.next()
        idle()
        assertTrue(observations.last() is PushTokenRegistrarObservation.Failed)
        clock.advance(600_000)
        server.assertNoneWithin(50)
        registrar.setToken("good")
        assertEquals("good", JSONObject(server.next().text).getString("fcm_token"))
    }

    @Test
    fun theStatusNeverShowsTheToken() {
        registrar.setToken("fcm-secret")
        assertFalse(registrar.status.toString().contains("fcm-secret"))
    }
}
