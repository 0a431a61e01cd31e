// Compiled where Package.swift defines RINGER_CALLKIT: iOS, Mac Catalyst, watchOS and visionOS (macOS has
// these frameworks but neither VoIP pushes nor AVAudioSession), and on Linux in the test-only target that
// builds these files against mirrors of the frameworks (Tests/AppleMirrors), so CI type-checks every line.
#if RINGER_CALLKIT && canImport(CallKit) && canImport(PushKit) && canImport(AVFAudio)
import AVFAudio
// CallKit's classes are not Sendable-annotated; CXAction is completed from the coordinator's task, as
// Apple's samples complete actions from their own queues once the work is done.
@preconcurrency import CallKit
import Foundation
import RingerKit
import RingerSupport

/// The `CXProviderDelegate` behind ``CallKitAdapter``: forwards what the user and the system do on the
/// native call UI to the ``CallCoordinator``, which decides everything. Internal, so apps never call
/// these methods themselves. Thread-safe; CallKit calls it on the provider's delegate queue.
final class CallKitProviderDelegate: NSObject, CXProviderDelegate, Sendable {
    private struct State {
        /// Weak: the coordinator owns the adapter (its call UI), which owns this delegate.
        weak var coordinator: CallCoordinator?
        /// `CXAction.uuid`s the system timed out; they must not be completed any more.
        var timedOut: Set<UUID> = []
        /// Call UUIDs of outgoing calls the server created, whose `CXStartCallAction` is expected.
        var expectedStarts: Set<UUID> = []
        /// Call UUIDs whose `CXAnswerCallAction` was performed: CallKit knows they were answered.
        var answered: Set<UUID> = []
    }

    /// Seconds before an answer action's `timeoutDate` at which an answer the server has not confirmed yet is
    /// fulfilled anyway: an action that times out can no longer be completed and may end the call (Apple,
    /// `provider(_:timedOutPerforming:)`), while the coordinator keeps sending the answer until the ring deadline.
    static let answerTimeoutMargin: TimeInterval = 1

    private let state = LockedValue(State())

    private var coordinator: CallCoordinator? { state.withLock { $0.coordinator } }

    /// Connects the coordinator; before this, actions fail (CallKit sends none before the delegate is set).
    func attach(_ coordinator: CallCoordinator) {
        state.withLock { $0.coordinator = coordinator }
    }

    /// True once CallKit performed an answer action for the call (its UI shows it answered or connecting).
    func hasAnswerAction(for callUUID: UUID) -> Bool {
        state.withLock { $0.answered.contains(callUUID) }
    }

    /// An outgoing call was created on the server; its start action may now be fulfilled.
    func expectStart(of callUUID: UUID) {
        _ = state.withLock { $0.expectedStarts.insert(callUUID) }
    }

    /// The start transaction for an outgoing call failed; its start action will not come.
    func forgetStart(of callUUID: UUID) {
        _ = state.withLock { $0.expectedStarts.remove(callUUID) }
    }

    /// True unless the system already timed the action out (Apple, `provider(_:timedOutPerforming:)`: a
    /// timed-out action is neither fulfilled nor failed).
    private func mayComplete(_ actionID: UUID) -> Bool {
        state.withLock { $0.timedOut.remove(actionID) == nil }
    }

    // MARK: CXProviderDelegate

    /// Apple, `providerDidReset(_:)`: clean up all call state; the reset ends every call and no pending
    /// action needs an answer.
    func providerDidReset(_ provider: CXProvider) {
        state.withLock { state in
            state.timedOut.removeAll()
            state.expectedStarts.removeAll()
            state.answered.removeAll()
        }
        coordinator?.endAllCalls()
    }

    /// The user answered (or the app did, through ``CallKitAdapter/reportCallAnswered(id:at:)``). The action is
    /// held until the server confirms the answer and failed when the call ended meanwhile (Apple,
    /// `CXAnswerCallAction`: fulfil once the action was performed). It is held no longer than CallKit allows:
    /// ``answerTimeoutMargin`` before its `timeoutDate` an unconfirmed answer is fulfilled, so CallKit shows the
    /// call answered while the coordinator keeps sending the answer (the app's own screen says "connecting"
    /// until ``CallCoordinator/Observation/answered(callID:media:)``); should the ring deadline pass first, the
    /// coordinator closes the call as failed (``CallEndReason/answerNotDelivered``).
    func provider(_ provider: CXProvider, perform action: CXAnswerCallAction) {
        guard let coordinator else { return action.fail() }
        let actionID = action.uuid
        _ = state.withLock { $0.answered.insert(action.callUUID) }
        let completed = LockedValue(false)
        let complete: @Sendable (Bool) -> Void = { [weak self] answered in
            guard
                completed.withLock({ done in
                    defer { done = true }
                    return !done
                })
            else { return }
            guard self?.mayComplete(actionID) ?? true else { return }
            if answered { action.fulfill() } else { action.fail() }
        }
        let wait = max(0, action.timeoutDate.timeIntervalSinceNow - Self.answerTimeoutMargin)
        DispatchQueue.global().asyncAfter(deadline: .now() + wait) { complete(true) }
        coordinator.answer(callID: action.callUUID, completion: complete)
    }

    /// The user declined, hung up or cancelled. The coordinator keeps the hang-up until the server
    /// acknowledges it, so the action completes at once.
    func provider(_ provider: CXProvider, perform action: CXEndCallAction) {
        guard let coordinator else { return action.fail() }
        coordinator.end(callID: action.callUUID) { _ in action.fulfill() }
    }

    /// The user or the system held or resumed a call (CallKit's Hold button, "Hold & Accept" of another call, a
    /// swap), or the app did through ``CallKitAdapter/requestHeld(id:held:)``. Fulfilled when the coordinator took
    /// it, failed for a call that cannot be held (not answered, over): Apple, `CXSetHeldCallAction`, "the delegate
    /// calls fulfill()" once the call is held.
    func provider(_ provider: CXProvider, perform action: CXSetHeldCallAction) {
        guard let coordinator else { return action.fail() }
        if coordinator.hold(callID: action.callUUID, held: action.isOnHold) { action.fulfill() } else { action.fail() }
    }

    /// The user or the app muted or unmuted a call (`CXSetMutedCallAction`): fulfilled unless the call is over.
    func provider(_ provider: CXProvider, perform action: CXSetMutedCallAction) {
        guard let coordinator else { return action.fail() }
        if coordinator.mute(callID: action.callUUID, muted: action.isMuted) { action.fulfill() } else { action.fail() }
    }

    /// The user pressed keys on CallKit's keypad, or the app asked through ``CallKitAdapter/requestDTMF(id:digits:)``
    /// (`CXPlayDTMFCallAction`). Each keypad press is its own action (Apple: CallKit performs the next only after this
    /// one is fulfilled); digits after a pause of a dialing string (`softPause`, `hardPause`) are played the same way.
    /// Tones for a call without the audio, or outside the keypad's sixteen keys, fail.
    func provider(_ provider: CXProvider, perform action: CXPlayDTMFCallAction) {
        guard let coordinator else { return action.fail() }
        if coordinator.dtmf(callID: action.callUUID, digits: action.digits) { action.fulfill() } else { action.fail() }
    }

    /// An outgoing call starts. Only calls the server created (``CallKitAdapter/requestStart(callID:callee:hasVideo:)``)
    /// can start: a start action for any other UUID has no server call behind it and fails.
    func provider(_ provider: CXProvider, perform action: CXStartCallAction) {
        let expected = state.withLock { $0.expectedStarts.remove(action.callUUID) != nil }
        guard expected else { return action.fail() }
        action.fulfill()
        // The server rings the callee already, which is what CallKit calls a started call (Apple,
        // `reportOutgoingCall(with:startedConnectingAt:)`).
        provider.reportOutgoingCall(with: action.callUUID, startedConnectingAt: nil)
        // A started call gets CallKit's defaults; an outgoing Ringer call offers what an incoming one does.
        provider.reportCall(with: action.callUUID, updated: CallKitAdapter.callControls(CXCallUpdate()))
    }

    /// The system gave up on an action. For an answer (the server did not confirm in time) the call is
    /// closed here and hung up on the server, so the caller is not left talking to a phone that no longer
    /// shows the call (Apple, `provider(_:timedOutPerforming:)`: a timed-out action may end the call).
    func provider(_ provider: CXProvider, timedOutPerforming action: CXAction) {
        _ = state.withLock { $0.timedOut.insert(action.uuid) }
        guard let answer = action as? CXAnswerCallAction else { return }
        provider.reportCall(with: answer.callUUID, endedAt: nil, reason: .failed)
        coordinator?.end(callID: answer.callUUID) { _ in }
    }

    /// Media may start now (Apple, "Making and receiving VoIP calls": start audio only once the system
    /// activated the audio session); the coordinator releases `mediaCanStart` for answered calls.
    func provider(_ provider: CXProvider, didActivate audioSession: AVAudioSession) {
        coordinator?.audioSessionActivated()
    }

    /// The system took the audio session back (the call ended or was interrupted).
    func provider(_ provider: CXProvider, didDeactivate audioSession: AVAudioSession) {
        coordinator?.audioSessionDeactivated()
    }
}
#endif
