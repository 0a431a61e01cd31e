package dev.ringer.android

import dev.ringer.kit.CallUi
import dev.ringer.kit.Party

/**
 * An Android call UI as [RingerPhone] and the library's components use it, beyond the core's [CallUi]: the
 * self-managed `ConnectionService` ([TelecomCallUi]) or Jetpack Core-Telecom ([CoreTelecomCallUi]), chosen with
 * [RingerPhone]'s `callUi` parameter (docs/android-integration.md, "Two call UIs"). Both show the same calls the same
 * way to the user and to the core: each translates its API's callbacks into the core's actions and the core's reports
 * into its API's requests, and decides nothing.
 *
 * Thread-safe.
 */
interface AndroidCallUi : CallUi {
    /** The ringing call's notification and the ongoing call's. */
    val notifications: IncomingCallNotification

    /** The device's API level (`Build.VERSION.SDK_INT`), a parameter so each level can be tested. */
    val sdkInt: Int

    /** The calls' hold on [CallForegroundService]. */
    val foreground: CallForeground

    /** Whether calls go through Telecom; false on a device without it, where calls ring as notifications only. */
    val telecomAvailable: Boolean

    /** Connects the coordinator's user actions (the coordinator is created with this call UI, then attached). */
    fun attach(actions: CallActions)

    /**
     * Registers the app with Telecom, once at start-up, before any call is reported; nothing on a device without
     * Telecom.
     * @param label the phone account's name in the system's settings (the app's name).
     */
    fun registerWithTelecom(label: CharSequence)

    /**
     * Shows a call the server created (the coordinator's `startCall`) as an outgoing call.
     * @throws CallUiException [CallUiException.CODE_NOT_PERMITTED] when `MANAGE_OWN_CALLS` is missing; the caller
     *   should then end the server call.
     */
    fun placeOutgoingCall(callId: String, callee: Party, hasVideo: Boolean)

    /**
     * Answers a ringing call (the notification's answer action, the app's own screen): the coordinator answers, and
     * the call goes active once the server confirmed. A second answer is ignored.
     * @return false when no ringing incoming call has this id.
     */
    fun answer(callId: String): Boolean

    /** Declines a ringing call: closed at once as `REJECTED`, then the coordinator's `end`. */
    fun decline(callId: String, completion: (Boolean) -> Unit)

    /** Hangs up or cancels a call: closed at once as `LOCAL`, then the coordinator's `end`. */
    fun hangUp(callId: String, completion: (Boolean) -> Unit)

    /**
     * The call's foreground service could not start: the call closes with `ERROR` and the coordinator ends it, so the
     * server and the other party are told; the app keeps running.
     */
    fun foregroundRefused(callId: String)

    /** The other party as reported; null when the call is unknown. */
    fun peer(callId: String): Party?

    /** The app is visible now: a microphone Android withheld in the background is asked for again. */
    fun appInForeground()

    /** Whether Android refused the microphone to the calls' foreground service at its last start. */
    val isMicrophoneMissing: Boolean get() = foreground.isMicrophoneMissing
}
