package dev.ringer.android

import android.Manifest
import android.app.NotificationManager
import android.content.Context
import android.content.pm.PackageManager
import android.os.Build
import android.os.PowerManager
import dev.ringer.kit.ReadinessFacts

/**
 * The facts about this phone that decide whether a call can ring, read from the system: the inputs of the
 * core's readiness check (docs/android-integration.md, "The platform's rules").
 *
 * @property notificationsEnabled `NotificationManager.areNotificationsEnabled()` (Android 13: `POST_NOTIFICATIONS`),
 *   and the incoming-call channel not turned off by the user (`IMPORTANCE_NONE`). Telecom shows and plays nothing
 *   for a self-managed call: without them the call is still reported, but the phone shows no call screen and plays
 *   no ringtone, and no missed-call notification appears.
 * @property fullScreenIntentAllowed `canUseFullScreenIntent()` on API 34+, always true before; without it a
 *   locked phone shows a heads-up notification instead of the call screen.
 * @property ignoringBatteryOptimizations `PowerManager.isIgnoringBatteryOptimizations(packageName)`.
 * @property manageOwnCallsGranted `MANAGE_OWN_CALLS` granted; without it no call rings on this phone.
 */
data class AndroidReadinessFacts(
    val sdkInt: Int,
    val notificationsEnabled: Boolean,
    val fullScreenIntentAllowed: Boolean,
    val ignoringBatteryOptimizations: Boolean,
    val manageOwnCallsGranted: Boolean
)

/** Reads [AndroidReadinessFacts]; thin by design: every judgement is the core's. */
class AndroidReadiness(
    private val context: Context,
    private val notifications: NotificationManager,
    private val power: PowerManager,
    private val sdkInt: Int = Build.VERSION.SDK_INT
) {
    /** The facts now (cheap binder calls; call on any thread). */
    fun read(): AndroidReadinessFacts = AndroidReadinessFacts(
        sdkInt = sdkInt,
        notificationsEnabled = notifications.areNotificationsEnabled() &&
            notifications.getNotificationChannel(IncomingCallNotification.INCOMING_CHANNEL_ID)?.importance != NotificationManager.IMPORTANCE_NONE,
        fullScreenIntentAllowed = sdkInt < Build.VERSION_CODES.UPSIDE_DOWN_CAKE || notifications.canUseFullScreenIntent(),
        ignoringBatteryOptimizations = power.isIgnoringBatteryOptimizations(context.packageName),
        manageOwnCallsGranted =
            context.checkSelfPermission(Manifest.permission.MANAGE_OWN_CALLS) == PackageManager.PERMISSION_GRANTED
    )
}

/**
 * These facts as the core's [ReadinessFacts], for `ReadinessCheck.evaluate` and the device's readiness report.
 * `canUseFullScreenIntent` is null below API 34, where the permission does not exist (every app may use a
 * full-screen intent), so no `full_screen_intent_denied` can be reported there.
 * @param fcmToken the FCM registration token held, or null; carried, never logged ([ReadinessFacts.toString]).
 * @param tokenObtainedAtMs when the app got [fcmToken], Unix milliseconds; null when unknown.
 */
fun AndroidReadinessFacts.toReadinessFacts(fcmToken: String?, tokenObtainedAtMs: Long?): ReadinessFacts = ReadinessFacts(
    notificationsEnabled = notificationsEnabled,
    canUseFullScreenIntent = if (sdkInt >= Build.VERSION_CODES.UPSIDE_DOWN_CAKE) fullScreenIntentAllowed else null,
    ignoringBatteryOptimizations = ignoringBatteryOptimizations,
    canManageOwnCalls = manageOwnCallsGranted,
    fcmToken = fcmToken,
    tokenObtainedAtMs = tokenObtainedAtMs
)
