public import Foundation
public import RingerKit
import RingerSupport
public import RingerWire

/// A simulated CallKit `CXProvider` that enforces its rules, for simulated iPhones.
///
/// - A call UUID can be reported once; a second report fails with `callUUIDAlreadyExists`
///   (Apple: `CXErrorCodeIncomingCallError`).
/// - Audio may start only after the provider activated the audio session
///   (Apple: `provider(_:didActivate:)`); ``startAudio(callID:)`` before that is refused.
/// - A failed answer action ends the call; the calls of an app whose process ends (swiped away,
///   killed by iOS, phone switched off) end with it (``appTerminated()``).
///
/// Every change is kept in ``history`` with the time it happened, in the order CallKit applied them.
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
        /// True while the call is on hold (a `CXSetHeldCallAction` the app fulfilled).
        public var held = false
        /// True while the call is muted (a `CXSetMutedCallAction` the app fulfilled).
        public var muted = false
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
    public enum Change: Sendable, Hashable {
        /// A report was made (`accepted` false when CallKit refused it).
        case reported(UUID, accepted: Bool)
        /// The native UI ended a call with a reason.
        case ended(UUID, CallEndReason)
        /// An outgoing call connected.
        case outgoingConnected(UUID)
        /// The user tapped Answer on a ringing call (`CXAnswerCallAction` handed to the app).
        case userAnswered(UUID)
        /// The app requested a `CXAnswerCallAction` for a ringing call it answered itself (its own screen, or an
        /// answer restored after a relaunch), once the server confirmed.
        case appAnswered(UUID)
        /// The app fulfilled (`true`: the call is active) or failed (`false`: the call ended) the answer action.
        case answerCompleted(UUID, fulfilled: Bool)
        /// The user tapped Decline or End (`CXEndCallAction`): the call ended.
        case userEnded(UUID)
        /// The app's process ended while the call was up: the system ended the call.
        case endedBySystem(UUID)
        /// A `CXSetHeldCallAction` (the user's, or one the app requested) was fulfilled: the call is held or resumed.
        case held(UUID, Bool)
        /// A `CXSetMutedCallAction` was fulfilled: the call is muted or unmuted.
        case muted(UUID, Bool)
    }

    /// One change and when CallKit applied it, on the clock given to ``init(now:onChange:)``.
    public typealias Moment = TimedChange<Change>

    private struct Store {
        var calls: [UUID: NativeCall] = [:]
        var reportCount = 0
        var history: [Moment] = []

        mutating func append(_ change: Change, at date: Date) { history.append(Moment(at: date, change: change)) }
    }

    private let store = LockedValue(Store())
    /// The app's coordinator, for actions the app requests itself (``attach(_:)``); weak, as the adapter holds it.
    private let attached = LockedValue<WeakCoordinator>(WeakCoordinator())

    private struct WeakCoordinator { weak var coordinator: CallCoordinator? }
    private let now: @Sendable () -> Date
    private let onChange: @Sendable (Change) -> Void

    /// Creates the provider.
    /// - Parameters:
    ///   - now: the clock that stamps ``history`` (a scenario's clock on simulated phones).
    ///   - onChange: told of every report and ending, on the reporting thread.
    public init(
        now: @escaping @Sendable () -> Date = { Date() },
        onChange: @escaping @Sendable (Change) -> Void = { _ in }
    ) {
        self.now = now
        self.onChange = onChange
    }

    /// Connects the running app's coordinator, as `CallKitAdapter.attach(_:)` does: actions the app requests
    /// through `CXCallController` are performed on it.
    public func attach(_ coordinator: CallCoordinator) {
        attached.withLock { $0.coordinator = coordinator }
    }

    /// Number of `reportNewIncomingCall` calls so far, accepted or not (PushKit's rule counts these).
    public var reportCount: Int { store.withLock { $0.reportCount } }

    /// Every change so far.
    public var changes: [Change] { store.withLock { $0.history.map(\.change) } }

    /// Every change so far with its time, in the order CallKit applied them.
    public var history: [Moment] { store.withLock { $0.history } }

    /// The native call with this UUID.
    public func call(_ id: UUID) -> NativeCall? { store.withLock { $0.calls[id] } }

    /// All native calls.
    public var calls: [NativeCall] { store.withLock { Array($0.calls.values) } }

    public func reportIncomingCall(_ report: IncomingCallReport, completion: @escaping @Sendable ((any Error)?) -> Void)
    {
        let accepted = store.withLock { store -> Bool in
            store.reportCount += 1
            let isNew = store.calls[report.id] == nil
            if isNew {
                store.calls[report.id] = NativeCall(
                    id: report.id, caller: report.caller, state: .ringing, audioActive: false)
            }
            store.append(.reported(report.id, accepted: isNew), at: now())
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
            store.append(.ended(id, reason), at: now())
            return true
        }
        if changed { onChange(.ended(id, reason)) }
    }

    public func reportOutgoingCallConnected(id: UUID, at date: Date) {
        store.withLock { store in
            if store.calls[id] == nil {
                store.calls[id] = NativeCall(id: id, caller: Party(id: "self"), state: .active, audioActive: true)
            }
            store.append(.outgoingConnected(id), at: now())
        }
        onChange(.outgoingConnected(id))
    }

    /// The user answered: as `CallKitAdapter` does, a call CallKit still shows ringing (the app answered in its
    /// own screen) gets a requested `CXAnswerCallAction`, performed on the attached coordinator, which holds it
    /// until the server confirms; a call already answered on CallKit is left as it is.
    public func reportCallAnswering(id: UUID, at date: Date) {
        guard let coordinator = attached.withLock({ $0.coordinator }) else { return }
        answer(id, change: .appAnswered(id), coordinator: coordinator) { _ in }
    }

    /// The server confirmed an answer: the same request as ``reportCallAnswering(id:at:)`` for a call still
    /// ringing (fulfilled at once then); nothing for one CallKit shows answered.
    public func reportCallAnswered(id: UUID, at date: Date) {
        reportCallAnswering(id: id, at: date)
    }

    /// The user taps Answer: CallKit performs `CXAnswerCallAction` on the app's delegate.
    /// - Parameters:
    ///   - id: the call.
    ///   - coordinator: the app's coordinator, which fulfils or fails the action.
    ///   - completion: true when the action was fulfilled (then audio is activated).
    public func userAnswers(
        _ id: UUID, coordinator: CallCoordinator, completion: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        answer(id, change: .userAnswered(id), coordinator: coordinator, completion: completion)
    }

    /// A `CXAnswerCallAction` for a ringing call, performed on `coordinator`.
    private func answer(
        _ id: UUID, change: Change, coordinator: CallCoordinator,
        completion: @escaping @Sendable (Bool) -> Void
    ) {
        let ringing = store.withLock { store -> Bool in
            guard var call = store.calls[id], call.state == .ringing else { return false }
            call.state = .answering
            store.calls[id] = call
            store.append(change, at: now())
            return true
        }
        guard ringing else {
            completion(false)
            return
        }
        onChange(change)
        coordinator.answer(callID: id) { [weak self] fulfilled in
            self?.answerCompleted(id, fulfilled: fulfilled)
            // CallKit activates the audio session once the answer action is fulfilled.
            if fulfilled { coordinator.audioSessionActivated() }
            completion(fulfilled)
        }
    }

    /// The app fulfilled or failed the answer action: the call becomes active, or ends.
    private func answerCompleted(_ id: UUID, fulfilled: Bool) {
        let completed = store.withLock { store -> Bool in
            guard var call = store.calls[id], call.state == .answering else { return false }
            call.state = fulfilled ? .active : .ended
            call.audioActive = fulfilled
            store.calls[id] = call
            store.append(.answerCompleted(id, fulfilled: fulfilled), at: now())
            return true
        }
        if completed { onChange(.answerCompleted(id, fulfilled: fulfilled)) }
    }

    /// The user taps Decline or End: CallKit performs `CXEndCallAction`.
    public func userEnds(_ id: UUID, coordinator: CallCoordinator) {
        let live = store.withLock { store -> Bool in
            guard var call = store.calls[id], call.state != .ended else { return false }
            call.state = .ended
            call.audioActive = false
            store.calls[id] = call
            store.append(.userEnded(id), at: now())
            return true
        }
        guard live else { return }
        onChange(.userEnded(id))
        coordinator.end(callID: id) { _ in }
    }

    /// The app asked to hold or resume a call, as `CallKitAdapter` does: a requested `CXSetHeldCallAction`, performed
    /// on the attached coordinator.
    public func requestHeld(id: UUID, held: Bool) {
        guard let coordinator = attached.withLock({ $0.coordinator }) else { return }
        setHeld(id, held: held, coordinator: coordinator)
    }

    /// The app asked to mute or unmute a call: a requested `CXSetMutedCallAction`, performed on the attached
    /// coordinator.
    public func requestMuted(id: UUID, muted: Bool) {
        guard let coordinator = attached.withLock({ $0.coordinator }) else { return }
        setMuted(id, muted: muted, coordinator: coordinator)
    }

    /// The user taps Hold (or resumes) on the call screen: CallKit performs `CXSetHeldCallAction` on the app's
    /// delegate. Only a connected call can be held; CallKit keeps the state only if the app fulfils the action.
    public func userHolds(_ id: UUID, held: Bool, coordinator: CallCoordinator) {
        setHeld(id, held: held, coordinator: coordinator)
    }

    /// The user taps Mute on the call screen: CallKit performs `CXSetMutedCallAction` on the app's delegate.
    public func userMutes(_ id: UUID, muted: Bool, coordinator: CallCoordinator) {
        setMuted(id, muted: muted, coordinator: coordinator)
    }

    private func setHeld(_ id: UUID, held: Bool, coordinator: CallCoordinator) {
        guard store.withLock({ $0.calls[id]?.state == .active }) else { return }
        guard coordinator.hold(callID: id, held: held) else { return }
        let changed = store.withLock { store -> Bool in
            guard var call = store.calls[id], call.state == .active, call.held != held else { return false }
            call.held = held
            store.calls[id] = call
            store.append(.held(id, held), at: now())
            return true
        }
        if changed { onChange(.held(id, held)) }
    }

    private func setMuted(_ id: UUID, muted: Bool, coordinator: CallCoordinator) {
        guard store.withLock({ ($0.calls[id]?.state ?? .ended) != .ended }) else { return }
        guard coordinator.mute(callID: id, muted: muted) else { return }
        let changed = store.withLock { store -> Bool in
            guard var call = store.calls[id], call.state != .ended, call.muted != muted else { return false }
            call.muted = muted
            store.calls[id] = call
            store.append(.muted(id, muted), at: now())
            return true
        }
        if changed { onChange(.muted(id, muted)) }
    }

    /// The app's process ended (the user swiped it away, iOS killed it, the phone was switched off):
    /// every call it had on screen ends, as the system does when a provider's process exits. The app
    /// is not told. (Their UUIDs stay known: this model never accepts a UUID twice.)
    public func appTerminated() {
        let ended = store.withLock { store -> [UUID] in
            let live = store.calls.values.filter { $0.state != .ended }.map(\.id)
            for id in live {
                store.calls[id]?.state = .ended
                store.calls[id]?.audioActive = false
                store.append(.endedBySystem(id), at: now())
            }
            return live
        }
        for id in ended { onChange(.endedBySystem(id)) }
    }

    /// The app starts media for a call; refused unless the system activated audio for it.
    /// - Throws: ``CallKitError/audioNotActivated``.
    public func startAudio(callID id: UUID) throws {
        guard store.withLock({ $0.calls[id]?.audioActive == true }) else { throw CallKitError.audioNotActivated }
    }
}
