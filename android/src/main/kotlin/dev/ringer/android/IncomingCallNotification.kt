package dev.ringer.android

import android.app.Notification
import android.app.NotificationChannel
import android.app.NotificationManager
import android.app.PendingIntent
import android.app.Person
import android.content.Context
import android.content.Intent
import android.graphics.drawable.Icon
import android.media.AudioAttributes
import android.media.RingtoneManager
import android.net.Uri
import android.os.Build
import dev.ringer.kit.IncomingCallReport
import dev.ringer.kit.Party

/**
 * The ringing call's notification, posted when Telecom calls `onShowIncomingCallUi` (a self-managed app
 * shows its own incoming-call UI), and the ongoing call's notification its foreground service shows.
 *
 * Android's rules it follows: a channel with `IMPORTANCE_HIGH` and `CATEGORY_CALL`, ongoing
 * (Android: "Create a call style notification"); `Notification.CallStyle.forIncomingCall` from API 31; the
 * full-screen intent always requested, and Android decides: from API 34 without `USE_FULL_SCREEN_INTENT`
 * (`NotificationManager.canUseFullScreenIntent()` false) it shows a heads-up notification instead. Withholding
 * the request would make the system refuse a CallStyle notification that is not a foreground service's
 * (`IllegalArgumentException`, "CallStyle notifications must either be for a foreground Service or use a
 * fullScreenIntent"), which crashed the app on Android 14; a refusal all the same (some OEM builds) posts the
 * notification without CallStyle. Each action's `PendingIntent` goes straight to its target, never through a
 * trampoline (Android 12: no activity starts from a receiver or service a notification started): answer starts two
 * activities at once (`getActivities`), the app's call activity showing the call and, in front of it,
 * [RingerAnswerActivity], which answers natively and finishes (so an app's running `singleTask` activity, whose
 * `onNewIntent` may not reach the SDK, cannot lose the answer); decline goes to [RingerActionReceiver]
 * (`getBroadcast`); `FLAG_IMMUTABLE` everywhere (required from API 31). Each intent carries its call as its data (`ringer-call:<id>`), so two calls'
 * intents are distinct `PendingIntent`s by Android's identity (`Intent.filterEquals`, which ignores extras)
 * even when their request codes collide.
 *
 * @param sdkInt the device's API level (`Build.VERSION.SDK_INT`).
 */
class IncomingCallNotification(
    private val context: Context,
    private val manager: NotificationManager,
    val config: CallNotificationConfig,
    private val sdkInt: Int = Build.VERSION.SDK_INT
) {
    /**
     * Posts the ringing call's notification (tag: the call id), or replaces it. Never throws for the system's
     * refusal of the CallStyle form: it then posts the plain form with the same actions and intents.
     *
     * Without `POST_NOTIFICATIONS` (Android 13+) Android still shows the CallStyle form while Telecom holds the
     * app's self-managed call (developer.android.com, "Notification runtime permission", Exemptions: apps that
     * self-manage phone calls), so the call still rings; the plain form, a call without Telecom, and any
     * notification before Android 13 with the app's notifications blocked are dropped.
     * @param silent the ringer was silenced (`Connection.onSilence`): posted with `setOnlyAlertOnce(true)` and not
     *   insistent, which stops the channel's ringtone and vibration while the call still shows as ringing.
     */
    fun show(report: IncomingCallReport, silent: Boolean = false) {
        createChannels()
        try {
            manager.notify(report.callId, NOTIFICATION_ID, build(report, silent = silent))
        } catch (e: IllegalArgumentException) {
            manager.notify(report.callId, NOTIFICATION_ID, build(report, callStyle = false, silent = silent))
        }
    }

    /**
     * Posts the answered or dialled call's ongoing notification in place of its ringing one (the same tag and id), for a
     * call UI whose calls hold no foreground service: Core-Telecom gives a call "foreground execution priority" while
     * the app posts a `CallStyle` notification for it within 5 s of `addCall` (`CallsManager.addCall`'s KDoc). A
     * `CallStyle` notification that is not a foreground service's needs a full-screen intent (else
     * `IllegalArgumentException`), so it has the call activity's; a refusal all the same posts the plain form.
     */
    fun showOngoing(callId: String, peer: Party) {
        try {
            manager.notify(callId, NOTIFICATION_ID, buildOngoing(callId, peer, fullScreen = true))
        } catch (e: IllegalArgumentException) {
            manager.notify(callId, NOTIFICATION_ID, buildOngoing(callId, peer, callStyle = false))
        }
    }

    /** Removes the call's ringing (or [showOngoing]) notification, if posted. */
    fun cancel(callId: String) {
        manager.cancel(callId, NOTIFICATION_ID)
    }

    /**
     * The ringing call's notification, for [show] (and for apps that post it themselves).
     * @param callStyle whether to use `Notification.CallStyle` (API 31+); false gives plain actions.
     * @param silent for a silenced ringer: alerts only if not already showing (`setOnlyAlertOnce`), not insistent.
     */
    fun build(report: IncomingCallReport, callStyle: Boolean = sdkInt >= Build.VERSION_CODES.S, silent: Boolean = false): Notification {
        val name = displayName(report.caller)
        val show = activityIntent(RingerIntents.ACTION_SHOW_INCOMING_CALL, report.callId, REQUEST_SHOW)
        val answer = answerIntent(report.callId)
        val decline = receiverIntent(RingerIntents.ACTION_DECLINE, report.callId, REQUEST_DECLINE)
        val builder = Notification.Builder(context, INCOMING_CHANNEL_ID)
            .setSmallIcon(config.smallIcon)
            .setContentTitle(name)
            .setContentText(if (report.hasVideo) config.incomingVideoText else config.incomingText)
            .setCategory(Notification.CATEGORY_CALL)
            .setOngoing(true)
            .setContentIntent(show)
            .setFullScreenIntent(show, true)
        if (callStyle) {
            builder.setStyle(Notification.CallStyle.forIncomingCall(person(report.caller), decline, answer))
        } else {
            builder.addAction(action(config.declineLabel, decline))
            builder.addAction(action(config.answerLabel, answer))
        }
        // Android: re-posting with only-alert-once stops the channel's sound now playing (Connection.onSilence).
        if (silent) builder.setOnlyAlertOnce(true)
        val notification = builder.build()
        // The ringtone repeats until the notification goes (the call is answered, declined or over) or is silenced.
        if (!silent) notification.flags = notification.flags or Notification.FLAG_INSISTENT
        return notification
    }

    /**
     * The notification an answered or dialled call's foreground service shows: ongoing, `CATEGORY_CALL`, a
     * hang-up action to [RingerActionReceiver]; `CallStyle.forOngoingCall` from API 31. Its content intent opens
     * the app's call activity, which is also how the user turns a refused microphone on.
     * @param microphoneOff Android refused the microphone (the app was in the background): the text says so
     *   ([CallNotificationConfig.microphoneOffText]).
     * @param callStyle whether to use `Notification.CallStyle` (API 31+); false gives a plain hang-up action.
     * @param fullScreen whether the content intent is also the full-screen intent ([showOngoing]).
     */
    fun buildOngoing(
        callId: String,
        peer: Party,
        microphoneOff: Boolean = false,
        callStyle: Boolean = sdkInt >= Build.VERSION_CODES.S,
        fullScreen: Boolean = false
    ): Notification {
        createChannels()
        val show = activityIntent(RingerIntents.ACTION_SHOW_INCOMING_CALL, callId, REQUEST_SHOW)
        val hangUp = receiverIntent(RingerIntents.ACTION_HANG_UP, callId, REQUEST_HANG_UP)
        val builder = Notification.Builder(context, ONGOING_CHANNEL_ID)
            .setSmallIcon(config.smallIcon)
            .setContentTitle(displayName(peer))
            .setContentText(if (microphoneOff) config.microphoneOffText else config.ongoingText)
            .setCategory(Notification.CATEGORY_CALL)
            .setOngoing(true)
            .setContentIntent(show)
        if (fullScreen) builder.setFullScreenIntent(show, true)
        if (callStyle) {
            builder.setStyle(Notification.CallStyle.forOngoingCall(person(peer), hangUp))
        } else {
            builder.addAction(action(config.hangUpLabel, hangUp))
        }
        return builder.build()
    }

    /**
     * Creates the two channels (idempotent: Android keeps the user's changes to an existing channel, and the app's
     * own later changes are ignored, so these settings are final once a phone has the channel). The incoming one
     * rings: Telecom plays nothing for a self-managed call, so the channel carries the user's ringtone
     * (`RingtoneManager.TYPE_RINGTONE`, `USAGE_NOTIFICATION_RINGTONE`) and vibrates, and the notification repeats
     * it (`FLAG_INSISTENT`) until it is cancelled: answered, declined or ended (Android: "Create a call style
     * notification", VoIP app notifications).
     */
    fun createChannels() {
        val incoming = NotificationChannel(INCOMING_CHANNEL_ID, config.incomingChannelName, NotificationManager.IMPORTANCE_HIGH)
        incoming.setSound(
            RingtoneManager.getDefaultUri(RingtoneManager.TYPE_RINGTONE),
            AudioAttributes.Builder().setUsage(AudioAttributes.USAGE_NOTIFICATION_RINGTONE)
                .setContentType(AudioAttributes.CONTENT_TYPE_SONIFICATION).build()
        )
        incoming.enableVibration(true)
        incoming.setVibrationPattern(RING_VIBRATION_MS)
        manager.createNotificationChannel(incoming)
        manager.createNotificationChannel(
            NotificationChannel(ONGOING_CHANNEL_ID, config.ongoingChannelName, NotificationManager.IMPORTANCE_LOW)
        )
    }

    private fun displayName(party: Party): String = party.name?.takeIf { it.isNotEmpty() } ?: party.id

    private fun person(party: Party): Person = Person.Builder().setName(displayName(party)).setKey(party.id).build()

    private fun action(label: String, intent: PendingIntent): Notification.Action =
        Notification.Action.Builder(Icon.createWithResource(context, config.actionIcon), label, intent).build()

    private fun activityIntent(action: String, callId: String, kind: Int): PendingIntent =
        PendingIntent.getActivity(context, requestCode(callId, kind), callActivityIntent(action, callId), FLAGS)

    private fun callActivityIntent(action: String, callId: String): Intent =
        Intent(context, config.callActivity)
            .setAction(action)
            .setData(callUri(callId))
            .putExtra(RingerIntents.EXTRA_CALL_ID, callId)
            .addFlags(Intent.FLAG_ACTIVITY_NEW_TASK)

    /**
     * The answer action: the call activity (as the content intent opens it) with [RingerAnswerActivity] in front, in
     * one start; the front one gives the token its identity and is what Android checks over the lock screen.
     */
    private fun answerIntent(callId: String): PendingIntent {
        val answer = Intent(context, RingerAnswerActivity::class.java)
            .setAction(RingerIntents.ACTION_ANSWER)
            .setData(callUri(callId))
            .putExtra(RingerIntents.EXTRA_CALL_ID, callId)
        val show = callActivityIntent(RingerIntents.ACTION_SHOW_INCOMING_CALL, callId)
        return PendingIntent.getActivities(context, requestCode(callId, REQUEST_ANSWER), arrayOf(show, answer), FLAGS)
    }

    private fun receiverIntent(action: String, callId: String, kind: Int): PendingIntent {
        val intent = Intent(context, RingerActionReceiver::class.java)
            .setAction(action)
            .setData(callUri(callId))
            .putExtra(RingerIntents.EXTRA_CALL_ID, callId)
        return PendingIntent.getBroadcast(context, requestCode(callId, kind), intent, FLAGS)
    }

    /** The call as the intent's data: part of the intent's identity, unlike its extras. */
    private fun callUri(callId: String): Uri = Uri.fromParts(CALL_URI_SCHEME, callId, null)

    /** A request code per call and action; two calls may share one (a 32-bit hash), which [callUri] makes harmless. */
    private fun requestCode(callId: String, kind: Int): Int = callId.hashCode() * 4 + kind

    /** Ids and flags. */
    companion object {
        /** The ringing calls' channel (`IMPORTANCE_HIGH`). */
        const val INCOMING_CHANNEL_ID = "ringer_incoming_calls"
        /** The ringing channel's vibration: on 1 s, off 1 s, repeated with the ringtone (milliseconds). */
        private val RING_VIBRATION_MS = longArrayOf(0, 1000, 1000)
        /** The ongoing calls' channel (`IMPORTANCE_LOW`: shown, never ringing). */
        const val ONGOING_CHANNEL_ID = "ringer_ongoing_calls"
        /** The notification id under each call's tag. */
        const val NOTIFICATION_ID = 0x52494E47
        /** The scheme of the notification intents' data URI, `ringer-call:<call id>`. */
        const val CALL_URI_SCHEME = "ringer-call"
        private const val FLAGS = PendingIntent.FLAG_IMMUTABLE or PendingIntent.FLAG_UPDATE_CURRENT
        private const val REQUEST_SHOW = 0
        private const val REQUEST_ANSWER = 1
        private const val REQUEST_DECLINE = 2
        private const val REQUEST_HANG_UP = 3
    }
}
