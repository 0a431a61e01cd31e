package dev.ringer.e2e

import android.telecom.Connection
import android.telecom.DisconnectCause
import dev.ringer.kit.CallCoordinator.Observation
import dev.ringer.kit.CallEndReason
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.ClassRule
import org.junit.Rule
import org.junit.Test
import java.io.File

/**
 * Issue 27, item 1, end to end with the Kotlin SDK as the callee: Bob's network drops just as he answers. Real
 * `ringer serve` and `ringer-lab sandbox` processes with a 10 s `--ring-timeout`; [SimulatedAndroidPhone.networkDown]
 * fails the app's requests at once, drops its event stream and takes Play services offline.
 */
class AndroidAnswerOutageTest {
    @get:Rule val printLogs = PrintLogsOnFailure { cluster }

    /**
     * Four seconds, so the accept also outlives the retries the SDK once gave an answer (five attempts within
     * 1.9–3.75 s, then the call closed as ended remotely while the server kept ringing).
     */
    @Test
    fun anAnswerGivenAsTheNetworkDropsForAFewSecondsConnectsWhenItReturns() {
        CalleeScene.start(cluster!!, running = true).use { s ->
            val callId = s.ringingCall()
            val app = s.app()
            s.phone.networkDown()
            app.answer(callId)
            Thread.sleep(4_000)
            assertEquals("still ringing while the accept waits for the network", Connection.STATE_RINGING, app.connection(callId).state)
            assertEquals("ringing", s.alice.getCall(callId).getString("state"))
            s.phone.networkUp()
            // The answer's retries wait at most 2 s: it connects soon after the network is back.
            val connection = app.awaitState(callId, Connection.STATE_ACTIVE, timeoutMs = 5_000)
            assertEquals(app.phone.deviceId, s.alice.awaitCallState(callId, "accepted").getString("accepted_device_id"))
            assertEquals(listOf(Connection.STATE_RINGING, Connection.STATE_ACTIVE), connection.mirrorStates)
            s.phone.awaitObservation("the answer") { it is Observation.Answered && it.callId == callId }
            assertTrue(s.phone.observations.none { it is Observation.Ended && it.callId == callId })
            assertTrue(s.phone.crashes.isEmpty())
        }
    }

    /**
     * The network stays down past the ring deadline: the phone ends the call as `answer_not_delivered` (Telecom's
     * `ERROR`, "answer not delivered") instead of pretending the caller hung up, the server ends it unanswered, and
     * the decline stored for the case the accept had landed goes out once the network is back and is dropped when
     * the server says the call is over.
     */
    @Test
    fun anAnswerTheNetworkNeverLetsThroughEndsAnswerNotDeliveredAtTheRingDeadline() {
        CalleeScene.start(cluster!!, running = true).use { s ->
            val callId = s.ringingCall()
            val app = s.app()
            s.phone.networkDown()
            app.answer(callId)
            val connection = app.awaitState(callId, Connection.STATE_DISCONNECTED, timeoutMs = 20_000)
            assertEquals(DisconnectCause.ERROR, connection.disconnectCause.code)
            assertEquals("answer not delivered", connection.disconnectCause.reason)
            assertTrue("never active", !connection.mirrorStates.contains(Connection.STATE_ACTIVE))
            s.phone.awaitObservation("the end as not delivered") {
                it is Observation.Ended && it.callId == callId && it.reason == CallEndReason.ANSWER_NOT_DELIVERED
            }
            assertEquals("unanswered", s.alice.awaitCallState(callId, "unanswered").getString("state"))

            val pending = File(s.phone.storage, "ringer/pending-call-actions.json")
            assertTrue("the decline waits for the network: ${pending.readText()}", pending.readText().contains(callId))
            s.phone.networkUp()
            SimulatedAndroidPhone.poll(15_000) { if (!pending.readText().contains(callId)) true else null }
                ?: throw AssertionError("the decline was never answered: ${pending.readText()}")
            assertEquals("unanswered", s.alice.getCall(callId).getString("state"))
            assertTrue(s.phone.crashes.isEmpty())
        }
    }

    companion object {
        @ClassRule @JvmField val shared = SharedCluster(ringTimeoutSeconds = 10)
        private val cluster: RingerCluster? get() = shared.current
    }
}
