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
/// - A cellular call can arrive during the app's calls (``cellularCallArrives(answer:coordinator:)``): "Hold &
///   Accept" is offered only when the app's calls support holding (Ringer's adapter reports `supportsHolding` and two
///   call groups; ``supportsHolding`` false models an app that does not, which gets "End & Accept" only), holds the
///   connected calls through `CXSetHeldCallAction` and takes the audio session from the app. When the cellular call
///   ends, a held call stays held: the system never resumes it (Apple, forum thread 749202: "to avoid any situation
///   when the user could be overheard"); the user or the app does, and CallKit then activates the audio session again.
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
        /// A `CXPlayDTMFCallAction` was fulfilled: the app's media plays these keypad tones.
        case dtmf(UUID, String)
        /// A cellular call arrived.
        case cellularArrived
        /// The user answered the cellular call that way (`decline`: it never connected).
        case cellularAnswered(CellularAnswer)
        /// The cellular call was put on hold: the user resumed one of the app's calls over it.
        case cellularHeld
        /// The cellular call ended.
        case cellularEnded
    }

    /// What the user picks on a cellular call's incoming screen while one of the app's calls is connected.
    public enum CellularAnswer: String, Sendable, Hashable, CaseIterable {
        /// "Hold & Accept": the app's connected calls are held (`CXSetHeldCallAction`), the cellular call connects.
        case holdAndAccept = "hold_and_accept"
        /// "End & Accept": the app's connected calls end (`CXEndCallAction`), the cellular call connects.
        case endAndAccept = "end_and_accept"
        /// "Decline": the cellular call goes; nothing changes for the app's calls.
        case decline
    }

    /// The cellular call, as far as the app's calls feel it.
    public enum CellularState: String, Sendable, Equatable {
        /// Connected: it has the audio.
        case active
        /// Held under one of the app's calls, which the user resumed.
        case held
    }

    /// One change and when CallKit applied it, on the clock given to ``init(now:onChange:)``.
    public typealias Moment = TimedChange<Change>

    private struct Store {
        var calls: [UUID: NativeCall] = [:]
        /// The phone's Recents, newest last: the handle each call was reported with and whether it had video.
        var recents: [(handle: String, hasVideo: Bool)] = []
        var cellular: CellularState?
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
    /// Whether the app's calls support holding (CallKitAdapter's calls do: `supportsHolding`, two call groups).
    public let supportsHolding: Bool

    /// Creates the provider.
    /// - Parameters:
    ///   - supportsHolding: whether the app reports its calls as holdable; false models an app that does not, whose
    ///     calls a cellular call can only end ("End & Accept").
    ///   - now: the clock that stamps ``history`` (a scenario's clock on simulated phones).
    ///   - onChange: told of every report and ending, on the reporting thread.
    public init(
        supportsHolding: Bool = true,
        now: @escaping @Sendable () -> Date = { Date() },
        onChange: @escaping @Sendable (Change) -> Void = { _ in }
    ) {
        self.supportsHolding = supportsHolding
        self.now = now
        self.onChange = onChange
    }

    /// The cellular call, if one is connected or held.
    public var cellular: CellularState? { store.withLock { $0.cellular } }

    /// Connects the running app's coordinator, as `CallKitAdapter.attach(_:)` does: actions the app requests
    /// through `CXCallController` are performed on it.
    public func attach(_ coordinator: CallCoordinator) {
        attached.withLock { $0.coordinator = coordinator }
        let route = audioRoute.snapshot
        coordinator.audioOutputsChanged(current: route.current, outputs: route.outputs)
    }

    /// The simulated iPhone's audio outputs, as `AVAudioSession` would list them: its receiver and speaker, the
    /// audio on the receiver until something moves it.
    private let audioRoute = LockedValue<(current: String, outputs: [AudioOutput])>(
        (
            "earpiece",
            [
                AudioOutput(id: "earpiece", route: .earpiece, name: "iPhone"),
                AudioOutput(id: "speaker", route: .speaker, name: "Speaker"),
            ]
        ))

    /// The output the audio goes to now (an ``AudioOutput/id``).
    public var currentAudioOutput: String { audioRoute.snapshot.current }

    /// The app chose an output, as `CallKitAdapter` does through `AVAudioSession`: the simulated system moves the
    /// audio there when it lists the output, and tells the attached coordinator as a route change.
    public func applyAudioOutput(_ output: AudioOutput?) {
        // Nil: the calls are over; the simulated iPhone's audio goes back to the receiver, as iOS's would.
        let output = output ?? AudioOutput(id: "earpiece", route: .earpiece, name: "iPhone")
        let moved = audioRoute.withLock { route -> (String, [AudioOutput])? in
            guard route.outputs.contains(where: { $0.id == output.id }), route.current != output.id else { return nil }
            route.current = output.id
            return (route.current, route.outputs)
        }
        guard let (current, outputs) = moved, let coordinator = attached.withLock({ $0.coordinator }) else { return }
        coordinator.audioOutputsChanged(current: current, outputs: outputs)
    }

    /// Number of `reportNewIncomingCall` calls so far, accepted or not (PushKit's rule counts these).
    public var reportCount: Int { store.withLock { $0.reportCount } }

    /// Every change so far.
    public var changes: [Change] { store.withLock { $0.history.map(\.change) } }

    /// Every change so far with its time, in the order CallKit applied them.
    public var history: [Moment] { store.withLock { $0.history } }

    /// The native call with this UUID.
    public func call(_ id: UUID) -> NativeCall? { store.withLock { $0.calls[id] } }

    /// The user taps the newest call in the phone's Recents: what iOS hands the app (an `INStartCallIntent` naming the
    /// handle, read by RingerKitApple's `RingerPhone.callBackRequest(from:)`), as the platform-neutral request.
    /// - Returns: nil when Recents lists no call whose handle is a Ringer user id.
    public func userTapsNewestRecent() -> CallBackRequest? {
        let newest = store.withLock { $0.recents.last }
        return newest.flatMap { CallBackRequest(handle: $0.handle, hasVideo: $0.hasVideo) }
    }

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
                // iOS lists every reported call in Recents, by the handle the app reported (RingerKitApple's
                // CallKitAdapter reports `report.handle`, `.generic`).
                store.recents.append((report.handle, report.hasVideo))
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

    /// The app asked to play keypad tones: a requested `CXPlayDTMFCallAction`, performed on the attached coordinator.
    public func requestDTMF(id: UUID, digits: String) {
        guard let coordinator = attached.withLock({ $0.coordinator }) else { return }
        playDTMF(id, digits: digits, coordinator: coordinator)
    }

    /// The user taps keys on the call screen's keypad: CallKit performs one `CXPlayDTMFCallAction` per key, the next
    /// only once the app fulfilled the last (Apple, `CXPlayDTMFCallAction`), so a failed key stops the rest.
    /// - Returns: how many keys the app took.
    @discardableResult
    public func userPressesKeys(_ id: UUID, digits: String, coordinator: CallCoordinator) -> Int {
        var taken = 0
        for digit in digits {
            guard playDTMF(id, digits: String(digit), coordinator: coordinator) else { break }
            taken += 1
        }
        return taken
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

    /// A `CXSetHeldCallAction` performed on the app. A resume over a connected cellular call holds that call (a swap);
    /// the app's audio session follows: deactivated when none of its calls is heard any more, activated on a resume.
    /// - Returns: whether the app fulfilled the action.
    @discardableResult
    private func setHeld(_ id: UUID, held: Bool, coordinator: CallCoordinator) -> Bool {
        guard store.withLock({ $0.calls[id]?.state == .active }) else { return false }
        guard coordinator.hold(callID: id, held: held) else { return false }
        let (changed, swapped, silent) = store.withLock { store -> (Bool, Bool, Bool) in
            guard var call = store.calls[id], call.state == .active, call.held != held else {
                return (false, false, false)
            }
            call.held = held
            call.audioActive = !held
            store.calls[id] = call
            store.append(.held(id, held), at: now())
            var swapped = false
            if !held, store.cellular == .active {
                store.cellular = .held
                store.append(.cellularHeld, at: now())
                swapped = true
            }
            let silent = !store.calls.values.contains { $0.state == .active && !$0.held }
            return (true, swapped, silent)
        }
        guard changed else { return true }
        onChange(.held(id, held))
        if swapped { onChange(.cellularHeld) }
        if !held {
            coordinator.audioSessionActivated()
        } else if silent {
            coordinator.audioSessionDeactivated()
        }
        return true
    }

    /// A cellular call arrives while the app may have calls up, and the user answers it at once with `answer`.
    /// "Hold & Accept" holds every connected call of the app (one `CXSetHeldCallAction` each; CallKit ends a call whose
    /// hold the app fails, as the user asked for the line) and deactivates the app's audio session; without
    /// ``supportsHolding`` the screen offers "End & Accept" only, which is what the user gets. "Decline" changes nothing.
    /// - Parameters:
    ///   - answer: the user's choice.
    ///   - coordinator: the app's coordinator, which performs the actions.
    /// - Returns: how the cellular call was answered (`endAndAccept` for a `holdAndAccept` the app's calls cannot take).
    @discardableResult
    public func cellularCallArrives(answer: CellularAnswer, coordinator: CallCoordinator) -> CellularAnswer {
        let connected = store.withLock { store -> [UUID] in
            store.append(.cellularArrived, at: now())
            return store.calls.values.filter { $0.state == .active && !$0.held }.map(\.id).sorted {
                $0.uuidString < $1.uuidString
            }
        }
        onChange(.cellularArrived)
        let taken: CellularAnswer = answer == .holdAndAccept && !supportsHolding ? .endAndAccept : answer
        switch taken {
        case .decline:
            store.withLock { $0.append(.cellularAnswered(.decline), at: now()) }
            onChange(.cellularAnswered(.decline))
            return taken
        case .holdAndAccept:
            for id in connected where !setHeld(id, held: true, coordinator: coordinator) {
                userEnds(id, coordinator: coordinator)
            }
        case .endAndAccept:
            for id in connected { userEnds(id, coordinator: coordinator) }
        }
        store.withLock { store in
            store.cellular = .active
            for id in store.calls.keys { store.calls[id]?.audioActive = false }
            store.append(.cellularAnswered(taken), at: now())
        }
        onChange(.cellularAnswered(taken))
        coordinator.audioSessionDeactivated()
        return taken
    }

    /// The cellular call ends (the other party hung up, or the user did). The app's held calls stay held: the system
    /// does not resume them.
    public func cellularCallEnds() {
        let ended = store.withLock { store -> Bool in
            guard store.cellular != nil else { return false }
            store.cellular = nil
            store.append(.cellularEnded, at: now())
            return true
        }
        if ended { onChange(.cellularEnded) }
    }

    /// A `CXPlayDTMFCallAction` performed on the app; only a connected call has a keypad.
    @discardableResult
    private func playDTMF(_ id: UUID, digits: String, coordinator: CallCoordinator) -> Bool {
        guard store.withLock({ $0.calls[id]?.state == .active }) else { return false }
        guard coordinator.dtmf(callID: id, digits: digits) else { return false }
        store.withLock { $0.append(.dtmf(id, digits), at: now()) }
        onChange(.dtmf(id, digits))
        return true
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
