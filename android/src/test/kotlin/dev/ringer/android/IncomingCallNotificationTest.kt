package dev.ringer.android

import android.app.Notification
import android.app.NotificationManager
import dev.ringer.kit.IncomingCallReport
import dev.ringer.kit.Party
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNotEquals
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/** The ringing call's notification on the mirror phone, per API level (Android's notification rules). */
class IncomingCallNotificationTest {
    private val report = IncomingCallReport("4f0c2a9e-0000-4000-8000-000000000001", Party("alice", "Alice"), hasVideo = false)

    private fun notifications(phone: MirrorPhone) =
        IncomingCallNotification(phone, phone.notificationManager, CallNotificationConfig(TestCallActivity::class.java, 7), phone.sdkInt)

    private fun shown(phone: MirrorPhone, callId: String = report.callId): Notification =
        phone.notificationManager.mirrorShowing["$callId/${IncomingCallNotification.NOTIFICATION_ID}"]
            ?: throw AssertionError("nothing posted for $callId: ${phone.notificationManager.mirrorShowing.keys}")

    @Test
    fun theRingingCallIsACallStyleNotificationOnAHighImportanceChannelWithDirectImmutableIntents() {
        val phone = MirrorPhone(sdkInt = 35)
        notifications(phone).show(report)
        val notification = shown(phone)
        assertEquals(Notification.CATEGORY_CALL, notification.category)
        assertTrue("ongoing", notification.flags and Notification.FLAG_ONGOING_EVENT != 0)
        assertEquals(NotificationManager.IMPORTANCE_HIGH,
                     phone.notificationManager.mirrorChannels[IncomingCallNotification.INCOMING_CHANNEL_ID]!!.importance)
        val style = notification.mirrorStyle as Notification.CallStyle
        assertEquals(Notification.CallStyle.CALL_TYPE_INCOMING, style.mirrorCallType)
        // No trampoline (Android 12): answer opens the app's call activity itself; decline is a broadcast that
        // starts nothing.
        val answer = style.mirrorAnswerIntent
        assertTrue(answer.isActivity)
        assertEquals(RingerIntents.ACTION_ANSWER, answer.mirrorIntent.action)
        assertEquals(TestCallActivity::class.java.name, answer.mirrorIntent.component.className)
        val decline = style.mirrorDeclineIntent
        assertTrue(decline.isBroadcast)
        assertEquals(RingerIntents.ACTION_DECLINE, decline.mirrorIntent.action)
        assertEquals(RingerActionReceiver::class.java.name, decline.mirrorIntent.component.className)
        for (intent in listOf(answer, decline, notification.contentIntent, notification.fullScreenIntent)) {
            assertTrue("FLAG_IMMUTABLE (required from API 31)", intent.isImmutable)
            assertEquals(report.callId, intent.mirrorIntent.getStringExtra(RingerIntents.EXTRA_CALL_ID))
        }
        assertTrue(notification.fullScreenIntent.isActivity)
    }

    @Test
    fun withoutTheFullScreenIntentPermissionOnAndroid14TheCallStillPostsAsAHeadsUpInsteadOfCrashing() {
        val phone = MirrorPhone(sdkInt = 34)
        phone.notificationManager.mirrorCanUseFullScreenIntent = false
        notifications(phone).show(report)
        val notification = shown(phone)
        assertTrue("the full-screen intent was requested and the system dropped it", notification.mirrorFullScreenIntentDenied)
        assertNull(notification.fullScreenIntent)
        assertTrue(notification.mirrorStyle is Notification.CallStyle)
    }

    @Test
    fun aSystemThatRefusesTheCallStyleFormStillGetsThePlainNotificationWithItsActions() {
        val phone = MirrorPhone(sdkInt = 33)
        val notifications = notifications(phone)
        // A CallStyle notification without a full-screen intent is what the system refuses.
        val refusedForm = notifications.build(report)
        refusedForm.fullScreenIntent = null
        try {
            phone.notificationManager.notify("x", 1, refusedForm)
            throw AssertionError("the mirror accepted a CallStyle notification without a full-screen intent")
        } catch (e: IllegalArgumentException) {
            // as the system does
        }
        val plain = notifications.build(report, callStyle = false)
        assertNull(plain.mirrorStyle)
        assertEquals(listOf(RingerIntents.ACTION_DECLINE, RingerIntents.ACTION_ANSWER), plain.actions.map { it.actionIntent.mirrorIntent.action })
        assertNotNull(plain.fullScreenIntent)
    }

    @Test
    fun beforeAndroid12TheActionsArePlainButGoToTheSameTargets() {
        val phone = MirrorPhone(sdkInt = 30)
        notifications(phone).show(report)
        val notification = shown(phone)
        assertNull(notification.mirrorStyle)
        val (decline, answer) = notification.actions.map { it.actionIntent }
        assertTrue(answer.isActivity)
        assertTrue(decline.isBroadcast)
        assertNotNull("full screen before API 34", notification.fullScreenIntent)
    }

    @Test
    fun twoRingingCallsHaveTheirOwnIntentsSoNeitherReplacesTheOthersCallId() {
        val phone = MirrorPhone()
        val notifications = notifications(phone)
        val second = IncomingCallReport("4f0c2a9e-0000-4000-8000-000000000002", Party("carol"), hasVideo = true)
        notifications.show(report)
        notifications.show(second)
        val first = shown(phone).mirrorStyle as Notification.CallStyle
        val other = shown(phone, second.callId).mirrorStyle as Notification.CallStyle
        val codes = listOf(first.mirrorAnswerIntent, first.mirrorDeclineIntent, other.mirrorAnswerIntent, other.mirrorDeclineIntent)
            .map { it.mirrorRequestCode }
        assertEquals("every (call, action) has its own request code", 4, codes.toSet().size)
        assertNotEquals(first.mirrorAnswerIntent.mirrorRequestCode, other.mirrorAnswerIntent.mirrorRequestCode)
        assertEquals("carol", other.mirrorPerson.name.toString())
    }

    @Test
    fun cancelRemovesOnlyThatCallsNotification() {
        val phone = MirrorPhone()
        val notifications = notifications(phone)
        notifications.show(report)
        notifications.show(report.copy(callId = "4f0c2a9e-0000-4000-8000-000000000003"))
        notifications.cancel(report.callId)
        assertFalse(phone.notificationManager.mirrorShowing.containsKey("${report.callId}/${IncomingCallNotification.NOTIFICATION_ID}"))
        assertEquals(1, phone.notificationManager.mirrorShowing.size)
    }

    @Test
    fun theOngoingCallsNotificationHangsUpThroughTheReceiver() {
        val phone = MirrorPhone()
        val ongoing = notifications(phone).buildOngoing(report.callId, report.caller)
        val style = ongoing.mirrorStyle as Notification.CallStyle
        assertEquals(Notification.CallStyle.CALL_TYPE_ONGOING, style.mirrorCallType)
        assertTrue(style.mirrorHangUpIntent.isBroadcast)
        assertEquals(RingerIntents.ACTION_HANG_UP, style.mirrorHangUpIntent.mirrorIntent.action)
        assertTrue(style.mirrorHangUpIntent.isImmutable)
        assertEquals(IncomingCallNotification.ONGOING_CHANNEL_ID, ongoing.channelId)
    }
}
