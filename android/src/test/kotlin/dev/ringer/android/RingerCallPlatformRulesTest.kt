package dev.ringer.android

import android.app.Notification
import android.app.NotificationManager
import android.content.pm.ServiceInfo
import android.telecom.Connection
import dev.ringer.kit.Party
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * Issue 27, item 4: the ringer silenced by volume-down, a device without Telecom, and what Android shows of a call
 * without `POST_NOTIFICATIONS`, on the mirror phone.
 */
class RingerCallPlatformRulesTest {
    private val key = "c1/${IncomingCallNotification.NOTIFICATION_ID}"

    @After fun forgetComponents() { RingerComponents.callUi = null }

    /** A ringing call whose ringing notification Telecom had the app post. */
    private fun ringingWithNotification(rig: TelecomRig): Connection {
        val connection = rig.ringing("c1")
        connection.onShowIncomingCallUi()
        return connection
    }

    @Test fun volumeDownStopsTheRingtoneAndTheCallKeepsRingingOnScreen() {
        val rig = TelecomRig(35)
        val connection = ringingWithNotification(rig)
        val manager = rig.phone.notificationManager
        assertTrue("ringing out loud", manager.mirrorSounding.contains(key))
        connection.onSilence()
        assertFalse("the ringtone stopped", manager.mirrorSounding.contains(key))
        val shown = manager.mirrorShowing.getValue(key)
        assertTrue("re-posted to alert once only", shown.flags and Notification.FLAG_ONLY_ALERT_ONCE != 0)
        assertEquals("no longer insistent", 0, shown.flags and Notification.FLAG_INSISTENT)
        assertNotNull("still the full-screen call", shown.fullScreenIntent)
        assertEquals(Connection.STATE_RINGING, connection.state)
        // Telecom asks again for the incoming-call UI (e.g. after another call ended): it stays silent.
        connection.onShowIncomingCallUi()
        assertFalse(manager.mirrorSounding.contains(key))
        // The user still answers from the notification; a late silence request then posts nothing again.
        connection.onAnswer()
        assertEquals(listOf("answer c1"), rig.actions.log)
        connection.onSilence()
        assertTrue(manager.mirrorShowing.isEmpty())
    }

    @Test fun aDeviceWithoutTelecomRingsTheCallAsANotificationWhoseActionsWork() {
        val rig = TelecomRig(34, hasTelecom = false)
        rig.ui.registerWithTelecom("Calls")
        rig.report("c1", Party("alice", "Alice"))
        assertEquals("rings at once: no Telecom to wait for", listOf<Throwable?>(null), rig.completions)
        val shown = rig.phone.notificationManager.mirrorShowing.getValue(key)
        assertNotNull("the full-screen call screen", shown.fullScreenIntent)
        val style = shown.mirrorStyle as Notification.CallStyle
        assertEquals("c1", style.mirrorAnswerIntent.mirrorIntent.getStringExtra(RingerIntents.EXTRA_CALL_ID))
        assertTrue(rig.phone.notificationManager.mirrorSounding.contains(key))
        // The answer action reaches the app's call activity, which answers through the call UI.
        assertTrue(rig.ui.answer("c1"))
        rig.actions.answers.getValue("c1")(true)
        val service = rig.runForegroundService()
        assertEquals(ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL or ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE, service.mirrorForegroundType)
        assertEquals(listOf("answer c1", "audio on"), rig.actions.log)
        // A second call is declined from its notification, and a dialled call needs no Telecom either.
        rig.report("c2", Party("carol", null))
        rig.ui.decline("c2") {}
        assertEquals("end c2", rig.actions.log.last())
        rig.ui.placeOutgoingCall("o1", Party("bob", "Bob"), hasVideo = false)
        rig.ui.reportOutgoingCallConnected("o1", 5L)
        assertTrue(rig.phone.telecom.mirrorIncomingExtras.isEmpty() && rig.phone.telecom.mirrorRegistered.isEmpty())
        assertEquals(listOf<String>(), rig.phone.crashes.toList())
    }

    @Test fun withoutPostNotificationsOnAndroid13AndLaterASelfManagedCallStillRingsAndOtherNotificationsAreDropped() {
        for (sdk in listOf(33, 34, 35)) {
            val rig = TelecomRig(sdk)
            rig.phone.notificationManager.mirrorNotificationsEnabled = false
            ringingWithNotification(rig)
            val manager = rig.phone.notificationManager
            assertTrue("$sdk: the CallStyle call is exempt while Telecom holds it", manager.mirrorShowing.containsKey(key))
            assertTrue("$sdk: and rings", manager.mirrorSounding.contains(key))
            // A plain notification of the app (a missed call, say) is dropped.
            manager.notify("missed", 1, Notification.Builder(rig.phone, IncomingCallNotification.ONGOING_CHANNEL_ID).build())
            assertFalse("$sdk", manager.mirrorShowing.containsKey("missed/1"))
            // Once Telecom no longer holds the call, its CallStyle form is dropped as well.
            rig.ui.reportCallEnded("c1", 1L, dev.ringer.kit.CallEndReason.REMOTE_ENDED)
            rig.notifications.show(dev.ringer.kit.IncomingCallReport("c1", Party("alice", "Alice"), false))
            assertFalse("$sdk", manager.mirrorShowing.containsKey(key))
        }
    }

    @Test fun withNotificationsBlockedBeforeAndroid13OrWithoutTelecomARingingCallShowsAndPlaysNothing() {
        for ((sdk, telecom) in listOf(31 to true, 32 to true, 34 to false)) {
            val rig = TelecomRig(sdk, hasTelecom = telecom)
            rig.phone.notificationManager.mirrorNotificationsEnabled = false
            rig.report("c1", Party("alice", "Alice"))
            if (telecom) rig.phone.telecomCreatesIncoming(rig.service).onShowIncomingCallUi()
            val manager = rig.phone.notificationManager
            assertTrue("$sdk, Telecom $telecom: nothing shows", manager.mirrorShowing.isEmpty())
            assertTrue("$sdk, Telecom $telecom: nothing plays", manager.mirrorSounding.isEmpty())
            assertEquals(1, manager.mirrorBlocked.size)
        }
    }

    @Test fun theIncomingChannelTurnedOffDropsTheCallBeforeAndroid13AndSilencesItAfter() {
        for (sdk in listOf(31, 34)) {
            val rig = TelecomRig(sdk)
            rig.notifications.createChannels()
            rig.phone.notificationManager.mirrorChannels.getValue(IncomingCallNotification.INCOMING_CHANNEL_ID)
                .setImportance(NotificationManager.IMPORTANCE_NONE)
            ringingWithNotification(rig)
            val manager = rig.phone.notificationManager
            assertEquals("$sdk", sdk >= 33, manager.mirrorShowing.containsKey(key))
            assertTrue("$sdk: no ringtone either way", manager.mirrorSounding.isEmpty())
        }
    }

    @Test fun aCallWithoutTelecomEndsLikeAnyOther() {
        val rig = TelecomRig(35, hasTelecom = false)
        rig.report("c1", Party("alice", "Alice"))
        rig.ui.reportCallEnded("c1", 1L, dev.ringer.kit.CallEndReason.UNANSWERED)
        assertTrue(rig.phone.notificationManager.mirrorShowing.isEmpty())
        assertTrue(rig.phone.notificationManager.mirrorSounding.isEmpty())
        assertFalse("nothing left to answer", rig.ui.answer("c1"))
    }
}
