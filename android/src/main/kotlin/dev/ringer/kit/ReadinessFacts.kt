package dev.ringer.kit

/**
 * What the platform layer read about this install, for [ReadinessCheck.evaluate]. Each flag is null when it
 * does not apply on this OS version (e.g. [canUseFullScreenIntent] before Android 14) or could not be read;
 * a null flag reports nothing.
 *
 * @property notificationsEnabled `NotificationManagerCompat.areNotificationsEnabled()`.
 * @property canUseFullScreenIntent `NotificationManager.canUseFullScreenIntent()` (Android 14, API 34+).
 * @property ignoringBatteryOptimizations `PowerManager.isIgnoringBatteryOptimizations(packageName)`.
 * @property canManageOwnCalls `MANAGE_OWN_CALLS` granted and the self-managed phone account enabled.
 * @property fcmToken the FCM registration token held; null when none. Never logged: `toString` omits it.
 * @property tokenObtainedAtMs when the app got [fcmToken] (first issue or last `onNewToken`), Unix
 *   milliseconds; null when unknown.
 */
data class ReadinessFacts(val notificationsEnabled: Boolean? = null,
                          val canUseFullScreenIntent: Boolean? = null,
                          val ignoringBatteryOptimizations: Boolean? = null,
                          val canManageOwnCalls: Boolean? = null,
                          val fcmToken: String? = null,
                          val tokenObtainedAtMs: Long? = null) {
    /** The facts without the token itself, which is a credential of a kind. */
    override fun toString(): String =
        "ReadinessFacts(notificationsEnabled=$notificationsEnabled, canUseFullScreenIntent=$canUseFullScreenIntent, " +
            "ignoringBatteryOptimizations=$ignoringBatteryOptimizations, canManageOwnCalls=$canManageOwnCalls, " +
            "fcmToken=${if (fcmToken == null) "none" else "present"}, tokenObtainedAtMs=$tokenObtainedAtMs)"
}
