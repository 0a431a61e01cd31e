package dev.ringer.android

/**
 * The intent actions and extras the adapters use between their own components (notification actions, the
 * app's call activity, the foreground service, Telecom's extras). Names are namespaced to this library so they
 * never clash with the app's.
 */
object RingerIntents {
    /**
     * Answer the call in [EXTRA_CALL_ID]: the notification's answer action sends it to [RingerAnswerActivity];
     * [RingerPhone.handleCallIntent] still answers it (a notification an earlier SDK version posted sent it to the
     * app's call activity).
     */
    const val ACTION_ANSWER = "dev.ringer.android.action.ANSWER"
    /**
     * Sent to the app's call activity as the full-screen and content intent, and beneath [RingerAnswerActivity] by the
     * answer action: show the ringing or answered call.
     */
    const val ACTION_SHOW_INCOMING_CALL = "dev.ringer.android.action.SHOW_INCOMING_CALL"
    /** Broadcast to [RingerActionReceiver] by the notification's decline action. */
    const val ACTION_DECLINE = "dev.ringer.android.action.DECLINE"
    /** Broadcast to [RingerActionReceiver] by the ongoing call's hang-up action. */
    const val ACTION_HANG_UP = "dev.ringer.android.action.HANG_UP"

    /** The server's call id (a lowercase UUID string). */
    const val EXTRA_CALL_ID = "dev.ringer.android.extra.CALL_ID"
    /** The caller's (or callee's) user id. */
    const val EXTRA_PEER_ID = "dev.ringer.android.extra.PEER_ID"
    /** The caller's (or callee's) display name, when known. */
    const val EXTRA_PEER_NAME = "dev.ringer.android.extra.PEER_NAME"
    /** Whether the call offers video (boolean). */
    const val EXTRA_HAS_VIDEO = "dev.ringer.android.extra.HAS_VIDEO"
    /**
     * For [CallForegroundService]: whether to ask for the microphone type (boolean): true once the user answered or
     * dialled the call.
     */
    const val EXTRA_MICROPHONE = "dev.ringer.android.extra.MICROPHONE"
}
