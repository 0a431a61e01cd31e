package dev.ringer.lab

/**
 * Everything Android's rules for a calling app read about one phone at one moment. A value: build one, ask
 * [AndroidRules], act on the answer.
 *
 * @property apiLevel the phone's API level (`Build.VERSION.SDK_INT`: 33 is Android 13, 34 Android 14).
 * @property appState what the user or Android last did with the app.
 * @property processRunning whether the app's process runs now.
 * @property online whether the phone has a network.
 * @property dozing whether the phone is in Doze.
 * @property locked whether the keyguard shows.
 * @property granted the permissions granted now.
 * @property foregroundServiceRunning whether the app's foreground service (a call's) runs now.
 * @property highPriorityMessage whether a message FCM delivered at HIGH priority is being handled now.
 */
data class PlatformState(
    val apiLevel: Int,
    val appState: AppState,
    val processRunning: Boolean,
    val online: Boolean = true,
    val dozing: Boolean = false,
    val locked: Boolean = false,
    val granted: Set<LabPermission> = LabPermission.values().toSet(),
    val foregroundServiceRunning: Boolean = false,
    val highPriorityMessage: Boolean = false
)

/** What Android does with one FCM message for the app ([AndroidRules.messageFate]). */
sealed class MessageFate {
    /** The app never sees it and FCM is told so (receipt `notDelivered`). @property reason for the log and ack. */
    data class NotDelivered(val reason: String) : MessageFate()

    /**
     * A message with a `notification` block while the app is not in the foreground: the system shows it (when
     * notifications are allowed, [shown]) and the app never runs for it.
     */
    data class ShownBySystem(val shown: Boolean) : MessageFate()

    /** `onMessageReceived` runs in the running process. */
    object DeliveredToRunningApp : MessageFate()

    /** Android starts the app's process (in the background) first, then `onMessageReceived` runs. */
    object StartsProcessThenDelivers : MessageFate()
}

/** Whether the app's process goes on after an app-state change ([AndroidRules.processAfter]). */
enum class ProcessFate {
    /** It runs (or is started: the user opened the app). */
    RUNS,
    /** It keeps whatever it was: not running stays not running. */
    UNCHANGED,
    /** It ends, with its sockets, timers and Telecom's connections; its files stay. */
    ENDS
}

/** What Android answers to `startForegroundService` ([AndroidRules.foregroundServiceStart]). */
enum class ForegroundServiceStart {
    /** Allowed. */
    ALLOWED,
    /** Refused with `ForegroundServiceStartNotAllowedException` (API 31+): a background start without exemption. */
    NOT_ALLOWED
}

/**
 * Android's rules for a calling app, in one place: each function takes a [PlatformState] and returns what the
 * platform does. Pure: no I/O, no clock. The app-process side (the mirror's `NotificationManager` and `Service`,
 * the lab's simulated Telecom) carries the outcomes out; the type checks of `Service.startForeground` (API 34:
 * `phoneCall` needs `MANAGE_OWN_CALLS`, `microphone` needs `RECORD_AUDIO` and a visible app) and the posting checks
 * of `NotificationManager.notify` stay in the mirror, which [notificationsEnabled] and [fullScreenIntentAllowed] set.
 */
object AndroidRules {
    /**
     * What happens to an FCM message: a force-stopped app gets nothing (developer.android.com, "Receive messages
     * in an Android app": "if the app is in the stopped state, FCM messages are not delivered"; the stopped state
     * also covers an app never opened); an offline phone gets nothing (FCM holds it); a `notification` message for
     * an app not in the foreground is shown by the system (same page, "Handling messages": notification messages
     * delivered when the app is in the background go to the system tray); else `onMessageReceived` runs, in a new
     * process when none runs (FCM starts a swiped-away app).
     * @param hasNotification whether the message has a `notification` block.
     */
    fun messageFate(state: PlatformState, hasNotification: Boolean): MessageFate = when {
        state.appState == AppState.FORCE_STOPPED ->
            MessageFate.NotDelivered("the app is force-stopped: Android delivers nothing until the user opens it")
        !state.online -> MessageFate.NotDelivered("the phone is offline")
        hasNotification && state.appState != AppState.FOREGROUND -> MessageFate.ShownBySystem(notificationsEnabled(state))
        state.processRunning -> MessageFate.DeliveredToRunningApp
        else -> MessageFate.StartsProcessThenDelivers
    }

    /**
     * How a ringing call shows: the app's own screen when it is visible on an unlocked phone; over the lock screen
     * when the phone is locked, the notification kept its full-screen intent ([fullScreenIntentKept]: API 34 drops
     * it without `USE_FULL_SCREEN_INTENT`) and the app may start an activity now (visible, or handling a
     * high-priority FCM message: developer.android.com, "Restrictions on starting activities from the background",
     * and "Set FCM message priority": high priority lets the app show a time-sensitive notification); else a
     * heads-up notification. The full-screen intent opens the call screen only on a locked or screen-off phone
     * ("Display time-sensitive notifications").
     */
    fun presentation(state: PlatformState, fullScreenIntentKept: Boolean): Presentation {
        val visible = state.appState == AppState.FOREGROUND
        if (visible && !state.locked) return Presentation.IN_APP
        val mayLaunch = visible || state.highPriorityMessage
        return if (state.locked && mayLaunch && fullScreenIntentKept) Presentation.FULL_SCREEN else Presentation.HEADS_UP
    }

    /**
     * Whether the app may hold its event stream's socket: its process runs, the phone is online, and either a
     * foreground service runs (a call's: the process is neither frozen nor restricted by Doze) or the app is in the
     * foreground and the phone not dozing. A background app without one is cached and frozen (Android 11+ cached
     * apps freezer), and Doze suspends network access of apps without a foreground service
     * (developer.android.com, "Optimize for Doze and App Standby").
     */
    fun eventStreamAllowed(state: PlatformState): Boolean = state.processRunning && state.online &&
        (state.foregroundServiceRunning || (state.appState == AppState.FOREGROUND && !state.dozing))

    /**
     * The process after the app moves to [next]: opening it starts it; leaving it keeps what runs (a frozen
     * background app is still a process); a swipe from Recents ends it unless a foreground service keeps it; a force
     * stop ends it, foreground service and all (developer.android.com, "Processes and app lifecycle";
     * `ActivityManager.forceStopPackage`).
     */
    fun processAfter(next: AppState, state: PlatformState): ProcessFate = when (next) {
        AppState.FOREGROUND -> ProcessFate.RUNS
        AppState.BACKGROUND -> ProcessFate.UNCHANGED
        AppState.SWIPED_AWAY -> if (state.processRunning && !state.foregroundServiceRunning) ProcessFate.ENDS else ProcessFate.UNCHANGED
        AppState.FORCE_STOPPED -> if (state.processRunning) ProcessFate.ENDS else ProcessFate.UNCHANGED
    }

    /**
     * `startForegroundService`: from API 31 an app that is not visible may start one only with an exemption —
     * a user action on its notification or call (answering through Telecom, [userAction]), a high-priority FCM
     * message being handled — or while one already runs (a type change); else
     * `ForegroundServiceStartNotAllowedException` (developer.android.com, "Restrictions on starting a foreground
     * service from the background", Android 12). Before API 31 a background app may start one.
     */
    fun foregroundServiceStart(state: PlatformState, userAction: Boolean): ForegroundServiceStart {
        val exempt = state.apiLevel < 31 || state.appState == AppState.FOREGROUND || state.foregroundServiceRunning ||
            userAction || state.highPriorityMessage
        return if (exempt) ForegroundServiceStart.ALLOWED else ForegroundServiceStart.NOT_ALLOWED
    }

    /**
     * `NotificationManager.areNotificationsEnabled()`: from API 33 only with `POST_NOTIFICATIONS` granted
     * ("Notification runtime permission"); before, on (the user did not block the app).
     */
    fun notificationsEnabled(state: PlatformState): Boolean =
        state.apiLevel < 33 || LabPermission.POST_NOTIFICATIONS in state.granted

    /** `NotificationManager.canUseFullScreenIntent()`: from API 34 only with `USE_FULL_SCREEN_INTENT`; before, always. */
    fun fullScreenIntentAllowed(state: PlatformState): Boolean =
        state.apiLevel < 34 || LabPermission.USE_FULL_SCREEN_INTENT in state.granted

    /** How FCM can reach the phone: `offline`, `dozing` or `online` (the FCM sandbox's reachability names). */
    fun reachability(state: PlatformState): String = when {
        !state.online -> "offline"
        state.dozing -> "dozing"
        else -> "online"
    }
}
