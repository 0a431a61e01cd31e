package dev.ringer.e2e

import android.telecom.Connection
import android.telecom.DisconnectCause
import dev.ringer.kit.CallCoordinator.Observation
import dev.ringer.kit.CallEndReason
import dev.ringer.kit.EventStream
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.ClassRule
import org.junit.Rule
import org.junit.Test

/** Ring-out with the Kotlin SDK as the callee: a server with a 3 s `--ring-timeout`, and nobody answers. */
class AndroidRingOutTest {
    @get:Rule val printLogs = PrintLogsOnFailure { cluster }

    @Test
    fun aCallNobodyAnswersStopsRingingAsMissedWhenTheServerGivesUp() {
        val admin = Admin(cluster!!)
        val alice = admin.newUser("alice", "Alice")
        val bobId = "bob-${RingerCluster.randomHex(4)}"
        val bobToken = admin.mintToken(bobId, "Bob")
        SimulatedAndroidPhone(cluster!!, bobId, bobToken).use { phone ->
            phone.awaitRegistered(HttpUser(cluster!!, bobId, bobToken))
            phone.awaitStatus("connected") { it == EventStream.Status.Connected }
            phone.kill()
            val callId = alice.placeCall(bobId).getString("call_id")
            val app = SimulatedAndroidPhone.poll(8_000) { phone.running } ?: throw AssertionError("the message started no process")
            app.awaitState(callId, Connection.STATE_RINGING)
            val connection = app.awaitState(callId, Connection.STATE_DISCONNECTED, timeoutMs = 10_000)
            assertEquals(DisconnectCause.MISSED, connection.disconnectCause.code)
            assertEquals("unanswered", alice.awaitCallState(callId, "unanswered").getString("state"))
            phone.awaitObservation("the missed end") {
                it is Observation.Ended && it.callId == callId && it.reason == CallEndReason.UNANSWERED
            }
            assertTrue(phone.crashes.isEmpty())
        }
    }

    companion object {
        @ClassRule @JvmField val shared = SharedCluster(ringTimeoutSeconds = 3)
        private val cluster: RingerCluster? get() = shared.current
    }
}
