package dev.ringer.e2e

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.ClassRule
import org.junit.Rule
import org.junit.Test
import dev.ringer.lab.PlayServices
import dev.ringer.lab.Receipt

/**
 * The harness alone, no SDK: a real `ringer serve` sends FCM data messages through a real `ringer-lab sandbox` to
 * a phone's Play services socket. The callee's device is registered over plain HTTP.
 */
class FcmDeliveryTest {
    @get:Rule
    val printLogs = PrintLogsOnFailure { cluster }

    @Test
    fun aRingingCallReachesTheAndroidPhoneAsAHighPriorityDataMessageAndItsCancelFollows() {
        val admin = Admin(cluster!!)
        val alice = admin.newUser("alice", "Alice")
        val bob = admin.newUser("bob", "Bob")
        PlayServices(cluster!!.fcmSandbox).use { phone ->
            phone.app = { message -> if (message.ringerType == "call.incoming" || message.ringerType == "call.cancelled") Receipt.USER_VISIBLE else Receipt.SILENT }
            phone.register().connect()
            bob.registerAndroidDevice("bob-pixel", phone.fcmToken)

            val call = alice.placeCall(bob.userId)
            assertEquals("ringing", call.getString("state"))
            val callId = call.getString("call_id")

            val ringing = phone.awaitDelivered(what = "the ringing message") { it.ringerType == "call.incoming" }
            val ringer = ringing.ringer
            assertEquals(callId, ringer.getString("call_id"))
            assertEquals(1, ringer.getInt("v"))
            assertEquals(alice.userId, ringer.getJSONObject("caller").getString("id"))
            assertEquals("Alice", ringer.getJSONObject("caller").getString("name"))
            assertEquals(bob.userId, ringer.getString("callee_id"))
            assertTrue("expires_at after sent_at: $ringer", ringer.getLong("expires_at") > ringer.getLong("sent_at"))
            assertEquals("HIGH", ringing.priority)
            assertEquals(callId, ringing.frame.getString("collapse_key"))
            assertEquals(null, ringing.notification)

            alice.cancel(callId)
            val cancelled = phone.awaitDelivered(what = "the cancel") { it.ringerType == "call.cancelled" }
            assertEquals(callId, cancelled.ringer.getString("call_id"))
            assertEquals("HIGH", cancelled.priority)

            // The server recorded both as accepted by FCM for this device.
            val fcm = bob.awaitPushes(callId, provider = "fcm", count = 2)
            assertEquals("two FCM pushes for the call: $fcm", 2, fcm.size)
            assertTrue(fcm.all { it.getString("device_id") == "bob-pixel" })
            assertEquals(alice.userId, bob.getCall(callId).getJSONObject("caller").getString("id"))
            assertTrue("no error frames: ${phone.errors()}", phone.errors().isEmpty())
        }
    }

    companion object {
        @ClassRule @JvmField val shared = SharedCluster()
        private val cluster: RingerCluster? get() = shared.current
    }
}
