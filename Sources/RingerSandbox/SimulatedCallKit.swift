public import Foundation
public import RingerKit
import RingerSync
public import RingerWire

/// A stand-in for CallKit's `CXProvider` that enforces its rules, for simulated iPhones.
///
/// - A call UUID can be reported once; a second report fails with `callUUIDAlreadyExists`
///   (Apple: `CXErrorCodeIncomingCallError`).
/// - Audio may start only after the provider activated the audio session
///   (Apple: `provider(_:didActivate:)`); ``startAudio(callID:)`` before that is refused.
/// Thread-safe.
public final class SimulatedCallKit: CallUI, Sendable {
    /// A call as the native UI shows it.
    public struct NativeCall: Sendable, Equatable {
        /// The CallKit UUID.
        public var id: UUID
        /// The caller shown.
        public var caller: Party
        /// Current state of the native UI.
        public var state: State
        /// Why it ended, when it ended for a reason other than the local user.
        public var endReason: CallEndReason?
        /// True once the system activated the audio session for it.
        public var audioActive: Bool
    }

    /// The states of a native call.
    public enum State: String, Sendable, Equatable {
        /// Showing the incoming call screen.
        case ringing
        /// The user answered; waiting for the app to confirm.
        case answering
        /// Answered and confirmed.
        case active
        /// Gone from the screen.
        case ended
    }

    /// Errors the simulated provider returns, named after CallKit's.
    public struct CallKitError: Error, Equatable, Sendable {
        /// The name of the CallKit error.
        public let name: String
        /// `CXErrorCodeIncomingCallError.callUUIDAlreadyExists`.
        public static let callUUIDAlreadyExists = CallKitError(name: "callUUIDAlreadyExists")
        /// Audio started before `provider(_:didActivate:)`.
        public static let audioNotActivated = CallKitError(name: "audioNotActivated")
    }

    /// Something the native UI did, in order.
    public enum Change: Sendable, Equatable {
        /// A report was made (`accepted` false when CallKit refused it).
        case reported(UUID, accepted: Bool)
        /// The native UI ended a call with a reason.
        case ended(UUID, CallEndReason)
        /// An outgoing call connected.
        case outgoingConnected(UUID)
    }

    private struct Store {
        var calls: [UUID: NativeCall] = [:]
        var reportCount = 0
        var changes: [Change] = []
    }

    private let store = LockedValue(Store())
    private let onChange: @Sendable (Change) -> Void

    /// Creates the provider.
    /// - Parameter onChange: told of every report and ending, on the reporting thread.
    public init(onChange: @escaping @Sendable (Change) -> Void = { _ in }) { self.onChange = onChange }

    /// Number of `reportNewIncomingCall` calls so far, accepted or not (PushKit's rule counts these).
    public var reportCount: Int { store.withLock { $0.reportCount } }

    /// Every change so far.
    public var changes: [Change] { store.withLock { $0.changes } }

    /// The native call with this UUID.
    public func call(_ id: UUID) -> NativeCall? { store.withLock { $0.calls[id] } }

    /// All native calls.
    public var calls: [NativeCall] { store.withLock { Array($0.calls.values) } }

    public func reportIncomingCall(_ report: IncomingCallReport, completion: @escaping @Sendable ((any Error)?) -> Void) {
        let accepted = store.withLock { store -> Bool in
            store.reportCount += 1
            let isNew = store.calls[report.id] == nil
            if isNew {
                store.calls[report.id] = NativeCall(id: report.id, caller: report.caller, state: .ringing, audioActive: false)
            }
            store.changes.append(.reported(report.id, accepted: isNew))
            return isNew
        }
        onChange(.reported(report.id, accepted: accepted))
        completion(accepted ? nil : CallKitError.callUUIDAlreadyExists)
    }

    public func reportCallEnded(id: UUID, at date: Date, reason: CallEndReason) {
        let changed = store.withLock { store -> Bool in
            guard var call = store.calls[id], call.state != .ended else { return false }
            call.state = .ended
            call.endReason = reason
            call.audioActive = false
            store.calls[id] = call
            store.changes.append(.ended(id, reason))
            return true
        }
        if changed { onChange(.ended(id, reason)) }
    }

    public func reportOutgoingCallConnected(id: UUID, at date: Date) {
        store.withLock { store in
            if store.calls[id] == nil {
                store.calls[id] = NativeCall(id: id, caller: Party(id: "self"), state: .active, audioActive: true)
            }
            store.changes.append(.outgoingConnected(id))
        }
        onChange(.outgoingConnected(id))
    }

    /// The user taps Answer: CallKit performs `CXAnswerCallAction` on the app's delegate.
    /// - Parameters:
    ///   - id: the call.
    ///   - coordinator: the app's coordinator, which fulfils or fails the action.
    ///   - completion: true when the action was fulfilled (then audio is activated).
    public func userAnswers(_ id: UUID, coordinator: CallCoordinator, completion: @escaping @Sendable (Bool) -> Void = { _ in }) {
        let ringing = store.withLock { store -> Bool in
            guard var call = store.calls[id], call.state == .ringing else { return false }
            call.state = .answering
            store.calls[id] = call
            return true
        }
        guard ringing else { completion(false); return }
        coordinator.answer(callID: id) { [weak self] fulfilled in
            self?.store.withLock { store in
                guard var call = store.calls[id], call.state == .answering else { return }
                call.state = fulfilled ? .active : .ended
                call.audioActive = fulfilled
                store.calls[id] = call
            }
            // CallKit activates the audio session once the answer action is fulfilled.
            if fulfilled { coordinator.audioSessionActivated() }
            completion(fulfilled)
        }
    }

    /// The user taps Decline or End: CallKit performs `CXEndCallAction`.
    public func userEnds(_ id: UUID, coordinator: CallCoordinator) {
        let live = store.withLock { store -> Bool in
            guard var call = store.calls[id], call.state != .ended else { return false }
            call.state = .ended
            call.audioActive = false
            store.calls[id] = call
            return true
        }
        if live { coordinator.end(callID: id) { _ in } }
    }

    /// The app starts media for a call; refused unless the system activated audio for it.
    /// - Throws: ``CallKitError/audioNotActivated``.
    public func startAudio(callID id: UUID) throws {
        guard store.withLock({ $0.calls[id]?.audioActive == true }) else { throw CallKitError.audioNotActivated }
    }
}
