package dev.ringer.reactnative

import android.content.Context
import android.content.pm.PackageManager
import dev.ringer.android.CallUiKind
import java.net.URI
import java.net.URISyntaxException

/**
 * What the app's manifest tells the native half (`<meta-data>` in `<application>`, which the Expo config plugin
 * writes): the Ringer server, the call activity the notifications open, their small icon, and whether JavaScript
 * wants a Headless JS task after an answer.
 * @property server `dev.ringer.server`, an http(s) URL; null when missing or not one.
 * @property callActivity the class `dev.ringer.call_activity` names, else the app's launch activity
 *   (`PackageManager.getLaunchIntentForPackage`); null only when neither is a class of the app: then there is no phone.
 * @property callActivityProblem why [callActivity] is not the one the meta-data named (a name that is no class of the
 *   app), or why there is none; null when all is well. Logged by the host and part of `configure`'s `not_configured`.
 * @property notificationIcon `dev.ringer.notification_icon` (a drawable resource), else the app's icon; 0 when none.
 * @property headlessTaskAfterAnswer `dev.ringer.headless_task_after_answer` (`android:value="true"`): the app registered
 *   the Headless JS task `RingerCallAnswered` and wants it started after an answer ([CallAnsweredTask]); false when
 *   missing.
 * @property callUiKind `dev.ringer.call_ui`: `core_telecom` is [CallUiKind.CORE_TELECOM]; missing, `connection_service`
 *   or anything else is the SDK's default, [CallUiKind.CONNECTION_SERVICE].
 */
class ManifestSettings(val server: String?, val callActivity: Class<*>?, val notificationIcon: Int,
                       val headlessTaskAfterAnswer: Boolean = false, val callActivityProblem: String? = null,
                       val callUiKind: CallUiKind = CallUiKind.CONNECTION_SERVICE) {
    /** Reading. */
    companion object {
        const val SERVER = "dev.ringer.server"
        const val CALL_ACTIVITY = "dev.ringer.call_activity"
        const val NOTIFICATION_ICON = "dev.ringer.notification_icon"
        const val HEADLESS_TASK_AFTER_ANSWER = "dev.ringer.headless_task_after_answer"
        const val CALL_UI = "dev.ringer.call_ui"

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
            val launch = packages.getLaunchIntentForPackage(context.packageName)?.component?.className
            val (activity, problem) = callActivity(meta?.getString(CALL_ACTIVITY), context.packageName, launch)
            val icon = meta?.getInt(NOTIFICATION_ICON, 0)?.takeIf { it != 0 } ?: info?.icon ?: 0
            val headlessTask = meta?.getBoolean(HEADLESS_TASK_AFTER_ANSWER, false) ?: false
            val callUi = if (meta?.getString(CALL_UI) == "core_telecom") CallUiKind.CORE_TELECOM else CallUiKind.CONNECTION_SERVICE
            return ManifestSettings(server, activity, icon, headlessTask, problem, callUi)
        }

        /** True for an absolute http or https URL with a host: what `configure` and the meta-data accept. */
        @JvmStatic fun isServerUrl(text: String): Boolean = try {
            val uri = URI(text)
            (uri.scheme == "https" || uri.scheme == "http") && !uri.host.isNullOrEmpty()
        } catch (e: URISyntaxException) {
            false
        }

        /**
         * The call activity: the class [named] (the meta-data), else the [launch] activity, so that a phone exists
         * whenever the app has a launch activity.
         *
         * A relative name (".CallActivity", or no dot at all) is expanded as Android expands it, with the namespace
         * (the R class's package), which differs from [packageName], the application id, when the build adds an
         * `applicationIdSuffix`; the namespace is not readable at run time, so the name is tried after the
         * application id, then after the launch activity's package (most apps keep it in the namespace).
         * @return the class (null when none loads) and the problem to report (null when the named class loaded).
         */
        private fun callActivity(named: String?, packageName: String, launch: String?): Pair<Class<*>?, String?> {
            val launchClass = launch?.let { load(it) }
            if (named.isNullOrBlank()) {
                val problem = when {
                    launchClass != null -> null
                    launch != null -> "no call activity: the launch activity $launch cannot be loaded and no meta-data $CALL_ACTIVITY"
                    else -> "no call activity: the app has no launch activity and no meta-data $CALL_ACTIVITY"
                }
                return Pair(launchClass, problem)
            }
            val relative = when {
                named.startsWith(".") -> named
                '.' !in named -> ".$named"
                else -> null
            }
            val candidates = if (relative == null) listOf(named) else
                listOfNotNull(packageName + relative, launch?.substringBeforeLast('.', "")?.takeIf { it.isNotEmpty() }?.plus(relative))
                    .distinct()
            for (candidate in candidates) {
                val loaded = load(candidate)
                if (loaded != null) return Pair(loaded, null)
            }
            val instead = when {
                launchClass != null -> "the launch activity $launch opens calls instead"
                launch != null -> "the launch activity $launch cannot be loaded either: no phone"
                else -> "the app has no launch activity: no phone"
            }
            return Pair(launchClass, "meta-data $CALL_ACTIVITY \"$named\" is no class of this app " +
                "(tried ${candidates.joinToString()}): $instead")
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
