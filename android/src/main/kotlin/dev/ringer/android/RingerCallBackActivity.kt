package dev.ringer.android

import android.app.Activity
import android.os.Bundle

/**
 * The system dialer's call back of one of the app's calls in its call log (`TelecomManager.ACTION_CALL_BACK`,
 * Android 16): hands the intent to the process's [RingerPhone] ([RingerPhone.callBackRequest] finds who the call was
 * with, its `callBackRequested` tells the app, and the app's launch activity opens), then finishes unseen.
 *
 * An activity of the SDK's rather than the app's, like [RingerAnswerActivity]: a running `singleTask` activity gets a
 * second intent only in `onNewIntent`, which the app must pass on (React Native's `ReactActivity` hands it to
 * JavaScript alone), so a tap while the app runs would be lost. The library's manifest declares it exported (the
 * dialer starts it) with the action's intent filter, which is also what makes Android log the calls Core-Telecom adds
 * ("VoIP apps should register the intent if they need to integrate the call history into the system call logs",
 * `ACTION_CALL_BACK`). Another app may start it too: it can only ask for a call this phone remembers, which the app
 * still decides to place or not. Main thread.
 */
class RingerCallBackActivity : Activity() {
    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        // A restored instance (savedInstanceState) was created by this tap already.
        if (savedInstanceState == null) RingerComponents.callBacks?.invoke(intent)
        finish()
    }
}
