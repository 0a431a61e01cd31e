package dev.ringer.lab

/**
 * The app's state as Android sees it, with the scenario files' names ([wire]).
 * @property wire the protocol's and scenario files' name.
 */
enum class AppState(val wire: String) {
    /** On screen: an activity is visible; the app holds its event stream. */
    FOREGROUND("foreground"),
    /** Its process runs but no activity is visible: cached and frozen (no socket) unless a foreground service runs. */
    BACKGROUND("background"),
    /**
     * Removed from Recents: the process is gone unless a foreground service keeps it, and an FCM message starts it
     * again (swiping an app away is not a force stop).
     */
    SWIPED_AWAY("swiped_away"),
    /**
     * Force-stopped in Settings, or installed and never opened: Android's stopped state, in which nothing is
     * delivered to the app, FCM included, until the user opens it.
     */
    FORCE_STOPPED("force_stopped");

    /** Parsing. */
    companion object {
        /** The state named [wire], or null for an unknown name. */
        fun of(wire: String): AppState? = values().firstOrNull { it.wire == wire }
    }
}

/**
 * How an incoming call showed, with the scenario files' names ([wire]) (Swift: `SimulatedConnection.Presentation`).
 * @property wire the protocol's and scenario files' name.
 */
enum class Presentation(val wire: String) {
    /** The app is on screen: its own call screen. */
    IN_APP("in_app"),
    /** The notification's full-screen intent opened the call screen over the lock screen. */
    FULL_SCREEN("full_screen"),
    /** A heads-up notification with Answer and Decline. */
    HEADS_UP("heads_up")
}

/**
 * The Android permissions a calling app's rules depend on, by the protocol's short names ([wire], the scenario
 * files' `permissions` keys) and the manifest's names ([manifestName]).
 * @property wire the protocol's name.
 * @property manifestName `android.permission.…`, as `Context.checkSelfPermission` takes it.
 */
enum class LabPermission(val wire: String, val manifestName: String) {
    /**
     * Android 13 (API 33) runtime permission: without it the app's notifications are not shown, except a
     * `CallStyle` notification while Telecom holds the app's self-managed call (developer.android.com, "Notification
     * runtime permission", Exemptions).
     */
    POST_NOTIFICATIONS("post_notifications", "android.permission.POST_NOTIFICATIONS"),
    /**
     * Android 14 (API 34) restricts it to calling and alarm apps, and the user may revoke it: without it a
     * full-screen intent shows as a heads-up notification (developer.android.com, "Behavior changes: apps targeting
     * Android 14", full-screen intent notifications).
     */
    USE_FULL_SCREEN_INTENT("use_full_screen_intent", "android.permission.USE_FULL_SCREEN_INTENT"),
    /** Runtime permission; a foreground service of type `microphone` needs it from API 34. */
    RECORD_AUDIO("record_audio", "android.permission.RECORD_AUDIO"),
    /**
     * A normal permission, granted at install: `TelecomManager.addNewIncomingCall` on a self-managed account throws
     * `SecurityException` without it, and from API 34 so does a foreground service of type `phoneCall`.
     */
    MANAGE_OWN_CALLS("manage_own_calls", "android.permission.MANAGE_OWN_CALLS");

    /** Parsing. */
    companion object {
        /** The permission named [wire], or null for an unknown name. */
        fun of(wire: String): LabPermission? = values().firstOrNull { it.wire == wire }
    }
}
