package dev.ringer.kit

/**
 * What the native call UI shows for a new incoming call (Swift: RingerKit's `IncomingCallReport`).
 *
 * @property callId the server's call id, a lowercase UUID; also the key of the call on screen (the
 *   `Connection` on Android), so one server call is one call on screen however many times it arrives.
 * @property caller who is calling, shown as the handle (user id) and display name.
 * @property hasVideo whether the call offers video.
 * @property group for a group call: the count rung (this user included) and some of the others; null for 1:1.
 */
data class IncomingCallReport(
    val callId: String,
    val caller: Party,
    val hasVideo: Boolean,
    val group: PushGroup? = null
) {
    /**
     * The name the call UI shows: the caller's display name (else id), and for a group call the count of the others
     * rung with this user through [groupName] ([defaultGroupName] unless the app localizes it). The handle stays the
     * caller's, so the call log calls the caller back.
     */
    fun callerDisplayName(groupName: (String, Int) -> String = ::defaultGroupName): String {
        val name = caller.name ?: caller.id
        val group = group ?: return name
        return groupName(name, Math.max(0, group.count - 1))
    }

    /** Naming. */
    companion object {
        /** "Alice and 2 others", "Alice and 1 other", "Alice" (no other callee); Swift: the same rule. */
        @JvmStatic fun defaultGroupName(caller: String, others: Int): String = when {
            others <= 0 -> caller
            others == 1 -> "$caller and 1 other"
            else -> "$caller and $others others"
        }
    }
}

/**
 * The platform's native call UI as the core needs it: a self-managed `ConnectionService` on Android
 * (Android: "Build a calling app"), CallKit's `CXProvider` on iOS, or a simulator in tests
 * (Swift: RingerKit's `CallUI`; docs/android-integration.md has the mapping).
 *
 * Implementations only translate; every decision is the [CallCoordinator]'s. They call the coordinator
 * back when the user acts (`answer(callId, completion)`, `end(callId, completion)`). Implementations
 * must be thread-safe: the coordinator calls them from any thread.
 */
interface CallUi {
    /**
     * Shows a ringing incoming call. Android: `TelecomManager.addNewIncomingCall`, answered by
     * `ConnectionService.onCreateIncomingConnection` (rings) or `onCreateIncomingConnectionFailed`.
     *
     * @param completion called once: null when the call rings; the system's refusal otherwise (a call
     *   with this id already shown, another call in progress, `MANAGE_OWN_CALLS` missing).
     */
    fun reportIncomingCall(report: IncomingCallReport, completion: (Throwable?) -> Unit)

    /**
     * Closes a call the local user did not end. Android: `Connection.setDisconnected(DisconnectCause)`
     * then `Connection.destroy()`.
     *
     * @param atMs when the call ended, Unix milliseconds.
     */
    fun reportCallEnded(callId: String, atMs: Long, reason: CallEndReason)

    /**
     * Marks an outgoing call as connected (the callee answered). Android: `Connection.setActive()`.
     *
     * @param atMs when the callee answered, Unix milliseconds.
     */
    fun reportOutgoingCallConnected(callId: String, atMs: Long)

    /**
     * The user answered an incoming call, however (Telecom's `onAnswer`, the notification's answer action, the app's
     * own screen through `CallCoordinator.answer`): stop ringing and show it answering until the server confirms,
     * once; a call the UI already shows answering or answered is left as it is. Android: the ringing notification
     * (with its ringtone) goes and the call's foreground service starts with the microphone, while the app is still
     * in front; the `Connection` goes active only at [reportCallAnswered]. Apple: request a `CXAnswerCallAction`
     * unless one was performed.
     *
     * @param atMs when the user answered (or the UI took the call's report), Unix milliseconds.
     */
    fun reportCallAnswering(callId: String, atMs: Long)

    /**
     * The server confirmed this device's answer of an incoming call, however the user answered (Telecom's
     * `onAnswer`, the notification's answer action, the app's own screen through `CallCoordinator.answer`): show
     * the call answered, once; calls after the first, and calls for a call the UI already shows answered, change
     * nothing. Android: `Connection.setActive()` if it is still ringing, and the ringing notification (with its
     * ringtone) goes; Apple: request a `CXAnswerCallAction` unless one was performed.
     *
     * @param atMs when the server confirmed, Unix milliseconds.
     */
    fun reportCallAnswered(callId: String, atMs: Long)

    /**
     * Hold (true) or resume an answered call, as the coordinator decided (the app asked, or another call takes the
     * audio). Android: `Connection.setOnHold()`/`setActive()`, then [CallCoordinator.hold] with what was done, as
     * Telecom does not call `onHold` for a change the app made; Apple: a `CXSetHeldCallAction` request, performed on
     * the delegate. A change the system refuses changes nothing: the coordinator follows only what the system did.
     */
    fun requestHeld(callId: String, held: Boolean)

    /**
     * Mute or unmute a call at the app's request. Android: a self-managed call's microphone is the app's own (Telecom
     * has no mute for it to set), so the UI tells [CallCoordinator.mute] at once and the app's media mutes on
     * [CallCoordinator.Observation.MutedChanged]; Apple: a `CXSetMutedCallAction` request.
     */
    fun requestMuted(callId: String, muted: Boolean)

    /**
     * Play keypad tones at the app's request. Android: a self-managed call's tones are the app's media, so the UI tells
     * [CallCoordinator.dtmf] at once and the app's media plays them on
     * [CallCoordinator.Observation.Dtmf]; Apple: a `CXPlayDTMFCallAction` request.
     */
    fun requestDtmf(callId: String, digits: String)

    /**
     * Send the calls' audio to this output, as the coordinator decided (the app chose it, or a video call starts on the
     * speaker). Android: `Connection.requestCallEndpointChange` (API 34), `setAudioRoute` below; Apple:
     * `overrideOutputAudioPort`/`setPreferredInput`. The system's new route comes back through
     * [CallCoordinator.audioOutputsChanged]; a request the system refuses changes nothing. Null: the calls are over,
     * give the route back to the system (Android: nothing, Telecom's routing ends with the call; Apple: no override, no
     * preferred input).
     */
    fun applyAudioOutput(output: AudioOutput?)
}
