package dev.ringer.reactnative

import android.app.Activity
import android.app.Application
import android.os.Bundle

/**
 * Hands the call notifications' intents to the SDK without the app's code: the notifications open the call activity
 * (the app's launch activity unless meta-data says otherwise) with `RingerIntents.ACTION_SHOW_INCOMING_CALL`, and
 * what the SDK's guide asks of the call activity's `onCreate` (`RingerPhone.handleCallIntent`) and of every
 * activity's `onResume` (`appInForeground`, `refreshReadiness`) is done here, from the application's activity
 * lifecycle callbacks. The answer is not an intent of the app's activity: the SDK's `RingerAnswerActivity`, which
 * the answer action starts in front of it, takes it natively, so an answer tapped on the lock screen of a killed app
 * is sent before any JavaScript runs, and one tapped while the app's singleTask activity runs is never lost. That
 * activity gets its intent in `onNewIntent`, which no lifecycle callback sees and `ReactActivity` hands only to the
 * JavaScript instance there is (none during a reload; it skips `super.onNewIntent`, so androidx's
 * `addOnNewIntentListener` never hears it either); what it would add, the microphone of the app in front, comes
 * with its `onResume` here. Callbacks come on the main thread: they read every activity's intent, so nothing in
 * one may throw ([RingerReactHost.handleCallIntent] catches what crafted extras throw), and the readiness check of a
 * resume runs on the host's scope.
 */
internal class CallIntents(private val host: RingerReactHost) : Application.ActivityLifecycleCallbacks {
    override fun onActivityCreated(activity: Activity, savedInstanceState: Bundle?) {
        // A restored activity (savedInstanceState) was created by its first intent already: not answered twice.
        if (savedInstanceState == null) host.handleCallIntent(activity.intent)
    }

    override fun onActivityResumed(activity: Activity) {
        host.appInForeground()
    }

    override fun onActivityStarted(activity: Activity) {}
    override fun onActivityPaused(activity: Activity) {}
    override fun onActivityStopped(activity: Activity) {}
    override fun onActivitySaveInstanceState(activity: Activity, outState: Bundle) {}
    override fun onActivityDestroyed(activity: Activity) {}
}
