public import Foundation
public import RingerKit
import RingerSupport
public import RingerWire

/// RingerKit's ``CallUI`` as a self-managed `ConnectionService` (Android: "Build a calling app",
/// `PhoneAccount.CAPABILITY_SELF_MANAGED`), following docs/android-integration.md, with Telecom's rules:
///
/// - `reportIncomingCall` is `TelecomManager.addNewIncomingCall`: Telecom answers with
///   `onCreateIncomingConnection` (the app builds a `Connection` and calls `setRinging()`: completion nil)
///   or `onCreateIncomingConnectionFailed` (completion with an error). Without `MANAGE_OWN_CALLS` the call
///   throws `SecurityException`. One `Connection` per call id: a second report for a known id is refused.
/// - `onAnswer` asks the coordinator to answer; the connection becomes active (`setActive`) only when the
///   server confirmed, else it ends with `ERROR`. `onReject` and `onDisconnect` end the call through the
///   coordinator (decline, cancel or end).
/// - Every ending is `setDisconnected(DisconnectCause)` then `destroy()`, with the cause mapped from
///   RingerKit's reason (``DisconnectCause/init(endReason:)``) or the local action
///   (`REJECTED`, `LOCAL`).
/// - The incoming-call UI is in-app when the app is on screen; on a locked phone it is full-screen only with
///   `USE_FULL_SCREEN_INTENT` and while the app may launch it (foreground, or a high-priority FCM message
///   being handled); otherwise a heads-up notification. The call's notification is exempt from
///   `POST_NOTIFICATIONS` (self-managed calls), so a call rings without that permission.
/// - A self-managed app plays its own ringtone: it sounds while any incoming connection rings and is not
///   answered, and stops when the last one is answered, declined or ended, in any order.
/// - When the app's process dies, Telecom disconnects its connections (``processDied()``); the app is not told.
///
/// Every change is kept in ``history`` in the order it was applied. Thread-safe.
public final class SimulatedConnectionService: CallUI, Sendable {
    /// What the phone is like when a call arrives; the service asks for it at every report.
    public struct Environment: Sendable, Hashable {
        /// The app's granted permissions.
        public var permissions: Set<AndroidPermission>
        /// True when the keyguard is showing.
        public var locked: Bool
        /// True when the app's activity is on screen.
        public var appInForeground: Bool
        /// True while a high-priority FCM message is being handled (Android exempts it from background
        /// start restrictions; a normal-priority or demoted one is not).
        public var highPriorityMessage: Bool
        /// True when another app holds a call Telecom cannot hold: incoming connections fail.
        public var anotherAppInCall: Bool

        /// Creates an environment.
        public init(
            permissions: Set<AndroidPermission> = Set(AndroidPermission.allCases), locked: Bool = false,
            appInForeground: Bool = true, highPriorityMessage: Bool = false, anotherAppInCall: Bool = false
        ) {
            self.permissions = permissions
            self.locked = locked
            self.appInForeground = appInForeground
            self.highPriorityMessage = highPriorityMessage
            self.anotherAppInCall = anotherAppInCall
        }
    }

    /// Something Telecom, the connection or the app's ringtone did, in order.
    public enum Change: Sendable, Hashable {
        /// `addNewIncomingCall` was called for this id.
        case addNewIncomingCall(UUID)
        /// The report was refused before any connection existed (known id, `SecurityException`, or
        /// `onCreateIncomingConnectionFailed`).
        case refused(UUID, ConnectionServiceError)
        /// `onCreateIncomingConnection` built the connection and it is `setRinging()`, shown this way.
        case ringing(UUID, SimulatedConnection.Presentation)
        /// `placeCall` → `onCreateOutgoingConnection` → `setDialing()`.
        case dialing(UUID)
        /// `Connection.onAnswer()`.
        case onAnswer(UUID)
        /// `Connection.onReject()`.
        case onReject(UUID)
        /// `Connection.onDisconnect()`.
        case onDisconnect(UUID)
        /// `setActive()`.
        case active(UUID)
        /// `setDisconnected(cause)`.
        case disconnected(UUID, DisconnectCause)
        /// `destroy()`.
        case destroyed(UUID)
        /// The app's process died: Telecom disconnected the connection.
        case endedBySystem(UUID)
        /// The ringtone started.
        case ringerStarted
        /// The ringtone stopped.
        case ringerStopped
    }

    /// One change and when it happened, on the service's clock.
    public typealias Moment = TimedChange<Change>

    private struct Store {
        var connections: [UUID: SimulatedConnection] = [:]
        var history: [Moment] = []
        var ringerOn = false

        mutating func record(_ change: Change, at date: Date) { history.append(Moment(at: date, change: change)) }
    }

    private let store = LockedValue(Store())
    private let now: @Sendable () -> Date
    private let environment: @Sendable () -> Environment
    private let onChange: @Sendable (Change) -> Void

    /// Creates the service.
    /// - Parameters:
    ///   - now: the clock that stamps ``history`` (a scenario's clock on simulated phones).
    ///   - environment: the phone's state, read at each report and call placement.
    ///   - onChange: told of every change, in order for one call, outside the service's lock.
    public init(
        now: @escaping @Sendable () -> Date = { Date() },
        environment: @escaping @Sendable () -> Environment = { Environment() },
        onChange: @escaping @Sendable (Change) -> Void = { _ in }
    ) {
        self.now = now
        self.environment = environment
        self.onChange = onChange
    }

    /// Every change so far with its time.
    public var history: [Moment] { store.withLock { $0.history } }

    /// Every change so far.
    public var changes: [Change] { store.withLock { $0.history.map(\.change) } }

    /// Every connection, destroyed ones included (their ids stay known: a call id never rings twice).
    public var connections: [SimulatedConnection] { store.withLock { Array($0.connections.values) } }

    /// The connection for a call id.
    public func connection(_ id: UUID) -> SimulatedConnection? { store.withLock { $0.connections[id] } }

    /// True while the ringtone sounds.
    public var isRinging: Bool { store.withLock { $0.ringerOn } }

    /// The ids of the incoming calls ringing now (not yet answered).
    public var ringingCallIDs: [UUID] { store.withLock { $0.connections.values.filter(\.isRinging).map(\.id) } }

    /// True while a connection is active or being set up by the user (dialing, or answered and waiting for
    /// the server): the app's call needs its foreground service.
    public var hasCallInProgress: Bool {
        store.withLock { $0.connections.values.contains { Self.inProgress($0) } }
    }

    private static func inProgress(_ connection: SimulatedConnection) -> Bool {
        connection.state == .active || connection.state == .dialing || connection.answerRequested
    }

    // MARK: CallUI

    public func reportIncomingCall(_ report: IncomingCallReport, completion: @escaping @Sendable ((any Error)?) -> Void)
    {
        let environment = environment()
        let presentation = Self.presentation(in: environment)
        let (changes, error) = apply { store -> ConnectionServiceError? in
            store.record(.addNewIncomingCall(report.id), at: now())
            let refusal: ConnectionServiceError? =
                if store.connections[report.id] != nil {
                    .callAlreadyExists
                } else if !environment.permissions.contains(.manageOwnCalls) {
                    .securityException
                } else if environment.anotherAppInCall { .incomingConnectionFailed } else { nil }
            if let refusal {
                store.record(.refused(report.id, refusal), at: now())
                return refusal
            }
            store.connections[report.id] = SimulatedConnection(
                id: report.id, party: report.caller, hasVideo: report.hasVideo, direction: .incoming, state: .ringing,
                presentation: presentation, answerRequested: false)
            store.record(.ringing(report.id, presentation), at: now())
            return nil
        }
        changes.forEach(onChange)
        completion(error)
    }

    public func reportCallEnded(id: UUID, at date: Date, reason: CallEndReason) {
        disconnect(id, cause: DisconnectCause(endReason: reason))
    }

    /// The user answered, however: a connection still ringing is marked answering (the ringtone stops), as
    /// `TelecomCallUi` does; it goes active only when the server confirmed.
    public func reportCallAnswering(id: UUID, at date: Date) {
        let (changes, _) = apply { store in
            guard var connection = store.connections[id], connection.isRinging else { return }
            connection.answerRequested = true
            store.connections[id] = connection
        }
        changes.forEach(onChange)
    }

    /// The server confirmed the answer, however it was given: the connection goes active (`setActive()`) if it
    /// is not yet, so an answer from the app's own screen stops the ringing too; once.
    public func reportCallAnswered(id: UUID, at date: Date) {
        setActive(id)
    }

    public func reportOutgoingCallConnected(id: UUID, at date: Date) {
        let (changes, _) = apply { store in
            var connection =
                store.connections[id]
                ?? SimulatedConnection(
                    id: id, party: Party(id: "unknown"), hasVideo: false, direction: .outgoing, state: .dialing,
                    answerRequested: false)
            guard connection.state == .dialing else { return }
            connection.state = .active
            store.connections[id] = connection
            store.record(.active(id), at: now())
        }
        changes.forEach(onChange)
    }

    /// How the incoming-call UI shows in `environment`.
    static func presentation(in environment: Environment) -> SimulatedConnection.Presentation {
        if environment.appInForeground, !environment.locked { return .inApp }
        let mayLaunch = environment.appInForeground || environment.highPriorityMessage
        if environment.locked, mayLaunch, environment.permissions.contains(.useFullScreenIntent) { return .fullScreen }
        return .headsUp
    }

    // MARK: Outgoing calls

    /// `TelecomManager.placeCall` for a call the app started: `onCreateOutgoingConnection` then `setDialing()`.
    /// - Parameters:
    ///   - id: the server's call id.
    ///   - callee: who is called.
    ///   - hasVideo: whether it is a video call.
    /// - Throws: ``ConnectionServiceError/callAlreadyExists`` for a known id,
    ///   ``ConnectionServiceError/securityException`` without `MANAGE_OWN_CALLS`.
    public func placeCall(id: UUID, callee: Party, hasVideo: Bool) throws {
        let permitted = environment().permissions.contains(.manageOwnCalls)
        let (changes, error) = apply { store -> ConnectionServiceError? in
            if store.connections[id] != nil { return .callAlreadyExists }
            guard permitted else { return .securityException }
            store.connections[id] = SimulatedConnection(
                id: id, party: callee, hasVideo: hasVideo, direction: .outgoing,
                state: .dialing, answerRequested: false)
            store.record(.dialing(id), at: now())
            return nil
        }
        changes.forEach(onChange)
        if let error { throw error }
    }

    // MARK: The user's actions

    /// The user taps Answer: `Connection.onAnswer()`. The ringtone stops; the coordinator answers, and the
    /// connection becomes active (`setActive`) once the server confirmed, or ends with `ERROR`.
    /// - Parameters:
    ///   - id: the call.
    ///   - coordinator: the app's coordinator.
    ///   - completion: true once the connection is active.
    public func onAnswer(
        _ id: UUID, coordinator: CallCoordinator, completion: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        let (changes, ringing) = apply { store -> Bool in
            guard var connection = store.connections[id], connection.isRinging else { return false }
            connection.answerRequested = true
            store.connections[id] = connection
            store.record(.onAnswer(id), at: now())
            return true
        }
        changes.forEach(onChange)
        guard ringing else { return completion(false) }
        coordinator.answer(callID: id) { [weak self] confirmed in
            guard let self else { return completion(false) }
            if confirmed {
                completion(self.setActive(id))
            } else {
                self.disconnect(id, cause: DisconnectCause(.error, reason: "the answer was not confirmed"))
                completion(false)
            }
        }
    }

    /// The user taps Decline: `Connection.onReject()`; `setDisconnected(REJECTED)` and the coordinator declines.
    public func onReject(_ id: UUID, coordinator: CallCoordinator) {
        userEnds(id, change: .onReject(id), cause: DisconnectCause(.rejected), coordinator: coordinator) {
            $0.isRinging
        }
    }

    /// The user hangs up: `Connection.onDisconnect()`; `setDisconnected(LOCAL)` and the coordinator cancels or ends.
    public func onDisconnect(_ id: UUID, coordinator: CallCoordinator) {
        userEnds(id, change: .onDisconnect(id), cause: DisconnectCause(.local), coordinator: coordinator) {
            $0.state != .disconnected
        }
    }

    /// The app cannot go on with a call (a foreground service it needs was refused): it ends it cleanly with
    /// `setDisconnected(ERROR)` and tells the server through the coordinator (decline, cancel or end).
    /// - Parameters:
    ///   - id: the call.
    ///   - reason: why, kept as the cause's reason.
    ///   - coordinator: the app's coordinator.
    public func fail(_ id: UUID, reason: String, coordinator: CallCoordinator) {
        let live = disconnect(id, cause: DisconnectCause(.error, reason: reason))
        if live { coordinator.end(callID: id) { _ in } }
    }

    private func userEnds(
        _ id: UUID, change: Change, cause: DisconnectCause, coordinator: CallCoordinator,
        when allowed: (SimulatedConnection) -> Bool
    ) {
        let (changes, live) = apply { store -> Bool in
            guard let connection = store.connections[id], allowed(connection) else { return false }
            store.record(change, at: now())
            return true
        }
        changes.forEach(onChange)
        guard live else { return }
        disconnect(id, cause: cause)
        coordinator.end(callID: id) { _ in }
    }

    /// The app's process died (swiped away with no foreground service, force-stopped): Telecom disconnects
    /// every live connection with `ERROR`. Nobody tells the server.
    public func processDied() {
        let (changes, _) = apply { store in
            for (id, var connection) in store.connections where connection.state != .disconnected {
                connection.state = .disconnected
                connection.answerRequested = false
                connection.disconnectCause = DisconnectCause(.error, reason: "the app's process died")
                store.connections[id] = connection
                store.record(.endedBySystem(id), at: now())
            }
        }
        changes.forEach(onChange)
    }

    // MARK: State changes

    /// `setActive()` on an answered or dialing connection; false when it ended meanwhile.
    @discardableResult
    private func setActive(_ id: UUID) -> Bool {
        let (changes, activated) = apply { store -> Bool in
            guard var connection = store.connections[id], connection.state == .ringing || connection.state == .dialing
            else { return false }
            connection.state = .active
            connection.answerRequested = false
            store.connections[id] = connection
            store.record(.active(id), at: now())
            return true
        }
        changes.forEach(onChange)
        return activated
    }

    /// `setDisconnected(cause)` then `destroy()`, once; false when it was not live.
    @discardableResult
    private func disconnect(_ id: UUID, cause: DisconnectCause) -> Bool {
        let (changes, live) = apply { store -> Bool in
            guard var connection = store.connections[id], connection.state != .disconnected else { return false }
            connection.state = .disconnected
            connection.answerRequested = false
            connection.disconnectCause = cause
            store.connections[id] = connection
            store.record(.disconnected(id, cause), at: now())
            store.record(.destroyed(id), at: now())
            return true
        }
        changes.forEach(onChange)
        return live
    }

    /// Runs `body` under the lock, then starts or stops the ringtone to match the connections, and returns the
    /// changes it recorded (to hand to `onChange` outside the lock) with `body`'s result.
    private func apply<T>(_ body: (inout Store) -> T) -> ([Change], T) {
        store.withLock { store in
            let first = store.history.count
            let result = body(&store)
            let ringing = store.connections.values.contains(where: \.isRinging)
            if ringing != store.ringerOn {
                store.ringerOn = ringing
                store.record(ringing ? .ringerStarted : .ringerStopped, at: now())
            }
            return (store.history[first...].map(\.change), result)
        }
    }
}
