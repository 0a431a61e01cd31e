public import Foundation
public import RingerWire

/// What the owner of a ``PhoneCallMachine`` (``CallCoordinator``) must carry out after an input, in order.
/// The machine does no I/O: these are its only way to act.
public enum PhoneCallEffect: Hashable, Sendable {
    /// Report a new incoming call to the call UI; its completion is fed back as
    /// ``PhoneCallInput/reportFinished(callID:accepted:)``.
    case reportIncoming(callID: String, IncomingCallReport)
    /// Report a push for a call already on screen, as PushKit requires; the UI refuses the known id, so nothing
    /// new rings and the completion is ignored.
    case reportDuplicate(IncomingCallReport)
    /// Report a call and end it at once with `reason` (a push that must be reported but cannot ring). `id` nil:
    /// a new id, because the call's own id is already on screen or was ended there.
    case reportAndEnd(id: UUID?, caller: Party, reason: CallEndReason)
    /// Close a call on the native UI for a reason the local user did not cause.
    case reportEnded(id: UUID, reason: CallEndReason)
    /// The callee answered this device's outgoing call: show it connected.
    case reportOutgoingConnected(id: UUID)
    /// Complete the native answer action kept for the call (true: the server confirmed).
    case completeAnswer(callID: String, fulfilled: Bool)
    /// The user answered an incoming call the native UI shows, whichever way: stop ringing and show it answering
    /// while the answer is sent, once (Android: the ringing notification goes and the call's foreground service
    /// starts with the microphone, the `Connection` stays unanswered until confirmed; iOS: a `CXAnswerCallAction`
    /// is requested unless CallKit performed one, and is held until the confirmation). Emitted when the UI has the
    /// call: at the answer, or when the UI finishes the call's report.
    case reportAnswering(id: UUID)
    /// The server confirmed this device's answer, whichever way the user answered: show the incoming call
    /// answered on the native UI, once (deferred, like ``reportAnswering(id:)``, until the UI has the call) (Android: the `Connection` goes active and the ringing notification goes;
    /// iOS: if no `CXAnswerCallAction` is in flight, one is requested, and comes back as an answer the machine
    /// fulfils at once).
    case reportAnswered(id: UUID)
    /// What became of a push (observation, and the push handler's answer).
    case pushHandled(callID: String?, CallCoordinator.PushDisposition)
    /// Observation: an incoming call is ringing.
    case ringing(callID: String)
    /// The server confirmed this device's answer: observe it with the media session and start media.
    case answered(callID: String)
    /// Observation: the call ended here; `reason` nil when the local user ended it. Media waiting for audio
    /// is dropped.
    case ended(callID: String, reason: CallEndReason?)
    /// Send `POST /v1/calls/{id}/ringing`; a refusal comes back as ``PhoneCallInput/ringingRefused(callID:problem:)``.
    case sendRinging(callID: String)
    /// Send `POST /v1/calls/{id}/accept` (waiting for the API if the app is launching), again with jittered
    /// backoff after every transport failure or 5xx while the call is still answering here (its deadline ends
    /// it); the answer comes back as ``PhoneCallInput/answerConfirmed(callID:)`` or
    /// ``PhoneCallInput/answerRefused(callID:problem:)``. The machine's ``PhoneCallMachine/memory`` holds the
    /// unconfirmed answer meanwhile: the owner persists it before sending.
    case sendAccept(callID: String)
    /// Store and send a hang-up until the server acknowledges it.
    case sendHangUp(callID: String, PendingCallAction.Kind)
    /// Feed ``PhoneCallInput/deadlineReached(callID:)`` at `at` on the phone's clock.
    case armDeadline(callID: String, at: Date)
    /// Keep the answered call alive on the server while the event stream is down.
    case startKeepalive(callID: String)
    /// Fetch the outgoing call's media session (`GET /v1/calls/{id}/media`) and start media.
    case fetchMedia(callID: String)
    /// Persist the learned server-minus-phone clock offset, seconds (``ClockOffsetStore``).
    case saveClockOffset(TimeInterval)
    /// Observation: a group call's legs changed as this device heard them (an event, `call.updated` included, or a
    /// read): who was rung and where each is. Never changes the call's phase.
    case participantsChanged(callID: String, legs: [CallLeg])
    /// Ask the native call UI to hold (`true`) or resume a call (Apple: a `CXSetHeldCallAction` transaction;
    /// Telecom: `Connection.setOnHold()`/`setActive()`; Core-Telecom: `setInactive()`/`setActive()`). What the system
    /// did comes back as ``PhoneCallInput/setHeld(callID:held:by:)`` from ``ControlSource/system``.
    case requestHeld(callID: String, held: Bool)
    /// Ask the native call UI to mute or unmute a call (Apple: a `CXSetMutedCallAction` transaction; Telecom:
    /// `requestMuteState`/`setMuted`); what the system did comes back as ``PhoneCallInput/setMuted(callID:muted:by:)``
    /// from ``ControlSource/system``.
    case requestMuted(callID: String, muted: Bool)
    /// Ask the native call UI to play keypad tones on a call (Apple: a `CXPlayDTMFCallAction` transaction, so the
    /// system's keypad and the app agree; Telecom: taken at once, a self-managed call's tones being the app's media);
    /// what the system did comes back as ``PhoneCallInput/playDTMF(callID:digits:by:)`` from ``ControlSource/system``.
    case requestDTMF(callID: String, digits: String)
    /// Observation: play these keypad tones on the call (send them in its media, RFC 4733 telephone events or
    /// in-band tones, as the media stack does).
    case dtmf(callID: String, digits: String)
    /// Observation: the call was held (pause its media: the other party's audio and this microphone) or resumed
    /// (resume it). Still active either way: it is kept alive and ends as any answered call.
    case heldChanged(callID: String, held: Bool)
    /// Observation: the call's microphone was muted or unmuted (stop or resume sending audio).
    case mutedChanged(callID: String, muted: Bool)
}
