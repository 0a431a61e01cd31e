package dev.ringer.android

import android.content.BroadcastReceiver
import android.content.Context
import android.content.Intent

/**
 * Receives the notifications' decline and hang-up actions (their `PendingIntent.getBroadcast` targets) and
 * calls the core directly. It never starts an activity: Android 12 forbids starting one from a receiver or
 * service a notification started (the "notification trampoline" rule), so the answer action starts activities
 * instead ([RingerAnswerActivity] in front of the app's call activity). The broadcast is kept alive (`goAsync`) until the core has the decline.
 */
class RingerActionReceiver : BroadcastReceiver() {
    /** Handles [RingerIntents.ACTION_DECLINE] and [RingerIntents.ACTION_HANG_UP] for [RingerIntents.EXTRA_CALL_ID]. */
    override fun onReceive(context: Context, intent: Intent) {
        val callId = intent.getStringExtra(RingerIntents.EXTRA_CALL_ID) ?: return
        val callUi = RingerComponents.callUi ?: return
        val action = intent.action
        if (action != RingerIntents.ACTION_DECLINE && action != RingerIntents.ACTION_HANG_UP) return
        val pending = goAsync()
        val done: (Boolean) -> Unit = { pending.finish() }
        if (action == RingerIntents.ACTION_DECLINE) callUi.decline(callId, done) else callUi.hangUp(callId, done)
    }
}
