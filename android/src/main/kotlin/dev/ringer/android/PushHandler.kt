package dev.ringer.android

/** What [RingerMessagingService] hands FCM's callbacks to (the coordinator and the token registrar). */
interface PushHandler {
    /**
     * An FCM data message arrived (`FirebaseMessagingService.onMessageReceived`). Must report a ringing call
     * before doing any network I/O: only a prompt `addNewIncomingCall` rings while a HIGH-priority message is
     * being handled (docs/android-integration.md, "Waking the app").
     * @param data the message's data map (`data["ringer"]` is the call's JSON as a string).
     */
    fun dataMessageReceived(data: Map<String, String>)

    /** FCM rotated this installation's registration token (`onNewToken`); the server must learn the new one. */
    fun tokenChanged(token: String)
}
