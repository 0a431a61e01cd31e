package dev.ringer.android

/**
 * The app's parts of the call notifications: its call activity, its icons and its (localised) words.
 *
 * @property callActivity the app's call screen. It receives [RingerIntents.ACTION_SHOW_INCOMING_CALL] (full-screen
 *   and content intent) and [RingerIntents.ACTION_ANSWER] (the answer action), each with
 *   [RingerIntents.EXTRA_CALL_ID], and passes them to `RingerPhone.handleCallIntent`.
 * @property smallIcon the notifications' small icon (a drawable resource id).
 * @property actionIcon the icon of the answer/decline/hang-up actions before API 31 (CallStyle draws its own).
 * @property microphoneOffText the ongoing call's text while Android withholds the microphone (answered from a
 *   headset, car or watch while the app was in the background): tapping the notification opens the call activity,
 *   and the microphone starts then.
 */
data class CallNotificationConfig(
    val callActivity: Class<*>,
    val smallIcon: Int,
    val actionIcon: Int = smallIcon,
    val incomingChannelName: String = "Incoming calls",
    val ongoingChannelName: String = "Ongoing calls",
    val incomingText: String = "Incoming call",
    val incomingVideoText: String = "Incoming video call",
    val ongoingText: String = "Ongoing call",
    val answerLabel: String = "Answer",
    val declineLabel: String = "Decline",
    val hangUpLabel: String = "Hang up",
    val microphoneOffText: String = "Microphone off: tap to turn it on"
)
