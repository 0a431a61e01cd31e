package dev.ringer.android

import android.app.Notification
import android.content.Intent
import android.os.Bundle
import android.telecom.Connection
import dev.ringer.kit.IncomingCallReport
import dev.ringer.kit.Party
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/** The answer action's own activity: the answer never depends on the app's call activity hearing the tap. */
class RingerAnswerActivityTest {
    @After fun forgetComponents() { RingerComponents.callUi = null }

    /** Android creating the activity in front of the tap's stack for [intent]. @return it, after its onCreate. */
    private fun create(intent: Intent, savedInstanceState: Bundle? = null): RingerAnswerActivity =
        RingerAnswerActivity().also { it.setIntent(intent); it.mirrorCreate(savedInstanceState) }

    private fun answerTap(rig: TelecomRig, callId: String): Intent {
        val notification = rig.notifications.build(IncomingCallReport(callId, Party("alice", "Alice"), false))
        return (notification.mirrorStyle as Notification.CallStyle).mirrorAnswerIntent.mirrorIntent
    }

    @Test fun theAnswerTapIsTakenNativelyBeforeTheCallActivityOpensAndTheActivityFinishesUnseen() {
        val rig = TelecomRig()
        val connection = rig.ringing("c1")
        val activity = create(answerTap(rig, "c1"))
        assertEquals("answered without the call activity or the app's code", listOf("answer c1"), rig.actions.log)
        assertTrue("finished in onCreate: the call activity beneath shows the call", activity.isFinishing)
        rig.actions.answers.getValue("c1")(true)
        assertEquals(Connection.STATE_ACTIVE, connection.state)
    }

    @Test fun aSecondCreationOfTheSameTapOrAnotherCallsAnswerDoesNotAnswerTwice() {
        val rig = TelecomRig()
        rig.ringing("c1")
        val tap = answerTap(rig, "c1")
        create(tap)
        create(tap)
        create(tap, savedInstanceState = Bundle())
        assertEquals(listOf("answer c1"), rig.actions.log)
    }

    @Test fun aTapWithoutAPhoneOrForACallThatIsOverAnswersNothingAndStillFinishes() {
        val rig = TelecomRig()
        val overTap = answerTap(rig, "gone")
        assertTrue(create(overTap).isFinishing)
        RingerComponents.callUi = null
        assertTrue(create(answerTap(rig, "c2")).isFinishing)
        assertTrue(create(Intent("com.example.OTHER").putExtra(RingerIntents.EXTRA_CALL_ID, "c1")).isFinishing)
        assertTrue(rig.actions.log.isEmpty())
    }
}
