package dev.ringer.e2e

import android.telecom.Connection
import android.telecom.DisconnectCause
import dev.ringer.kit.CallCoordinator.Observation
import dev.ringer.kit.DataMessageOutcome
import dev.ringer.kit.EventStream
import dev.ringer.kit.PushDisposition
import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.ClassRule
import org.junit.Rule
import org.junit.Test
import dev.ringer.lab.PlayServices
import dev.ringer.lab.Receipt

/**
 * The ringing matrix with the Kotlin SDK as the Android callee, end to end: real `ringer serve` and
 * `ringer-lab sandbox` processes, FCM over the sandbox's socket to [SimulatedAndroidPhone], the SDK's real classes in
 * the app's process. Each test has its own users, so they share one cluster.
 */
class AndroidCalleeTest {
    @get:Rule val printLogs = PrintLogsOnFailure { cluster }

    private val admin get() = Admin(cluster!!)

    private fun scene(running: Boolean = false) = CalleeScene.start(cluster!!, running)


    @Test
    fun theFcmTokenIsRegisteredOnlyAfterLoginWithTheAppsReadiness() {
        val bobId = "bob-${RingerCluster.randomHex(4)}"
        val bobToken = admin.mintToken(bobId, "Bob")
        SimulatedAndroidPhone(cluster!!, bobId, userToken = null).use { phone ->
            val app = phone.launch()
            val bob = HttpUser(cluster!!, bobId, bobToken)
            Thread.sleep(300)
            assertEquals("nothing registered before login", 0, bob.devices().length())

            app.phone.logIn(bobToken)
            val device = phone.awaitRegistered(bob)
            assertEquals("android", device.getString("platform"))
            // The mirror phone's battery optimisation is on: the server hears it with the registration.
            val problems = device.getJSONObject("readiness").getJSONArray("problems")
            assertEquals("[\"battery_optimized\"]", problems.toString())

            app.phone.logOut()
            SimulatedAndroidPhone.poll(8_000) { if (bob.devices().length() == 0) true else null }
                ?: throw AssertionError("logout left the device registered: ${bob.devices()}")
        }
    }

    @Test
    fun aKilledAppIsWokenByTheHighPriorityMessageAndItsConnectionServiceRings() {
        scene().use { s ->
            assertEquals(null, s.phone.running)
            val callId = s.alice.placeCall(s.bobUserId).getString("call_id")
            val app = SimulatedAndroidPhone.poll(8_000) { s.phone.running } ?: throw AssertionError("the message started no process")
            val connection = app.awaitState(callId, Connection.STATE_RINGING)
            assertEquals("Alice", connection.callerDisplayName)
            assertEquals(2, s.phone.processStarts.get())
            s.phone.play.awaitDelivered(what = "the ringing message") { it.ringerType == "call.incoming" }
            assertTrue("the ringing notification is posted", app.context.notificationManager.mirrorShowing.keys.any { it.startsWith(callId) })
            s.phone.awaitObservation("the push reported ringing") {
                it is Observation.PushReported && it.callId == callId && it.disposition == PushDisposition.RINGING
            }
            // The server heard the phone ring.
            SimulatedAndroidPhone.poll(8_000) {
                val pushes = s.bob.pushes(callId)
                (0 until pushes.length()).map { pushes.getJSONObject(it) }.firstOrNull { it.optString("provider") == "fcm" }
            } ?: throw AssertionError("no FCM push recorded")
            assertTrue(s.phone.crashes.isEmpty())
        }
    }

    @Test
    fun answerGoesActiveOnlyAfterTheServerAcceptedAndGivesAMediaToken() {
        scene().use { s ->
            val callId = s.alice.placeCall(s.bobUserId).getString("call_id")
            val app = SimulatedAndroidPhone.poll(8_000) { s.phone.running }!!
            val connection = app.awaitState(callId, Connection.STATE_RINGING)
            app.answer(callId)
            app.awaitState(callId, Connection.STATE_ACTIVE)
            val accepted = s.alice.awaitCallState(callId, "accepted")
            assertEquals(app.phone.deviceId, accepted.getString("accepted_device_id"))
            assertEquals(listOf(Connection.STATE_RINGING, Connection.STATE_ACTIVE), connection.mirrorStates)
            val answered = s.phone.awaitObservation("the answer") { it is Observation.Answered && it.callId == callId } as Observation.Answered
            assertEquals("a LiveKit-style JWT", 3, answered.media.token.split('.').size)
            s.phone.awaitObservation("media start") { it is Observation.MediaCanStart && it.callId == callId }
            assertTrue("the call holds its foreground service", app.context.started.isNotEmpty())
        }
    }

    @Test
    fun aDeclineFromTheKilledAppReachesTheCaller() {
        scene().use { s ->
            val callId = s.alice.placeCall(s.bobUserId).getString("call_id")
            val app = SimulatedAndroidPhone.poll(8_000) { s.phone.running }!!
            app.awaitState(callId, Connection.STATE_RINGING)
            app.decline(callId)
            s.alice.awaitCallState(callId, "declined")
            assertEquals(DisconnectCause.REJECTED, app.connection(callId).disconnectCause.code)
        }
    }

    @Test
    fun anAnswerOnTheCalleesOtherDeviceStopsThisPhoneAsAnsweredElsewhere() {
        scene(running = true).use { s ->
            PlayServices(cluster!!.fcmSandbox).use { tablet ->
                tablet.app = { Receipt.SILENT }
                tablet.register().connect()
                s.bob.registerAndroidDevice("bob-tablet", tablet.fcmToken)
                val callId = s.alice.placeCall(s.bobUserId).getString("call_id")
                val app = s.phone.running!!
                app.awaitState(callId, Connection.STATE_RINGING)
                assertEquals(200, s.bob.accept(callId, "bob-tablet").status)
                app.awaitState(callId, Connection.STATE_DISCONNECTED)
                assertEquals(DisconnectCause.ANSWERED_ELSEWHERE, app.connection(callId).disconnectCause.code)
                assertEquals("bob-tablet", s.alice.getCall(callId).getString("accepted_device_id"))
            }
        }
    }

    @Test
    fun aCancelWhileTheRingingMessageIsInFlightLeavesNothingRinging() {
        scene().use { s ->
            s.phone.play.holdDeliveries()
            val callId = s.alice.placeCall(s.bobUserId).getString("call_id")
            s.phone.play.awaitReceived(what = "the ringing message") { it.ringerType == "call.incoming" }
            s.alice.cancel(callId)
            s.phone.play.releaseDeliveries()
            s.phone.play.awaitDelivered(what = "the held ringing message") { it.ringerType == "call.incoming" }
            val app = s.phone.running!!
            // Whether or not it rang for a moment, nothing may be left ringing once the phone learnt of the cancel.
            SimulatedAndroidPhone.poll(8_000) {
                if (app.connections.values.all { it.state == Connection.STATE_DISCONNECTED }) true else null
            } ?: throw AssertionError("a cancelled call is still ringing: ${s.phone.screen}")
            assertEquals("cancelled", s.alice.getCall(callId).getString("state"))
            assertTrue(s.phone.crashes.isEmpty())
        }
    }

    @Test
    fun aDeclineTheServerNeverHeardIsKeptAcrossProcessDeathAndSentAfterRelaunch() {
        scene(running = true).use { s ->
            val callId = s.ringingCall()
            val app = s.app()
            cluster!!.stopServer()
            try {
                app.decline(callId)
                assertEquals(DisconnectCause.REJECTED, app.connection(callId).disconnectCause.code)
                Thread.sleep(500)   // the first sends fail: the server is down
                s.phone.kill()
            } finally {
                cluster!!.restartServer()
            }
            assertEquals("ringing", s.alice.getCall(callId).getString("state"))
            s.phone.launch()   // the user opens the app: it logs in with its stored token
            s.alice.awaitCallState(callId, "declined")
        }
    }

    @Test
    fun aNetworkLossMidCallReportsLostThenRestoredAndTheCallSurvives() {
        scene(running = true).use { s ->
            val callId = s.answeredCall()
            val app = s.app()
            cluster!!.stopServer()
            try {
                s.phone.awaitStatus("lost") { it is EventStream.Status.Lost }
            } finally {
                cluster!!.restartServer()
            }
            s.phone.awaitStatus("restored", timeoutMs = 15_000) { it == EventStream.Status.Restored }
            assertEquals(Connection.STATE_ACTIVE, app.connection(callId).state)
            assertEquals("accepted", s.alice.getCall(callId).getString("state"))
        }
    }

    @Test
    fun anAnsweredCallSurvivesBackgroundingBecauseItsForegroundServiceKeepsTheProcessAndItsSocket() {
        scene(running = true).use { s ->
            val callId = s.answeredCall()
            val app = s.app()
            val statusesBefore = s.phone.statuses.size
            s.phone.moveToBackground()
            assertTrue("the foreground service kept the process", s.phone.running === app)
            // The caller hangs up: the end reaches the backgrounded app over its kept socket.
            s.alice.end(callId)
            val connection = app.awaitState(callId, Connection.STATE_DISCONNECTED)
            assertEquals(DisconnectCause.REMOTE, connection.disconnectCause.code)
            assertEquals("the socket never dropped", statusesBefore, s.phone.statuses.size)
            assertTrue("the last call's end stops the foreground service", !app.context.foregroundServiceRunning)
            s.phone.moveToBackground()
            assertEquals("without a call the app is frozen", null, s.phone.running)
        }
    }

    @Test
    fun badDataMessagesNeverCrashAndNeverLeaveACallRinging() {
        scene(running = true).use { s ->
            val app = s.phone.running!!
            val now = System.currentTimeMillis()
            fun ringing(callId: String, calleeId: String, sentAt: Long, expiresAt: Long) = mapOf("ringer" to
                "{\"v\":1,\"type\":\"call.incoming\",\"call_id\":\"$callId\",\"caller\":{\"id\":\"mallory\"},\"callee_id\":\"$calleeId\"," +
                "\"has_video\":false,\"sent_at\":$sentAt,\"expires_at\":$expiresAt}")
            // A real call, declined, whose ringing message comes again later.
            val over = s.alice.placeCall(s.bobUserId).getString("call_id")
            app.awaitState(over, Connection.STATE_RINGING)
            app.decline(over)
            s.alice.awaitCallState(over, "declined")
            val cases = listOf(
                "the app's own message" to mapOf("chat" to "hello"),
                "not JSON" to mapOf("ringer" to "{\"v\":1,\"type\":\"call.incom"),
                "a JSON array" to mapOf("ringer" to "[1,2]"),
                "no call id" to mapOf("ringer" to "{\"v\":1,\"type\":\"call.incoming\"}"),
                "expired" to ringing("9f0c2a9e-0000-4000-8000-00000000000a", s.bobUserId, now - 120_000, now - 60_000),
                "for another user" to ringing("9f0c2a9e-0000-4000-8000-00000000000b", "carol", now, now + 30_000),
                "for a call already over" to ringing(over, s.bobUserId, now, now + 30_000)
            )
            val before = app.context.telecom.mirrorIncomingExtras.size
            for ((what, data) in cases) {
                val outcome = app.phone.handleDataMessage(data)
                assertTrue("$what: $outcome", outcome !is DataMessageOutcome.Call || outcome.disposition != PushDisposition.RINGING)
            }
            assertEquals("nothing reported to Telecom", before, app.context.telecom.mirrorIncomingExtras.size)
            assertTrue(app.connections.values.all { it.state == Connection.STATE_DISCONNECTED })
            assertTrue(s.phone.crashes.isEmpty())
        }
    }

    companion object {
        @ClassRule @JvmField val shared = SharedCluster()
        private val cluster: RingerCluster? get() = shared.current
    }
}
