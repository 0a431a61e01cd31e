package dev.ringer.android

import com.google.firebase.messaging.FirebaseMessagingService
import com.google.firebase.messaging.RemoteMessage

/**
 * Ringer's `FirebaseMessagingService` (declared with the `com.google.firebase.MESSAGING_EVENT` intent filter).
 * A data message is handed to the core at once, on FCM's thread, before anything else: the core reports the
 * call with `addNewIncomingCall` from memory and its stores, so a ringing call shows within the message's time
 * budget (Firebase: a high-priority message's handling window is short). Token rotation goes to the registrar.
 */
class RingerMessagingService : FirebaseMessagingService() {
    /** Firebase: `onMessageReceived` for data messages, in the foreground and the background alike. */
    override fun onMessageReceived(message: RemoteMessage) {
        RingerComponents.pushHandler?.dataMessageReceived(message.data)
    }

    /** Firebase: a new registration token (first start, reinstall, restore, or rotation). */
    override fun onNewToken(token: String) {
        RingerComponents.pushHandler?.tokenChanged(token)
    }
}
