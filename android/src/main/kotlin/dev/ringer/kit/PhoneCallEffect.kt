package dev.ringer.kit

/**
 * What the owner of a [PhoneCallMachine] (the CallCoordinator) must carry out after an input, in order. The
 * machine does no I/O: these are its only way to act. Swift: `PhoneCallEffect`.
 */
sealed class PhoneCallEffect {
    /** Report a new incoming call to the call UI; feed its completion back as [PhoneCallInput.ReportFinished]. */
    data class ReportIncoming(val callId: String, val report: IncomingCallReport) : PhoneCallEffect()

    /** Report a push for a call already on screen, as PushKit requires; the UI refuses the known id. */
    data class ReportDuplicate(val report: IncomingCallReport) : PhoneCallEffect()

    /**
     * Report a call and end it at once with [reason] (a push that must be reported but cannot ring). [callId]
     * null: use a new id, because the call's own id is already on screen or was ended there.
     */
    data class ReportAndEnd(val callId: String?, val caller: Party, val reason: CallEndReason) : PhoneCallEffect()

    /** Close a call on the native UI for a reason the local user did not cause (`DisconnectCause`). */
    data class ReportEnded(val callId: String, val reason: CallEndReason) : PhoneCallEffect()

    /** The callee answered this device's outgoing call: show it connected. */
    data class ReportOutgoingConnected(val callId: String) : PhoneCallEffect()

    /** Complete the native answer action kept for the call (true: the server confirmed). */
    data class CompleteAnswer(val callId: String, val fulfilled: Boolean) : PhoneCallEffect()

    /**
     * The user answered an incoming call the native UI shows, whichever way: stop ringing and show it answering while
     * the answer is sent, once (Android: the ringing notification goes and the call's foreground service starts with
     * the microphone, the `Connection` stays unanswered until confirmed; iOS: a `CXAnswerCallAction` is requested
     * unless CallKit performed one). Emitted when the UI has the call: at the answer, or when the UI finishes the
     * call's report.
     */
    data class ReportAnswering(val callId: String) : PhoneCallEffect()

    /**
     * The server confirmed this device's answer, whichever way the user answered (Telecom's `onAnswer`, the
     * notification's answer action, the app's own screen): show the incoming call answered on the native UI, once
     * (Android: the `Connection` goes active and the ringing notification goes; iOS: a `CXAnswerCallAction` is
     * requested unless one is in flight).
     */
    data class ReportAnswered(val callId: String) : PhoneCallEffect()

    /** What became of a push; [callId] null when the push was unreadable. */
    data class PushHandled(val callId: String?, val disposition: PushDisposition) : PhoneCallEffect()

    /** Observation: an incoming call is ringing. */
    data class Ringing(val callId: String) : PhoneCallEffect()

    /** The server confirmed this device's answer: observe it with the media session and start media. */
    data class Answered(val callId: String) : PhoneCallEffect()

    /** Observation: the call ended here; [reason] null when the local user ended it. */
    data class Ended(val callId: String, val reason: CallEndReason?) : PhoneCallEffect()

    /** Send `POST /v1/calls/{id}/ringing`; a problem answer comes back as [PhoneCallInput.RingingRefused]. */
    data class SendRinging(val callId: String) : PhoneCallEffect()

    /**
     * Send `POST /v1/calls/{id}/accept` (waiting for the API while launching), again with jittered backoff after
     * every transport failure, 5xx, 408 or 429 while the call is still answering here (its deadline ends it); the
     * answer comes back as [PhoneCallInput.AnswerConfirmed] or [PhoneCallInput.AnswerRefused]. The machine's
     * [PhoneCallMachine.memory] holds the unconfirmed answer meanwhile: the owner persists it before sending.
     */
    data class SendAccept(val callId: String) : PhoneCallEffect()

    /** Store and send a hang-up until the server acknowledges it. */
    data class SendHangUp(val callId: String, val kind: PendingCallAction.Kind) : PhoneCallEffect()

    /** Feed [PhoneCallInput.DeadlineReached] at [atMs], Unix ms on the phone's clock. */
    data class ArmDeadline(val callId: String, val atMs: Long) : PhoneCallEffect()

    /** Keep the answered call alive on the server while the event stream is down. */
    data class StartKeepalive(val callId: String) : PhoneCallEffect()

    /** Fetch the outgoing call's media session (`GET /v1/calls/{id}/media`) and start media. */
    data class FetchMedia(val callId: String) : PhoneCallEffect()

    /** Persist the learned server-minus-phone clock offset, milliseconds. */
    data class SaveClockOffset(val offsetMs: Long) : PhoneCallEffect()

    /**
     * Observation: a group call's legs changed as this device heard them (an event, `call.updated` included, or a
     * read): who was rung and where each is. Never changes the call's phase.
     */
    data class ParticipantsChanged(val callId: String, val legs: List<CallLeg>) : PhoneCallEffect()

    /**
     * Ask the native call UI to hold (true) or resume a call (Telecom: `Connection.setOnHold()`/`setActive()`;
     * Core-Telecom: `setInactive()`/`setActive()`; CallKit: a `CXSetHeldCallAction`). What the system did comes back as
     * [PhoneCallInput.SetHeld] from [ControlSource.SYSTEM].
     */
    data class RequestHeld(val callId: String, val held: Boolean) : PhoneCallEffect()

    /**
     * Ask the native call UI to mute or unmute a call; what the system did comes back as [PhoneCallInput.SetMuted]
     * from [ControlSource.SYSTEM].
     */
    data class RequestMuted(val callId: String, val muted: Boolean) : PhoneCallEffect()

    /**
     * Ask the native call UI to play keypad tones on a call (Telecom: taken at once, a self-managed call's tones being
     * the app's media; CallKit: a `CXPlayDTMFCallAction`); what the system did comes back as [PhoneCallInput.PlayDtmf]
     * from [ControlSource.SYSTEM].
     */
    data class RequestDtmf(val callId: String, val digits: String) : PhoneCallEffect()

    /**
     * Observation: play these keypad tones on the call (send them in its media, RFC 4733 telephone events or in-band
     * tones, as the media stack does).
     */
    data class Dtmf(val callId: String, val digits: String) : PhoneCallEffect()

    /**
     * Observation: the call was held (pause its media: the other party's audio and this microphone) or resumed. Still
     * active either way: it is kept alive and ends as any answered call.
     */
    data class HeldChanged(val callId: String, val held: Boolean) : PhoneCallEffect()

    /** Observation: the call's microphone was muted or unmuted (stop or resume sending audio). */
    data class MutedChanged(val callId: String, val muted: Boolean) : PhoneCallEffect()
}
