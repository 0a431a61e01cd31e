package dev.ringer.lab

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test

/** Android's rules as the phone host applies them, one behaviour each ([AndroidRules]). */
class AndroidRulesTest {
    private fun phone(appState: AppState, running: Boolean = true, apiLevel: Int = 35) = PlatformState(apiLevel, appState, running)

    @Test
    fun aForceStoppedAppIsDeliveredNoMessage() {
        val fate = AndroidRules.messageFate(phone(AppState.FORCE_STOPPED, running = false), hasNotification = false)
        assertTrue("$fate", fate is MessageFate.NotDelivered)
    }

    @Test
    fun aSwipedAwayAppIsStartedByADataMessage() {
        assertEquals(MessageFate.StartsProcessThenDelivers,
                     AndroidRules.messageFate(phone(AppState.SWIPED_AWAY, running = false), hasNotification = false))
    }

    @Test
    fun aFrozenBackgroundAppGetsTheMessageInItsRunningProcess() {
        assertEquals(MessageFate.DeliveredToRunningApp, AndroidRules.messageFate(phone(AppState.BACKGROUND), hasNotification = false))
    }

    @Test
    fun anOfflinePhoneIsDeliveredNothing() {
        val fate = AndroidRules.messageFate(phone(AppState.FOREGROUND).copy(online = false), hasNotification = false)
        assertTrue("$fate", fate is MessageFate.NotDelivered)
    }

    @Test
    fun aNotificationMessageForAnAppNotInTheForegroundIsShownByTheSystemWithoutTheApp() {
        assertEquals(MessageFate.ShownBySystem(true),
                     AndroidRules.messageFate(phone(AppState.SWIPED_AWAY, running = false), hasNotification = true))
        assertEquals(MessageFate.DeliveredToRunningApp, AndroidRules.messageFate(phone(AppState.FOREGROUND), hasNotification = true))
    }

    @Test
    fun withoutPostNotificationsOnAndroid13TheSystemShowsNoNotification() {
        val denied = phone(AppState.BACKGROUND, apiLevel = 33).copy(granted = LabPermission.values().toSet() - LabPermission.POST_NOTIFICATIONS)
        assertEquals(MessageFate.ShownBySystem(false), AndroidRules.messageFate(denied, hasNotification = true))
        assertTrue("Android 12 has no such permission", AndroidRules.notificationsEnabled(denied.copy(apiLevel = 32)))
    }

    @Test
    fun withoutUseFullScreenIntentOnAndroid14ALockedPhoneShowsAHeadsUp() {
        val locked = phone(AppState.SWIPED_AWAY).copy(locked = true, highPriorityMessage = true,
                                                      granted = LabPermission.values().toSet() - LabPermission.USE_FULL_SCREEN_INTENT)
        assertFalse(AndroidRules.fullScreenIntentAllowed(locked))
        assertTrue("Android 13 does not restrict it", AndroidRules.fullScreenIntentAllowed(locked.copy(apiLevel = 33)))
        // The mirror drops the full-screen intent when the rule says so; without it the call shows as a heads-up.
        assertEquals(Presentation.HEADS_UP, AndroidRules.presentation(locked, fullScreenIntentKept = false))
    }

    @Test
    fun aHighPriorityMessageShowsACallFullScreenOnALockedPhone() {
        val locked = phone(AppState.SWIPED_AWAY).copy(locked = true, highPriorityMessage = true)
        assertEquals(Presentation.FULL_SCREEN, AndroidRules.presentation(locked, fullScreenIntentKept = true))
    }

    @Test
    fun aNormalPriorityMessageRingsABackgroundAppAsAHeadsUp() {
        val locked = phone(AppState.BACKGROUND).copy(locked = true, highPriorityMessage = false)
        assertEquals(Presentation.HEADS_UP, AndroidRules.presentation(locked, fullScreenIntentKept = true))
    }

    @Test
    fun anUnlockedPhoneWithTheAppOnScreenShowsTheCallInTheApp() {
        assertEquals(Presentation.IN_APP, AndroidRules.presentation(phone(AppState.FOREGROUND), fullScreenIntentKept = true))
        assertEquals(Presentation.HEADS_UP, AndroidRules.presentation(phone(AppState.BACKGROUND), fullScreenIntentKept = true))
    }

    @Test
    fun aBackgroundAppIsFrozenWithoutItsSocketUnlessAForegroundServiceRuns() {
        assertTrue(AndroidRules.eventStreamAllowed(phone(AppState.FOREGROUND)))
        assertFalse(AndroidRules.eventStreamAllowed(phone(AppState.BACKGROUND)))
        assertTrue(AndroidRules.eventStreamAllowed(phone(AppState.BACKGROUND).copy(foregroundServiceRunning = true)))
    }

    @Test
    fun dozeTakesTheSocketOfAnAppWithoutAForegroundService() {
        assertFalse(AndroidRules.eventStreamAllowed(phone(AppState.FOREGROUND).copy(dozing = true)))
        assertTrue(AndroidRules.eventStreamAllowed(phone(AppState.FOREGROUND).copy(dozing = true, foregroundServiceRunning = true)))
        assertFalse("offline, no socket at all",
                    AndroidRules.eventStreamAllowed(phone(AppState.FOREGROUND).copy(online = false, foregroundServiceRunning = true)))
    }

    @Test
    fun aSwipeEndsTheProcessUnlessACallsForegroundServiceKeepsIt() {
        assertEquals(ProcessFate.ENDS, AndroidRules.processAfter(AppState.SWIPED_AWAY, phone(AppState.BACKGROUND)))
        assertEquals(ProcessFate.UNCHANGED,
                     AndroidRules.processAfter(AppState.SWIPED_AWAY, phone(AppState.BACKGROUND).copy(foregroundServiceRunning = true)))
    }

    @Test
    fun aForceStopEndsTheProcessEvenDuringACall() {
        assertEquals(ProcessFate.ENDS,
                     AndroidRules.processAfter(AppState.FORCE_STOPPED, phone(AppState.FOREGROUND).copy(foregroundServiceRunning = true)))
    }

    @Test
    fun leavingTheAppKeepsItsProcessAndOpeningItStartsOne() {
        assertEquals(ProcessFate.UNCHANGED, AndroidRules.processAfter(AppState.BACKGROUND, phone(AppState.FOREGROUND)))
        assertEquals(ProcessFate.RUNS, AndroidRules.processAfter(AppState.FOREGROUND, phone(AppState.FORCE_STOPPED, running = false)))
    }

    @Test
    fun aBackgroundForegroundServiceStartWithoutExemptionIsRefusedFromAndroid12() {
        val background = phone(AppState.BACKGROUND, apiLevel = 31)
        assertEquals(ForegroundServiceStart.NOT_ALLOWED, AndroidRules.foregroundServiceStart(background, userAction = false))
        assertEquals(ForegroundServiceStart.ALLOWED, AndroidRules.foregroundServiceStart(background.copy(apiLevel = 30), userAction = false))
    }

    @Test
    fun aUserActionOrAHighPriorityMessageExemptsAForegroundServiceStart() {
        val background = phone(AppState.BACKGROUND)
        assertEquals(ForegroundServiceStart.ALLOWED, AndroidRules.foregroundServiceStart(background, userAction = true))
        assertEquals(ForegroundServiceStart.ALLOWED,
                     AndroidRules.foregroundServiceStart(background.copy(highPriorityMessage = true), userAction = false))
        assertEquals(ForegroundServiceStart.ALLOWED,
                     AndroidRules.foregroundServiceStart(background.copy(foregroundServiceRunning = true), userAction = false))
    }

    @Test
    fun fcmIsToldTheDozingPhoneIsDozingAndTheOfflineOneOffline() {
        assertEquals("dozing", AndroidRules.reachability(phone(AppState.FOREGROUND).copy(dozing = true)))
        assertEquals("offline", AndroidRules.reachability(phone(AppState.FOREGROUND).copy(dozing = true, online = false)))
        assertEquals("online", AndroidRules.reachability(phone(AppState.FOREGROUND)))
    }
}
