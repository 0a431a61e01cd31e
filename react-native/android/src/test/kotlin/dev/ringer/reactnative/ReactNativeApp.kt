package dev.ringer.reactnative

import android.app.Application
import android.app.Notification
import android.app.PendingIntent
import dev.ringer.android.IncomingCallNotification
import dev.ringer.android.RingerPhone
import dev.ringer.e2e.SimulatedAndroidPhone

/**
 * A React Native app with `@ringer/react-native` on a [SimulatedAndroidPhone]: each process starts as the library's
 * manifest starts it, the host first ([RingerReactHost], as RingerInitProvider creates it, here with the process's
 * network and lifetime), and no JavaScript until the test makes one ([javaScript]). Pass [start] as the phone's
 * `startApp`.
 * @param headlessTaskAfterAnswer whether the app's manifest opts in to the Headless JS task after an answer.
 */
class ReactNativeApp(private val headlessTaskAfterAnswer: Boolean = false) {
    /** The live process's Application, over the phone's context. */
    @Volatile var application: Application? = null
        private set

    /** A new process: the merged manifest's meta-data names the cluster's server; the host is created first. */
    fun start(start: SimulatedAndroidPhone.AppStart): RingerPhone {
        val application = ReactNativeRig.application(start.context, start.serverUrl)
        if (headlessTaskAfterAnswer) {
            start.context.packageManager.mirrorApplicationInfo.metaData.putBoolean(ManifestSettings.HEADLESS_TASK_AFTER_ANSWER, true)
        }
        this.application = application
        RingerReactHost.current = null
        val host = RingerReactHost.start(application) { context ->
            RingerReactHost(context, makePhone = { setup ->
                RingerPhone(setup.context, setup.server, setup.notifications, http = start.http, webSockets = start.webSockets,
                            scope = start.scope,
                            streamStatus = { status -> start.streamStatus(status); setup.streamStatus(status) },
                            readinessChanged = setup.readinessChanged,
                            observer = { observation -> start.observer(observation); setup.observer(observation) })
            }, scope = start.scope)
        }
        return host.phone ?: throw AssertionError("the host started no phone")
    }

    /** JavaScript starts in the live process (React Native creates the module when JavaScript looks it up). */
    fun javaScript(): JavaScript = JavaScript(application ?: throw AssertionError("no app process"))

    /**
     * The user taps [pick]'s action of the ringing call's notification: Android starts the activities its intents
     * name, in front (the answer's RingerAnswerActivity, then the app's launch activity beneath it), and the
     * application's activity callbacks see them ([ReactNativeRig.tap]).
     */
    fun tap(process: SimulatedAndroidPhone.AppProcess, callId: String, pick: (Notification) -> PendingIntent?) {
        val notification = process.context.notificationManager.mirrorShowing["$callId/${IncomingCallNotification.NOTIFICATION_ID}"]
            ?: throw AssertionError("no ringing notification for $callId")
        val pending = pick(notification) ?: throw AssertionError("the notification has no such action")
        process.context.appVisible = true
        ReactNativeRig.tap(application ?: throw AssertionError("no app process"), process.context, pending)
    }
}
