package dev.ringer.reactnative

import android.content.Context
import android.content.pm.PackageManager
import java.net.URI
import java.net.URISyntaxException

/**
 * What the app's manifest tells the native half (`<meta-data>` in `<application>`, which the Expo config plugin
 * writes): the Ringer server, the call activity the notifications open, their small icon, and whether JavaScript
 * wants a Headless JS task after an answer.
 * @property server `dev.ringer.server`, an http(s) URL; null when missing or not one.
 * @property callActivity `dev.ringer.call_activity` (a class name; a leading "." is relative to the package), else
 *   the app's launch activity (`PackageManager.getLaunchIntentForPackage`); null when neither names a class.
 * @property notificationIcon `dev.ringer.notification_icon` (a drawable resource), else the app's icon; 0 when none.
 * @property headlessTaskAfterAnswer `dev.ringer.headless_task_after_answer` (`android:value="true"`): the app registered
 *   the Headless JS task `RingerCallAnswered` and wants it started after an answer ([CallAnsweredTask]); false when
 *   missing.
 */
class ManifestSettings(val server: String?, val callActivity: Class<*>?, val notificationIcon: Int,
                       val headlessTaskAfterAnswer: Boolean = false) {
    /** Reading. */
    companion object {
        const val SERVER = "dev.ringer.server"
        const val CALL_ACTIVITY = "dev.ringer.call_activity"
        const val NOTIFICATION_ICON = "dev.ringer.notification_icon"
        const val HEADLESS_TASK_AFTER_ANSWER = "dev.ringer.headless_task_after_answer"

        /** Reads the app's manifest; never throws (what cannot be read is missing). */
        @JvmStatic fun read(context: Context): ManifestSettings {
            val packages = context.packageManager
            val info = try {
                packages.getApplicationInfo(context.packageName, PackageManager.GET_META_DATA)
            } catch (e: PackageManager.NameNotFoundException) {
                null
            }
            val meta = info?.metaData
            val server = meta?.getString(SERVER)?.takeIf { isServerUrl(it) }
            val activityName = meta?.getString(CALL_ACTIVITY)?.let { if (it.startsWith(".")) context.packageName + it else it }
                ?: packages.getLaunchIntentForPackage(context.packageName)?.component?.className
            val icon = meta?.getInt(NOTIFICATION_ICON, 0)?.takeIf { it != 0 } ?: info?.icon ?: 0
            val headlessTask = meta?.getBoolean(HEADLESS_TASK_AFTER_ANSWER, false) ?: false
            return ManifestSettings(server, activityName?.let { load(it) }, icon, headlessTask)
        }

        /** True for an absolute http or https URL with a host: what `configure` and the meta-data accept. */
        @JvmStatic fun isServerUrl(text: String): Boolean = try {
            val uri = URI(text)
            (uri.scheme == "https" || uri.scheme == "http") && !uri.host.isNullOrEmpty()
        } catch (e: URISyntaxException) {
            false
        }

        private fun load(className: String): Class<*>? = try {
            Class.forName(className, false, ManifestSettings::class.java.classLoader)
        } catch (e: ClassNotFoundException) {
            null
        } catch (e: LinkageError) {
            null
        }
    }
}
