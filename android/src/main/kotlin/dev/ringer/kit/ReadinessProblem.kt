package dev.ringer.kit

/**
 * The names of what would stop a phone ringing for a call, as the SDK sees it before any call comes: the
 * readiness pre-flight sent in `PUT /v1/devices/{device_id}` ([DeviceReadiness.problems]).
 *
 * The vocabulary is open, so problems are plain strings: a newer SDK or server may use a name this build has
 * never heard of, and it is kept and shown as it is. These are the names this build knows.
 */
object ReadinessProblem {
    /**
     * The user turned the app's notifications off (`NotificationManagerCompat.areNotificationsEnabled()` false) or,
     * on Android, its incoming-call channel: a missed call then shows nothing. On Android 13+ a ringing self-managed
     * call still shows and rings (its CallStyle notification is exempt while Telecom holds the call), silently when
     * the incoming-call channel is off; before 13, or without Telecom, it shows no call screen and plays no ringtone.
     */
    const val NOTIFICATIONS_DISABLED = "notifications_disabled"

    /**
     * Android 14+: the app may not use full-screen intents (`NotificationManager.canUseFullScreenIntent()` false),
     * so a call on a locked phone is only a heads-up notification.
     */
    const val FULL_SCREEN_INTENT_DENIED = "full_screen_intent_denied"

    /**
     * The app is under battery optimisation (`PowerManager.isIgnoringBatteryOptimizations` false), so Doze and
     * App Standby may delay its messages.
     */
    const val BATTERY_OPTIMIZED = "battery_optimized"

    /** The phone holds no FCM registration token, so it can ring only while its app holds the event stream. */
    const val NO_PUSH_TOKEN = "no_push_token"

    /**
     * The FCM token is older than FCM keeps an inactive one (270 days, Firebase: "Best practices for FCM
     * registration token management"): messages to it may no longer arrive.
     */
    const val PUSH_TOKEN_STALE = "push_token_stale"

    /** The app may not show calls (`MANAGE_OWN_CALLS` missing, or its phone account disabled). */
    const val CALLS_NOT_PERMITTED = "calls_not_permitted"

    /** The names this build knows, in the documented order. */
    val KNOWN: List<String> = listOf(NOTIFICATIONS_DISABLED, FULL_SCREEN_INTENT_DENIED, BATTERY_OPTIMIZED,
                                     NO_PUSH_TOKEN, PUSH_TOKEN_STALE, CALLS_NOT_PERMITTED)

    /** The longest name the server keeps, in bytes. */
    const val MAX_LENGTH = 64

    /**
     * Whether [name] is a name the server keeps: lowercase snake_case of 1 to [MAX_LENGTH] ASCII characters, a
     * letter first, then letters, digits and single `_` between them (the server's rule, docs/openapi.yaml
     * `ReadinessProblem`).
     */
    fun isWellFormed(name: String): Boolean {
        if (name.length == 0 || name.length > MAX_LENGTH || name[0] !in 'a'..'z' || name[name.length - 1] == '_') return false
        var previous = ' '
        for (char in name) {
            if (char !in 'a'..'z' && char !in '0'..'9' && char != '_') return false
            if (char == '_' && previous == '_') return false
            previous = char
        }
        return true
    }
}
