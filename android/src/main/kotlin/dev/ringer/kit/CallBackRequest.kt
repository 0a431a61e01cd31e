package dev.ringer.kit

/**
 * A tap on a Ringer call in the phone's own call history: the user asks to call that person back (Swift: RingerKit's
 * `CallBackRequest`). Android: the system dialer's call log, through `TelecomManager.ACTION_CALL_BACK` (Android 16,
 * for calls added with Core-Telecom); iOS: Recents, through `INStartCallIntent`. The SDK only reads who; the app
 * decides whether to call, since a tap in a list is not consent to ring someone at once (docs/decisions/0008 §4).
 * @property userId the other party of the call in the history: the caller of an incoming call, the callee of an
 *   outgoing one.
 * @property hasVideo whether that call was a video call.
 */
data class CallBackRequest(val userId: String, val hasVideo: Boolean)
