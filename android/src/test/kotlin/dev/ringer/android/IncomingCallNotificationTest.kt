package dev.ringer.android

import android.app.Notification
import android.app.NotificationManager
import android.app.PendingIntent
import android.content.Intent
import dev.ringer.kit.IncomingCallReport
import dev.ringer.kit.Party
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertNotSame
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test
import dev.ringer.lab.app.MirrorPhone

class IncomingCallNotificationTest {
    private val alice = Party("alice", "Alice")

    private class Phone(val sdkInt: Int, fullScreenGranted: Boolean = true) {
        val phone = MirrorPhone(sdkInt)
        val notifications = IncomingCallNotification(
            phone, phone.notificationManager, CallNotificationConfig(TestCallActivity::class.java, 7), sdkInt
        )

        init { phone.notificationManager.mirrorCanUseFullScreenIntent = fullScreenGranted }

        fun show(callId: String, caller: Party = Party("alice", "Alice")): Notification {
            notifications.show(IncomingCallReport(callId, caller, false))
            return phone.notificationManager.mirrorShowing.getValue("$callId/${IncomingCallNotification.NOTIFICATION_ID}")
        }
    }

    /** The answer and decline intents, from CallStyle or (without it) the actions in order decline, answer. */
    private fun answerAndDecline(n: Notification): Pair<PendingIntent, PendingIntent> {
        val style = n.mirrorStyle
        if (style is Notification.CallStyle) return Pair(style.mirrorAnswerIntent, style.mirrorDeclineIntent)
        val actions = n.actions!!
        assertEquals(2, actions.size)
        return Pair(actions[1].actionIntent, actions[0].actionIntent)
    }

    @After fun forgetComponents() { RingerComponents.callUi = null }

    @Test fun ringingCallIsAnIncomingCallStyleOnTheHighImportanceChannel() {
        val p = Phone(35)
        val n = p.show("c1", alice)
        assertEquals(Notification.CATEGORY_CALL, n.category)
        assertTrue("ongoing", n.flags and Notification.FLAG_ONGOING_EVENT != 0)
        assertEquals(IncomingCallNotification.INCOMING_CHANNEL_ID, n.channelId)
        val channels = p.phone.notificationManager.mirrorChannels
        assertEquals(NotificationManager.IMPORTANCE_HIGH, channels.getValue(IncomingCallNotification.INCOMING_CHANNEL_ID).importance)
        assertEquals(NotificationManager.IMPORTANCE_LOW, channels.getValue(IncomingCallNotification.ONGOING_CHANNEL_ID).importance)
        val style = n.mirrorStyle as Notification.CallStyle
        assertEquals(Notification.CallStyle.CALL_TYPE_INCOMING, style.mirrorCallType)
        assertEquals("Alice", style.mirrorPerson.name.toString())
        assertEquals("Alice", n.mirrorTitle.toString())
        assertEquals("a caller without a name shows the id", "bob", p.show("c2", Party("bob", null)).mirrorTitle.toString())
    }

    @Test fun answerOpensTheCallActivityWithTheSdksAnswerActivityInFrontAndDeclineIsABroadcastAtEveryLevel() {
        for (sdk in 26..35) {
            val n = Phone(sdk).show("c1")
            val (answer, decline) = answerAndDecline(n)
            assertTrue("$sdk: answer starts activities (no trampoline)", answer.isActivity)
            assertEquals("$sdk: the call activity and the answer in front", 2, answer.mirrorIntents.size)
            val (show, front) = Pair(answer.mirrorIntents[0], answer.mirrorIntents[1])
            assertEquals("$sdk", TestCallActivity::class.java.name, show.component.className)
            assertEquals("$sdk", RingerIntents.ACTION_SHOW_INCOMING_CALL, show.action)
            assertEquals("$sdk", "c1", show.getStringExtra(RingerIntents.EXTRA_CALL_ID))
            assertTrue("$sdk: the first of the stack starts a task", show.flags and Intent.FLAG_ACTIVITY_NEW_TASK != 0)
            assertEquals("$sdk", RingerAnswerActivity::class.java.name, front.component.className)
            assertEquals("$sdk", RingerIntents.ACTION_ANSWER, front.action)
            assertEquals("$sdk", "c1", front.getStringExtra(RingerIntents.EXTRA_CALL_ID))
            assertTrue("$sdk: decline is getBroadcast", decline.isBroadcast)
            assertEquals("$sdk", RingerActionReceiver::class.java.name, decline.mirrorIntent.component.className)
            assertEquals("$sdk", RingerIntents.ACTION_DECLINE, decline.mirrorIntent.action)
            assertEquals("$sdk", "c1", decline.mirrorIntent.getStringExtra(RingerIntents.EXTRA_CALL_ID))
            assertTrue("$sdk: the content intent shows the call activity", n.contentIntent.isActivity)
            assertEquals("$sdk", RingerIntents.ACTION_SHOW_INCOMING_CALL, n.contentIntent.mirrorIntent.action)
            if (sdk >= 31) assertTrue("$sdk: CallStyle", n.mirrorStyle is Notification.CallStyle)
            else assertNull("$sdk: no CallStyle before API 31", n.mirrorStyle)
        }
    }

    @Test fun everyPendingIntentIsImmutableAtEveryLevel() {
        for (sdk in 26..35) {
            for (granted in listOf(true, false)) {
                val p = Phone(sdk, granted)
                val ringing = p.show("c1")
                val ongoing = p.notifications.buildOngoing("c1", alice)
                val (answer, decline) = answerAndDecline(ringing)
                val hangUp = (ongoing.mirrorStyle as? Notification.CallStyle)?.mirrorHangUpIntent ?: ongoing.actions!!.single().actionIntent
                val all = listOfNotNull(answer, decline, ringing.contentIntent, ringing.fullScreenIntent, ongoing.contentIntent, hangUp)
                for (intent in all) {
                    assertTrue("$sdk ${intent.mirrorIntent.action}: FLAG_IMMUTABLE", intent.isImmutable)
                    assertTrue("$sdk: never a service (the trampoline rule)", !intent.isService && !intent.isForegroundService)
                }
            }
        }
    }

    @Test fun fullScreenIntentIsRequestedAtEveryLevelAndFromApi34ShownOnlyWhenPermitted() {
        for (sdk in 26..33) {
            val n = Phone(sdk, fullScreenGranted = false).show("c1")
            assertNotNull("$sdk: no permission to ask for before API 34", n.fullScreenIntent)
            assertEquals(RingerIntents.ACTION_SHOW_INCOMING_CALL, n.fullScreenIntent.mirrorIntent.action)
        }
        for (sdk in 34..35) {
            assertNotNull("$sdk granted", Phone(sdk, fullScreenGranted = true).show("c1").fullScreenIntent)
            assertNull("$sdk denied: the system drops it, a heads-up", Phone(sdk, fullScreenGranted = false).show("c1").fullScreenIntent)
        }
    }

    @Test fun withoutTheFullScreenIntentPermissionOnAndroid14TheCallStillPostsAsAHeadsUpInsteadOfCrashing() {
        // The full-screen intent is requested all the same: the system drops it and shows a heads-up, and a
        // CallStyle notification that asked for one is accepted. Withholding it made notify throw
        // IllegalArgumentException ("CallStyle notifications must either be for a foreground Service or use a
        // fullScreenIntent"), which the mirror's NotificationManager plays.
        val p = Phone(34, fullScreenGranted = false)
        val n = p.show("c1")
        assertTrue("requested, and dropped by the system", n.mirrorFullScreenIntentDenied)
        assertNull(n.fullScreenIntent)
        assertTrue(n.mirrorStyle is Notification.CallStyle)
        val (answer, decline) = answerAndDecline(n)
        assertTrue(answer.isActivity)
        assertTrue(decline.isBroadcast)
    }

    @Test fun aSystemThatRefusesTheCallStyleFormStillGetsThePlainNotificationWithItsActions() {
        val p = Phone(33)
        val callStyle = p.notifications.build(IncomingCallReport("c1", alice, false))
        callStyle.fullScreenIntent = null
        try {
            p.phone.notificationManager.notify("x", 1, callStyle)
            throw AssertionError("the mirror accepted a CallStyle notification without a full-screen intent")
        } catch (e: IllegalArgumentException) {
            // as the system does, and as some OEM builds do for any CallStyle notification
        }
        val plain = p.notifications.build(IncomingCallReport("c1", alice, false), callStyle = false)
        assertNull(plain.mirrorStyle)
        assertEquals(listOf("Decline", "Answer"), plain.actions!!.map { it.title.toString() })
        assertNotNull(plain.fullScreenIntent)
    }

    @Test fun twoCallsWhoseRequestCodesCollideKeepTheirOwnIntents() {
        // "Aa" and "BB" have the same String.hashCode, so the same request codes; Android matches a PendingIntent
        // by request code and Intent.filterEquals (extras ignored), and FLAG_UPDATE_CURRENT would give the first
        // call's buttons the second call's id.
        assertEquals("Aa".hashCode(), "BB".hashCode())
        val p = Phone(35)
        val first = p.show("Aa")
        val second = p.show("BB")
        val (firstAnswer, firstDecline) = answerAndDecline(first)
        val (secondAnswer, secondDecline) = answerAndDecline(second)
        assertNotSame(firstAnswer, secondAnswer)
        assertNotSame(firstDecline, secondDecline)
        assertEquals("Aa", firstAnswer.mirrorIntent.getStringExtra(RingerIntents.EXTRA_CALL_ID))
        assertEquals("Aa", firstDecline.mirrorIntent.getStringExtra(RingerIntents.EXTRA_CALL_ID))
        assertEquals("Aa", first.fullScreenIntent.mirrorIntent.getStringExtra(RingerIntents.EXTRA_CALL_ID))
        assertEquals("BB", secondAnswer.mirrorIntent.getStringExtra(RingerIntents.EXTRA_CALL_ID))
        assertEquals("BB", secondDecline.mirrorIntent.getStringExtra(RingerIntents.EXTRA_CALL_ID))
    }

    @Test fun callsWithDifferentIdsGetDistinctRequestCodesAndEachActionItsOwn() {
        val p = Phone(35)
        val a = answerAndDecline(p.show("9b2f4c1e-0000-4000-8000-000000000001"))
        val b = answerAndDecline(p.show("9b2f4c1e-0000-4000-8000-000000000002"))
        val codes = listOf(a.first, a.second, b.first, b.second).map { it.mirrorRequestCode }
        assertEquals(codes.toString(), 4, codes.toSet().size)
    }

    @Test fun ongoingCallNotificationHangsUpThroughTheReceiver() {
        for (sdk in listOf(26, 30, 31, 35)) {
            val p = Phone(sdk)
            val n = p.notifications.buildOngoing("c1", Party("bob", null))
            assertEquals(IncomingCallNotification.ONGOING_CHANNEL_ID, n.channelId)
            assertEquals(Notification.CATEGORY_CALL, n.category)
            assertEquals("bob", n.mirrorTitle.toString())
            val style = n.mirrorStyle as? Notification.CallStyle
            val hangUp = style?.mirrorHangUpIntent ?: n.actions!!.single().actionIntent
            if (sdk >= 31) assertEquals(Notification.CallStyle.CALL_TYPE_ONGOING, style!!.mirrorCallType) else assertNull(style)
            assertTrue("$sdk", hangUp.isBroadcast)
            assertEquals(RingerActionReceiver::class.java.name, hangUp.mirrorIntent.component.className)
            assertEquals(RingerIntents.ACTION_HANG_UP, hangUp.mirrorIntent.action)
            assertEquals("c1", hangUp.mirrorIntent.getStringExtra(RingerIntents.EXTRA_CALL_ID))
        }
    }

    @Test fun cancelRemovesOnlyThatCallsNotification() {
        val p = Phone(35)
        p.show("c1")
        p.show("c2")
        p.notifications.cancel("c1")
        assertEquals(setOf("c2/${IncomingCallNotification.NOTIFICATION_ID}"), p.phone.notificationManager.mirrorShowing.keys)
    }

    @Test fun theRingingCallRingsWithTheUsersRingtoneAndVibratesUntilItsNotificationGoes() {
        // Telecom plays nothing for a self-managed call: the channel and the notification are the ringer.
        val p = Phone(35)
        val n = p.show("c1")
        val channel = p.phone.notificationManager.mirrorChannels.getValue(IncomingCallNotification.INCOMING_CHANNEL_ID)
        assertEquals(android.media.RingtoneManager.getDefaultUri(android.media.RingtoneManager.TYPE_RINGTONE), channel.sound)
        assertEquals(android.media.AudioAttributes.USAGE_NOTIFICATION_RINGTONE, channel.audioAttributes.usage)
        assertTrue(channel.shouldVibrate())
        assertTrue("the ringtone repeats", n.flags and Notification.FLAG_INSISTENT != 0)
        val ongoing = p.notifications.buildOngoing("c1", alice)
        assertTrue("an ongoing call does not ring", ongoing.flags and Notification.FLAG_INSISTENT == 0)
        assertNull(p.phone.notificationManager.mirrorChannels.getValue(IncomingCallNotification.ONGOING_CHANNEL_ID).sound)
        p.notifications.cancel("c1")
        assertTrue("the ringer stops with the notification", p.phone.notificationManager.mirrorShowing.isEmpty())
    }
}
