package dev.ringer.e2e

import android.telecom.Connection
import com.google.firebase.messaging.RemoteMessage
import dev.ringer.android.RingerMessagingService
import dev.ringer.kit.CallCoordinator.Observation
import dev.ringer.kit.EventStream
import org.json.JSONArray
import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.ClassRule
import org.junit.Rule
import org.junit.Test
import dev.ringer.lab.PlayServices
import dev.ringer.lab.Receipt

/**
 * The Android callee's side of FCM delivery, end to end on real `ringer serve` and `ringer-lab sandbox` processes:
 * what the phone acks to FCM, messages that come twice or late or are not a call at all (each to a killed app,
 * which Android starts for it), token rotation, and an answer the network holds back. Complements
 * [AndroidCalleeTest]; each test has its own users, so they share one cluster.
 */
class AndroidCalleeDeliveryTest {
    @get:Rule val printLogs = PrintLogsOnFailure { cluster }

    private val admin get() = Admin(cluster!!)

    private fun scene(running: Boolean = false) = CalleeScene.start(cluster!!, running)


    /** The FCM sandbox's record of every message sent to [token] (`GET /sandbox/messages`), oldest first. */
    private fun sandboxMessages(token: String): List<JSONObject> {
        val answer = PlainHttp.send(sandboxClient, "GET", "${cluster!!.fcmSandboxUrl}/sandbox/messages", null, null)
        assertEquals("GET /sandbox/messages: $answer", 200, answer.status)
        val all = JSONArray(answer.body)
        return (0 until all.length()).map { all.getJSONObject(it) }.filter { it.optString("token") == token }
    }

    /** Waits until the sandbox holds a receipt for [token]'s message of Ringer type [type] for [callId]. */
    private fun awaitReceipt(token: String, callId: String, type: String): JSONObject =
        SimulatedAndroidPhone.poll(8_000) {
            sandboxMessages(token).firstOrNull { message ->
                val ringer = message.optJSONObject("data")?.optString("ringer")?.let { JSONObject(it) }
                ringer?.optString("type") == type && ringer.optString("call_id") == callId && message.has("receipt")
            }
        } ?: throw AssertionError("no receipt for $type of $callId: ${sandboxMessages(token)}")

    @Test
    fun theRingingMessageThatWakesAKilledAppIsAckedUserVisibleToFcm() {
        scene().use { s ->
            val callId = s.alice.placeCall(s.bobUserId).getString("call_id")
            val app = SimulatedAndroidPhone.poll(8_000) { s.phone.running } ?: throw AssertionError("the message started no process")
            app.awaitState(callId, Connection.STATE_RINGING)
            val ringing = awaitReceipt(s.phone.play.fcmToken, callId, "call.incoming")
            assertEquals("userVisible", ringing.getString("receipt"))
            // What the server asked for; the delivered `priority` may be NORMAL once FCM demoted the app.
            assertEquals("HIGH", ringing.getString("requested_priority"))
            assertTrue(s.phone.crashes.isEmpty())
        }
    }

    @Test
    fun anAnswerStaysRingingUntilTheServerConfirmsItThenGoesActive() {
        scene(running = true).use { s ->
            val callId = s.ringingCall()
            val app = s.app()
            val connection = app.connection(callId)
            try {
                s.answerWithAcceptHeld(callId)
                Thread.sleep(400)
                assertEquals("not active before the server confirmed", Connection.STATE_RINGING, connection.state)
                assertEquals("ringing", s.alice.getCall(callId).getString("state"))
                assertFalse(s.phone.observations.any { it is Observation.Answered })
            } finally {
                s.phone.network.release()
            }
            app.awaitState(callId, Connection.STATE_ACTIVE)
            assertEquals(app.phone.deviceId, s.alice.awaitCallState(callId, "accepted").getString("accepted_device_id"))
            assertEquals(listOf(Connection.STATE_RINGING, Connection.STATE_ACTIVE), connection.mirrorStates)
            s.phone.awaitObservation("the answer") { it is Observation.Answered && it.callId == callId }
        }
    }

    @Test
    fun anAnswerThatLosesTheRaceWithTheCallersCancelNeverGoesActive() {
        scene(running = true).use { s ->
            val callId = s.ringingCall()
            val app = s.app()
            val connection = app.connection(callId)
            try {
                s.answerWithAcceptHeld(callId)
                s.alice.cancel(callId)
            } finally {
                s.phone.network.release()
            }
            app.awaitState(callId, Connection.STATE_DISCONNECTED)
            assertFalse("went active for a cancelled call: ${connection.mirrorStates}",
                        connection.mirrorStates.contains(Connection.STATE_ACTIVE))
            assertEquals("cancelled", s.alice.getCall(callId).getString("state"))
            assertFalse(s.phone.observations.any { it is Observation.Answered && it.callId == callId })
            assertTrue(s.phone.crashes.isEmpty())
        }
    }

    @Test
    fun anAnswerWhoseFirstAcceptsAreLostOnTheNetworkIsRetriedAndGoesActive() {
        scene(running = true).use { s ->
            val callId = s.ringingCall()
            val app = s.app()
            val connection = app.connection(callId)
            s.phone.network.lose(2) { method, url -> method == "POST" && url.endsWith("/v1/calls/$callId/accept") }
            app.answer(callId)
            app.awaitState(callId, Connection.STATE_ACTIVE)
            assertEquals(2, s.phone.network.lost.size)
            assertEquals(app.phone.deviceId, s.alice.awaitCallState(callId, "accepted").getString("accepted_device_id"))
            assertEquals(listOf(Connection.STATE_RINGING, Connection.STATE_ACTIVE), connection.mirrorStates)
        }
    }

    @Test
    fun aRingingMessageThatArrivesAfterLogoutShowsNothing() {
        scene(running = true).use { s ->
            val app = s.phone.running!!
            s.phone.play.holdDeliveries()
            val callId = s.alice.placeCall(s.bobUserId).getString("call_id")
            val ringing = s.phone.play.awaitReceived(what = "the ringing message") { it.ringerType == "call.incoming" }
            // The socket may have rung it already: the user logs out while it rings.
            app.phone.logOut()
            s.phone.userToken = null
            SimulatedAndroidPhone.poll(8_000) { if (s.bob.devices().length() == 0) true else null }
                ?: throw AssertionError("logout left the device registered: ${s.bob.devices()}")
            val rangBefore = s.phone.screen.count { it.startsWith("rang ") }
            s.phone.play.releaseDeliveries()
            s.phone.play.awaitDelivered(what = "the held ringing message") { it.name == ringing.name }
            assertEquals("logout left the call ringing: ${s.phone.screen}", Connection.STATE_DISCONNECTED,
                         app.connections[callId]?.state ?: Connection.STATE_DISCONNECTED)
            s.phone.kill()
            assertEquals("a logged-out killed app rings nothing", Receipt.SILENT, s.phone.receive(ringing.data))
            assertEquals(rangBefore, s.phone.screen.count { it.startsWith("rang ") })
            assertEquals(0, s.phone.running!!.context.telecom.mirrorIncomingExtras.size)
            assertTrue(s.phone.crashes.isEmpty())
        }
    }

    @Test
    fun aRingingMessageDeliveredTwiceRingsOnceAndNeverDisturbsTheAnsweredCall() {
        scene(running = true).use { s ->
            val callId = s.ringingCall()
            val app = s.app()
            val ringing = s.phone.play.awaitDelivered(what = "the ringing message") { it.ringerType == "call.incoming" }
            val reports = app.context.telecom.mirrorIncomingExtras.size

            assertEquals("a repeat shows nothing new", Receipt.SILENT, s.phone.receive(ringing.data))
            assertEquals("reported to Telecom once", reports, app.context.telecom.mirrorIncomingExtras.size)
            assertEquals(Connection.STATE_RINGING, app.connection(callId).state)

            app.answer(callId)
            app.awaitState(callId, Connection.STATE_ACTIVE)
            s.alice.awaitCallState(callId, "accepted")
            assertEquals(Receipt.SILENT, s.phone.receive(ringing.data))
            Thread.sleep(300)
            assertEquals(Connection.STATE_ACTIVE, app.connection(callId).state)
            assertEquals(reports, app.context.telecom.mirrorIncomingExtras.size)
            assertEquals("accepted", s.alice.getCall(callId).getString("state"))
            assertTrue(s.phone.crashes.isEmpty())
        }
    }

    @Test
    fun aLateRingingMessageForACallAlreadyOverWakesTheKilledAppAndLeavesNothingRinging() {
        scene().use { s ->
            val callId = s.alice.placeCall(s.bobUserId).getString("call_id")
            val first = SimulatedAndroidPhone.poll(8_000) { s.phone.running } ?: throw AssertionError("the message started no process")
            first.awaitState(callId, Connection.STATE_RINGING)
            val ringing = s.phone.play.awaitDelivered(what = "the ringing message") { it.ringerType == "call.incoming" }
            s.alice.cancel(callId)
            first.awaitState(callId, Connection.STATE_DISCONNECTED)
            s.phone.kill()

            // FCM delivers the ringing message again (a retry after a lost ack) to the killed app.
            s.phone.receive(ringing.data)
            val second = s.phone.running!!
            assertTrue("a new process", second !== first)
            SimulatedAndroidPhone.poll(8_000) {
                if (second.connections.values.all { it.state == Connection.STATE_DISCONNECTED }) true else null
            } ?: throw AssertionError("a call that is over still rings: ${s.phone.screen}")
            assertEquals("cancelled", s.alice.getCall(callId).getString("state"))
            assertTrue(s.phone.crashes.isEmpty())
        }
    }

    @Test
    fun badDataMessagesToAKilledAppNeverCrashAndRingNothing() {
        scene().use { s ->
            val now = System.currentTimeMillis()
            fun ringer(json: String) = mapOf("ringer" to json)
            fun ringing(callId: String, calleeId: String, sentAt: Long, expiresAt: Long) = ringer(
                "{\"v\":1,\"type\":\"call.incoming\",\"call_id\":\"$callId\",\"caller\":{\"id\":\"mallory\",\"name\":\"Mallory\"}," +
                "\"callee_id\":\"$calleeId\",\"has_video\":false,\"sent_at\":$sentAt,\"expires_at\":$expiresAt}")
            val cases = listOf(
                "empty" to emptyMap(),
                "the app's own message" to mapOf("chat" to "hello"),
                "truncated JSON" to ringer("{\"v\":1,\"type\":\"call.incoming\",\"call_id\":\"9f0c"),
                "a JSON array" to ringer("[1,2]"),
                "a JSON string" to ringer("\"call.incoming\""),
                "no call id" to ringer("{\"v\":1,\"type\":\"call.incoming\"}"),
                "an unknown type" to ringer("{\"v\":1,\"type\":\"call.teleported\",\"call_id\":\"9f0c2a9e-0000-4000-8000-00000000000c\"}"),
                "a cancel for a call never seen" to ringer("{\"v\":1,\"type\":\"call.cancelled\",\"call_id\":\"9f0c2a9e-0000-4000-8000-00000000000d\"}"),
                "expired" to ringing("9f0c2a9e-0000-4000-8000-00000000000a", s.bobUserId, now - 120_000, now - 60_000),
                "for another user" to ringing("9f0c2a9e-0000-4000-8000-00000000000b", "carol", now, now + 30_000)
            )
            for ((what, data) in cases) {
                assertEquals("$what: the app is killed", null, s.phone.running)
                assertEquals(what, Receipt.SILENT, s.phone.receive(data))
                val app = s.phone.running!!
                assertEquals("$what: nothing reported to Telecom", 0, app.context.telecom.mirrorIncomingExtras.size)
                assertTrue("$what: ${s.phone.crashes}", s.phone.crashes.isEmpty())
                s.phone.kill()
            }
            assertTrue("nothing rang: ${s.phone.screen}", s.phone.screen.isEmpty())
            // Straight to the service too, as Android would call it before any RingerPhone existed.
            RingerMessagingService().onMessageReceived(RemoteMessage.Builder("x@fcm.googleapis.com").setData(cases[2].second).build())
        }
    }

    @Test
    fun aRotatedFcmTokenFromOnNewTokenReplacesTheRegistrationAndCallsReachIt() {
        scene(running = true).use { s ->
            val app = s.phone.running!!
            PlayServices(cluster!!.fcmSandbox).use { rotated ->
                // The same app behind the new token: it rings (a silent ack would count as FCM misuse).
                rotated.app = { message -> if (message.ringerType == "call.incoming") Receipt.USER_VISIBLE else Receipt.SILENT }
                rotated.register().connect()
                RingerMessagingService().onNewToken(rotated.fcmToken)
                val device = SimulatedAndroidPhone.poll(8_000) {
                    val devices = s.bob.devices()
                    if (devices.length() == 1 && devices.getJSONObject(0).optString("fcm_token") == rotated.fcmToken) devices.getJSONObject(0) else null
                } ?: throw AssertionError("the rotated token never replaced the old one: ${s.bob.devices()}")
                assertEquals(app.phone.deviceId, device.getString("device_id"))
                val callId = s.alice.placeCall(s.bobUserId).getString("call_id")
                val ringing = rotated.awaitDelivered(what = "the ringing message at the new token") { it.ringerType == "call.incoming" }
                assertEquals(callId, ringing.ringer.getString("call_id"))
            }
        }
    }

    companion object {
        @ClassRule @JvmField val shared = SharedCluster()
        private val cluster: RingerCluster? get() = shared.current
        private val sandboxClient by lazy { PlayServices.sandboxClient(cluster!!.caFile) }
    }
}
