package dev.ringer.android

import android.app.Activity
import android.os.Bundle

/**
 * The ringing notification's answer action: answers the call natively in `onCreate` and finishes, never shown, so
 * the app's call activity, which the same tap opens beneath it ([IncomingCallNotification]), only shows the call.
 *
 * Why the answer is not the call activity's: a running `singleTask` activity gets a second intent in `onNewIntent`
 * only, which the app must pass on, and React Native's `ReactActivity` hands it to the current JavaScript instance
 * alone (no super call, so androidx's `addOnNewIntentListener` never hears it either): during a JavaScript reload
 * the tap was lost and the call kept ringing. This activity is created anew by every tap (standard launch mode), so
 * `onCreate` always sees the answer, with or without the app's code or JavaScript. An activity rather than
 * [RingerActionReceiver]: a tap's activity start is what brings the call screen up (Android 12 forbids a receiver a
 * notification started to start one) and lets the call's foreground service have the microphone (the app is in
 * front: developer.android.com, "Restrictions on starting a foreground service from the background").
 *
 * The library's manifest declares it not exported, with `Theme.NoDisplay` (it finishes in `onCreate`, as that theme
 * requires) and `showWhenLocked`, so the tap works over the lock screen, where Android checks the front activity of
 * the tap's intents. Main thread.
 */
class RingerAnswerActivity : Activity() {
    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        // A restored instance (savedInstanceState) was created by this tap already; answering twice is harmless
        // all the same (an answering call is not answered again).
        val callId = intent?.getStringExtra(RingerIntents.EXTRA_CALL_ID)
        val callUi = RingerComponents.callUi
        if (savedInstanceState == null && intent?.action == RingerIntents.ACTION_ANSWER && callId != null && callUi != null) {
            callUi.answer(callId)
        }
        finish()
    }
}
