package dev.ringer.android

import android.content.Intent
import android.telecom.DisconnectCause
import com.google.firebase.messaging.RemoteMessage
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * The components Android creates itself, RingerMessagingService and RingerActionReceiver: they hand over to the
 * process's adapters at once, and do nothing (never crash) when the façade is not there.
 */
class EntryPointsTest {
    @After fun forgetComponents() {
        RingerComponents.callUi = null
        RingerComponents.pushHandler = null
    }

    private class RecordingPushHandler : PushHandler {
        val log = ArrayList<String>()
        override fun dataMessageReceived(data: Map<String, String>) { log.add("data ${data.toSortedMap()}") }
        override fun tokenChanged(token: String) { log.add("token $token") }
    }

    private fun message(data: Map<String, String>): RemoteMessage =
        RemoteMessage.Builder("ringer@fcm.googleapis.com").setData(data).build()

    @Test
    fun dataMessagesAndNewTokensGoToThePushHandlerAsTheyArrive() {
        val handler = RecordingPushHandler()
        RingerComponents.pushHandler = handler
        val service = RingerMessagingService()
        service.onMessageReceived(message(mapOf("ringer" to "{}", "app" to "x")))
        service.onNewToken("token-2")
        assertEquals(listOf("data {app=x, ringer={}}", "token token-2"), handler.log)
    }

    @Test
    fun aMessageBeforeTheFacadeExistsIsDroppedWithoutACrash() {
        assertNull(RingerComponents.pushHandler)
        RingerMessagingService().onMessageReceived(message(mapOf("ringer" to "{}")))
        RingerMessagingService().onNewToken("token")
    }

    @Test
    fun theDeclineActionDeclinesAndKeepsTheBroadcastAliveUntilTheCoreAnswered() {
        val rig = TelecomRig()
        val connection = rig.ringing("c1")
        val receiver = RingerActionReceiver()
        receiver.onReceive(rig.phone, Intent(RingerIntents.ACTION_DECLINE).putExtra(RingerIntents.EXTRA_CALL_ID, "c1"))
        assertEquals(DisconnectCause.REJECTED, connection.disconnectCause.code)
        assertEquals(listOf("end c1"), rig.actions.log)
        val pending = receiver.mirrorPendingResult()!!
        assertFalse("held while the decline is on its way", pending.mirrorFinished())
        rig.actions.ends.getValue("c1")(true)
        assertTrue(pending.mirrorFinished())
    }

    @Test
    fun theHangUpActionEndsTheCallAsLocal() {
        val rig = TelecomRig()
        val connection = rig.ringing("c1")
        connection.onAnswer()
        rig.actions.answers.getValue("c1")(true)
        val receiver = RingerActionReceiver()
        receiver.onReceive(rig.phone, Intent(RingerIntents.ACTION_HANG_UP).putExtra(RingerIntents.EXTRA_CALL_ID, "c1"))
        assertEquals(DisconnectCause.LOCAL, connection.disconnectCause.code)
        rig.actions.ends.getValue("c1")(false)
        assertTrue("finished even when the core could not reach the server", receiver.mirrorPendingResult()!!.mirrorFinished())
    }

    @Test
    fun anUnknownCallAnUnknownActionOrNoFacadeDoNothing() {
        val rig = TelecomRig()
        val connection = rig.ringing("c1")
        val receiver = RingerActionReceiver()
        receiver.onReceive(rig.phone, Intent(RingerIntents.ACTION_DECLINE))
        receiver.onReceive(rig.phone, Intent("com.example.OTHER").putExtra(RingerIntents.EXTRA_CALL_ID, "c1"))
        assertNull("no broadcast held for nothing", receiver.mirrorPendingResult())
        val forUnknown = RingerActionReceiver()
        forUnknown.onReceive(rig.phone, Intent(RingerIntents.ACTION_DECLINE).putExtra(RingerIntents.EXTRA_CALL_ID, "nope"))
        assertTrue("an unknown call finishes at once", forUnknown.mirrorPendingResult()!!.mirrorFinished())
        RingerComponents.callUi = null
        RingerActionReceiver().onReceive(rig.phone, Intent(RingerIntents.ACTION_DECLINE).putExtra(RingerIntents.EXTRA_CALL_ID, "c1"))
        assertTrue(rig.actions.log.isEmpty())
        assertEquals(android.telecom.Connection.STATE_RINGING, connection.state)
    }
}
