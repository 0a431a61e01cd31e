package dev.ringer.android

import android.content.Intent
import android.telecom.Connection
import android.telecom.DisconnectCause
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

class RingerActionReceiverTest {
    @After fun forgetComponents() { RingerComponents.callUi = null }

    private fun intent(rig: TelecomRig, action: String?, callId: String?): Intent {
        val intent = Intent(rig.phone, RingerActionReceiver::class.java)
        if (action != null) intent.setAction(action)
        if (callId != null) intent.putExtra(RingerIntents.EXTRA_CALL_ID, callId)
        return intent
    }

    @Test fun declineActionDeclinesAndFinishesTheBroadcastOnlyOnceTheCoreAnswered() {
        val rig = TelecomRig()
        val connection = rig.ringing("c1")
        val receiver = RingerActionReceiver()
        receiver.onReceive(rig.phone, intent(rig, RingerIntents.ACTION_DECLINE, "c1"))
        assertEquals(DisconnectCause.REJECTED, connection.disconnectCause.code)
        assertEquals(listOf("end c1"), rig.actions.log)
        val pending = receiver.mirrorPendingResult()!!
        assertFalse("kept alive until the core has the decline", pending.mirrorFinished())
        rig.actions.ends.getValue("c1")(true)
        assertTrue(pending.mirrorFinished())
    }

    @Test fun hangUpActionHangsUpAndFinishesOnceTheCoreAnsweredEvenWhenItFailed() {
        val rig = TelecomRig()
        val connection = rig.active("c1")
        val receiver = RingerActionReceiver()
        receiver.onReceive(rig.phone, intent(rig, RingerIntents.ACTION_HANG_UP, "c1"))
        assertEquals(DisconnectCause.LOCAL, connection.disconnectCause.code)
        assertEquals("end c1", rig.actions.log.last())
        assertFalse(receiver.mirrorPendingResult()!!.mirrorFinished())
        rig.actions.ends.getValue("c1")(false)
        assertTrue(receiver.mirrorPendingResult()!!.mirrorFinished())
    }

    @Test fun actionForACallNoLongerShownFinishesAtOnceAndSendsNothing() {
        val rig = TelecomRig()
        val receiver = RingerActionReceiver()
        receiver.onReceive(rig.phone, intent(rig, RingerIntents.ACTION_DECLINE, "gone"))
        assertTrue(receiver.mirrorPendingResult()!!.mirrorFinished())
        assertTrue(rig.actions.log.isEmpty())
    }

    @Test fun unknownActionOrMissingCallIdDoesNothing() {
        val rig = TelecomRig()
        val connection = rig.ringing("c1")
        for (intent in listOf(
            intent(rig, "com.example.OTHER", "c1"),
            intent(rig, null, "c1"),
            intent(rig, RingerIntents.ACTION_DECLINE, null),
            intent(rig, RingerIntents.ACTION_ANSWER, "c1")
        )) {
            val receiver = RingerActionReceiver()
            receiver.onReceive(rig.phone, intent)
            assertNull("${intent.action}: the broadcast is not held", receiver.mirrorPendingResult())
        }
        assertEquals(Connection.STATE_RINGING, connection.state)
        assertTrue(rig.actions.log.isEmpty())
    }

    @Test fun processStartedWithoutTheCallUiIgnoresTheActionWithoutACrash() {
        val rig = TelecomRig()
        RingerComponents.callUi = null
        val receiver = RingerActionReceiver()
        receiver.onReceive(rig.phone, intent(rig, RingerIntents.ACTION_DECLINE, "c1"))
        assertNull(receiver.mirrorPendingResult())
    }
}
