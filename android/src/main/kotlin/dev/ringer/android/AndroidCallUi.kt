package dev.ringer.android

import android.telecom.DisconnectCause
import dev.ringer.kit.CallUi
import dev.ringer.kit.Party

/**
 * An Android call UI as [RingerPhone] and the library's components use it, beyond the core's [CallUi]: the
 * self-managed `ConnectionService` ([TelecomCallUi]) or Jetpack Core-Telecom ([CoreTelecomCallUi]), chosen with
 * [RingerPhone]'s `callUiKind` parameter (docs/android-integration.md, "Two call UIs"). Both show the same calls the same
 * way to the user and to the core: each translates its API's callbacks into the core's actions and the core's reports
 * into its API's requests, and decides nothing. What the user's own ending of a call does is the same for both, and
 * lives here.
 *
 * Thread-safe.
 */
abstract class AndroidCallUi : CallUi {
    /** The ringing call's notification and the ongoing call's. */
    abstract val notifications: IncomingCallNotification

    /** The device's API level (`Build.VERSION.SDK_INT`), a parameter so each level can be tested. */
    abstract val sdkInt: Int

    /** The calls' hold on [CallForegroundService]. */
    abstract val foreground: CallForeground

    /** Whether calls go through Telecom; false on a device without it, where calls ring as notifications only. */
    abstract val telecomAvailable: Boolean

    /** Where the user's actions go (the coordinator's); set once by [attach] before any call can be reported. */
    @Volatile var actions: CallActions? = null
        private set

    /** Connects the coordinator's user actions (the coordinator is created with this call UI, then attached). */
    fun attach(actions: CallActions) { this.actions = actions }

    /**
     * Registers the app with Telecom, once at start-up, before any call is reported; nothing on a device without
     * Telecom.
     * @param label the phone account's name in the system's settings (the app's name).
     */
    abstract fun registerWithTelecom(label: CharSequence)

    /**
     * Shows a call the server created (the coordinator's `startCall`) as an outgoing call.
     * @throws CallUiException [CallUiException.CODE_NOT_PERMITTED] when `MANAGE_OWN_CALLS` is missing; the caller
     *   should then end the server call.
     */
    abstract fun placeOutgoingCall(callId: String, callee: Party, hasVideo: Boolean)

    /**
     * Answers a ringing call (the notification's answer action, the app's own screen): the coordinator answers, and
     * the call goes active once the server confirmed. A second answer is ignored.
     * @return false when no ringing incoming call has this id.
     */
    abstract fun answer(callId: String): Boolean

    /**
     * Declines a ringing call (Telecom's `onReject`, the notification's decline action through [RingerActionReceiver]):
     * closed at once as `REJECTED`, then the coordinator's `end` (kept durably until the server hears it).
     * @param completion the coordinator's result (false also when no call has this id).
     */
    fun decline(callId: String, completion: (Boolean) -> Unit) {
        endByUser(callId, DisconnectCause(DisconnectCause.REJECTED), completion)
    }

    /** Hangs up or cancels a call (Telecom's `onDisconnect`, the ongoing call's hang-up action): `LOCAL`, then `end`. */
    fun hangUp(callId: String, completion: (Boolean) -> Unit) {
        endByUser(callId, DisconnectCause(DisconnectCause.LOCAL), completion)
    }

    /**
     * The call's foreground service could not start (`SecurityException`, `ForegroundServiceStartNotAllowedException`):
     * the call closes with `ERROR` and the coordinator ends it, so the server and the other party are told; the app
     * keeps running.
     */
    fun foregroundRefused(callId: String) {
        endByUser(callId, DisconnectCause(DisconnectCause.ERROR)) {}
    }

    /** The other party as reported; null when the call is unknown. */
    abstract fun peer(callId: String): Party?

    /**
     * The app is visible now (its call activity got a Ringer intent, or the app's `onResume`): a microphone Android
     * withheld from the calls' foreground service in the background is asked for again ([CallForeground.appInForeground]).
     */
    fun appInForeground() { foreground.appInForeground() }

    /** Whether Android refused the microphone to the calls' foreground service at its last start. */
    val isMicrophoneMissing: Boolean get() = foreground.isMicrophoneMissing

    /**
     * Closes the call on screen with [cause] (the API's call, its notification, its hold on the foreground service).
     * @return false when no open call has this id.
     */
    protected abstract fun close(callId: String, cause: DisconnectCause): Boolean

    /** The user ended the call here: closed on screen at once, then the coordinator's `end`. */
    protected fun endByUser(callId: String, cause: DisconnectCause, completion: (Boolean) -> Unit) {
        if (!close(callId, cause)) {
            completion(false)
            return
        }
        val actions = actions
        if (actions == null) completion(false) else actions.end(callId, completion)
    }
}
