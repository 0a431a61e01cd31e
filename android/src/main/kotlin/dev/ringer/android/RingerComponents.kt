package dev.ringer.android

/**
 * The process's adapters as the components Android creates itself reach them: [RingerConnectionService],
 * [CallForegroundService], [RingerActionReceiver] and [RingerMessagingService] have no constructor the app
 * controls. [RingerPhone] fills these in from `Application.onCreate`, which Android runs before any of those
 * components, so a message that starts the process finds them set. Tests set them directly.
 */
object RingerComponents {
    /** The process's call UI; null until [RingerPhone] is created. */
    @Volatile var callUi: AndroidCallUi? = null

    /** The call UI that owns every `Connection`, when the app uses the `ConnectionService` one. */
    val telecomCallUi: TelecomCallUi? get() = callUi as? TelecomCallUi

    /** Where [RingerCallBackActivity]'s intents go ([RingerPhone]'s); null until [RingerPhone] is created. */
    @Volatile var callBacks: ((android.content.Intent?) -> Unit)? = null

    /** Where FCM's data messages and token changes go; null until [RingerPhone] is created. */
    @Volatile var pushHandler: PushHandler? = null
}
