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
 *   for a self-managed call, so the ringing notification is the call's only screen and ringtone. With the app's
 *   notifications off, Android 13+ still shows it (a CallStyle notification while Telecom holds the app's
 *   self-managed call is exempt: developer.android.com, "Notification runtime permission", Exemptions) but drops
 *   every other one, a missed call's included; before Android 13, or on a device without Telecom, nothing shows or
 *   plays. With the incoming-call channel off, the call shows no pop-up and plays no ringtone.
 * @property fullScreenIntentAllowed `canUseFullScreenIntent()` on API 34+, always true before; without it a
 *   locked phone shows a heads-up notification instead of the call screen.
 * @property ignoringBatteryOptimizations `PowerManager.isIgnoringBatteryOptimizations(packageName)`.
 * @property manageOwnCallsGranted `MANAGE_OWN_CALLS` granted; without it no call rings on this phone.
 * @property telecomAvailable the device has Telecom ([AndroidReadiness.telecomSupported]); without it calls ring as
 *   notifications only ([AndroidReadinessProblem.TELECOM_UNSUPPORTED]).
 */
data class AndroidReadinessFacts(
    val sdkInt: Int,
    val notificationsEnabled: Boolean,
    val fullScreenIntentAllowed: Boolean,
    val ignoringBatteryOptimizations: Boolean,
    val manageOwnCallsGranted: Boolean,
    val telecomAvailable: Boolean = true
) {
    /**
     * The problems only Android has ([AndroidReadinessProblem]), to add to the core's `ReadinessCheck.evaluate`
     * for the device's readiness report; empty when none.
     */
    fun androidProblems(): List<String> =
        if (telecomAvailable) emptyList() else listOf(AndroidReadinessProblem.TELECOM_UNSUPPORTED)
}

/**
 * Reads [AndroidReadinessFacts]; thin by design: every judgement is the core's, but for [AndroidReadinessFacts.androidProblems].
 * @param telecomAvailable whether calls go through Telecom (the call UI's [TelecomCallUi.telecomAvailable]).
 */
class AndroidReadiness(
    private val context: Context,
    private val notifications: NotificationManager,
    private val power: PowerManager,
    private val sdkInt: Int = Build.VERSION.SDK_INT,
    private val telecomAvailable: Boolean = true
) {
    /** The facts now (cheap binder calls; call on any thread). */
    fun read(): AndroidReadinessFacts = AndroidReadinessFacts(
        sdkInt = sdkInt,
        notificationsEnabled = notifications.areNotificationsEnabled() &&
            notifications.getNotificationChannel(IncomingCallNotification.INCOMING_CHANNEL_ID)?.importance != NotificationManager.IMPORTANCE_NONE,
        fullScreenIntentAllowed = sdkInt < Build.VERSION_CODES.UPSIDE_DOWN_CAKE || notifications.canUseFullScreenIntent(),
        ignoringBatteryOptimizations = power.isIgnoringBatteryOptimizations(context.packageName),
        manageOwnCallsGranted =
            context.checkSelfPermission(Manifest.permission.MANAGE_OWN_CALLS) == PackageManager.PERMISSION_GRANTED,
        telecomAvailable = telecomAvailable
    )

    /** Telecom's presence on a device. */
    companion object {
        /**
         * Whether the device has Telecom, which a self-managed `ConnectionService` needs: `FEATURE_TELECOM` from
         * API 33, `FEATURE_CONNECTION_SERVICE` (deprecated by it) before. Phones have it; tablets, Chromebooks and
         * watches may not (developer.android.com/develop/connectivity/telecom/voip-app, "Supported telecom devices").
         */
        @JvmStatic fun telecomSupported(context: Context, sdkInt: Int = Build.VERSION.SDK_INT): Boolean {
            val feature = if (sdkInt >= Build.VERSION_CODES.TIRAMISU) PackageManager.FEATURE_TELECOM
                          else PackageManager.FEATURE_CONNECTION_SERVICE
            return context.packageManager.hasSystemFeature(feature)
        }
    }
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
