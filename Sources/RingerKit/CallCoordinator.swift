public import Foundation
import RingerSync
public import RingerWire

/// The platform-neutral brain of ringing on a device: turns VoIP pushes, server events and the user's
/// actions on the native call UI into API calls and call-UI reports, so the rules every app gets wrong
/// hold by construction:
///
/// - **Report first**: ``handleVoIPPush(_:)`` reports a call to the ``CallUI`` before it returns,
///   whatever the push holds; an unusable push is reported and ended at once (Apple: PushKit, iOS 13+).
/// - **One call per server call id**: the CallKit UUID is the call id; the same call arriving by push
///   and by WebSocket, in either order, is one call on screen.
/// - **Answer before the app is ready**: a push that wakes the app before it called
///   ``connect(api:)`` still rings; an answer given then is kept against the call id and sent as soon
///   as the API is available; the native answer completes only when the server confirmed it.
/// - **Remote endings** close the native call with the matching `CXCallEndedReason`, exactly once,
///   and a call nobody ended still stops ringing at its deadline even if no event ever arrives.
/// - **Answered calls stay alive without a socket**: while a call is answered and the event stream is not
///   connected (``eventStreamStatusChanged(_:)``), a keepalive goes to the server every ``keepaliveInterval``
///   seconds, so the server does not end the call `connection_lost`; its refusal closes the native call.
///
/// Thread-safe. UI and observer callbacks are made outside the coordinator's lock.
public final class CallCoordinator: Sendable {
    /// What the coordinator did, for the app's own UI and for tests.
    public enum Observation: Sendable, Equatable {
        /// A VoIP push arrived and was reported (`callID` nil when the push was unusable).
        case pushReported(callID: String?, disposition: PushDisposition)
        /// An incoming call is ringing on the native UI.
        case ringing(callID: String)
        /// The server confirmed this device's answer; media can start.
        case answered(callID: String, media: MediaSession)
        /// An outgoing call was answered by the callee; media can start.
        case outgoingAnswered(callID: String, media: MediaSession)
        /// Start media and the microphone now: the call is answered and the system activated the audio
        /// session (Apple: `CXProviderDelegate.provider(_:didActivate:)`). Never sent before both.
        case mediaCanStart(callID: String, media: MediaSession)
        /// A call ended; `reason` is nil when the local user ended it.
        case ended(callID: String, reason: CallEndReason?)
        /// An event from the server's stream.
        case event(CallEvent)
        /// An API request failed and will not be retried.
        case requestFailed(callID: String, detail: String)
    }

    /// What became of a VoIP push. Every case was reported to the call UI first.
    public enum PushDisposition: String, Sendable, Equatable {
        /// A new call is ringing.
        case ringing
        /// The call was already on screen (it came by WebSocket first): nothing new rings.
        case duplicate
        /// The push could not be read: reported and ended (`failed`).
        case unreadable
        /// The ring deadline had passed (the phone was off): reported and ended (`unanswered`).
        case expired
        /// The call is already over: reported and ended with its reason.
        case alreadyEnded
        /// No user is logged in on this device: reported and ended (`failed`).
        case loggedOut
        /// The push names another user than the one logged in now (the phone changed hands while it
        /// was in flight): reported and ended (`failed`).
        case otherUser
    }

    private enum Direction: Sendable { case incoming, outgoing }
    private enum Phase: Sendable, Equatable { case ringing, answering, active, ended }

    private struct Entry {
        var uuid: UUID
        /// The user an incoming call is for, when the push or event said.
        var calleeID: String? = nil
        var direction: Direction
        var phase: Phase
        var expiresAt: Date
        var answer: (@Sendable (Bool) -> Void)?
        /// The reason the call ended remotely; nil while it is up or when the local user ended it.
        var endReason: CallEndReason?
    }

    /// Whether requests can be made: before ``connect(api:)`` the app is still launching (requests
    /// wait), after `connect(api: nil)` nobody is logged in (pushes are refused).
    private enum Session {
        case launching
        case loggedIn(RingerAPIClient)
        case loggedOut
    }

    private struct State {
        var session = Session.launching
        var calls: [String: Entry] = [:]
        /// Requests waiting for the app to finish launching.
        var waiters: [UUID: CheckedContinuation<RingerAPIClient?, Never>] = [:]
        /// True between the call UI's audio activation and deactivation.
        var audioActive = false
        /// Answered calls whose media waits for the audio session.
        var mediaWaitingForAudio: [String: MediaSession] = [:]
        /// Whether the event stream is connected: the server then hears this app without keepalives.
        var streamConnected = false
        /// Answered calls whose keepalive loop runs.
        var keptAlive: Set<String> = []
    }

    /// Seconds past a call's deadline before the device ends it on its own, if the server's
    /// `call.unanswered` has not arrived by then.
    static let deadlineGrace: TimeInterval = 2

    /// Seconds between keepalives of an answered call while the event stream is down: a third of the
    /// server's default `--call-idle-timeout` (120 s), so two may be lost before the server gives up.
    public static let defaultKeepaliveInterval: TimeInterval = 40

    /// Seconds between keepalives of an answered call while the event stream is not connected.
    public let keepaliveInterval: TimeInterval

    /// This device's id, sent with ringing/accept/decline.
    public let deviceID: String
    private let ui: any CallUI
    private let observer: @Sendable (Observation) -> Void
    private let now: @Sendable () -> Date
    private let sleepUntil: @Sendable (Date) async throws -> Void
    private let pendingActions: any PendingActionStore
    /// Call ids whose hang-up is being sent right now (so a reconnect does not send it twice).
    private let sending = LockedValue<Set<String>>([])
    private let state = LockedValue(State())

    /// Creates the coordinator. Create it at app launch, before PushKit can deliver.
    /// - Parameters:
    ///   - deviceID: stable id of this app install.
    ///   - ui: the native call UI.
    ///   - now: the clock (injectable for tests).
    ///   - sleepUntil: suspends until a time on that clock (its deadline timers use it); real time by
    ///     default. Throws `CancellationError` when the task is cancelled.
    ///   - pendingActions: where hang-ups wait until the server acknowledged them; give a
    ///     ``FilePendingActionStore`` so they survive a relaunch.
    ///   - keepaliveInterval: seconds between keepalives of an answered call while the event stream is not
    ///     connected; keep it at most a third of the server's `--call-idle-timeout`.
    ///   - observer: receives ``Observation``s on any thread.
    public init(deviceID: String, ui: any CallUI, now: @escaping @Sendable () -> Date = { Date() },
                sleepUntil: @escaping @Sendable (Date) async throws -> Void = { deadline in
                    let seconds = deadline.timeIntervalSinceNow
                    if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) }
                },
                pendingActions: any PendingActionStore = InMemoryPendingActionStore(),
                keepaliveInterval: TimeInterval = CallCoordinator.defaultKeepaliveInterval,
                observer: @escaping @Sendable (Observation) -> Void = { _ in }) {
        self.deviceID = deviceID
        self.keepaliveInterval = keepaliveInterval
        self.ui = ui
        self.now = now
        self.sleepUntil = sleepUntil
        self.pendingActions = pendingActions
        self.observer = observer
    }

    /// Makes the logged-in user's API available (after login, or at launch with a stored token), and
    /// releases requests that waited for it (an answer given on the lock screen during launch).
    /// Pass nil when nobody is logged in: VoIP pushes are then reported and ended at once, and calls
    /// still ringing end (`failed`). Calls ringing for another user than `api.userID` (pushed while the
    /// app was launching) end too.
    public func connect(api: RingerAPIClient?) {
        let (waiters, stale) = state.withLock { state -> ([CheckedContinuation<RingerAPIClient?, Never>], [String]) in
            state.session = api.map(Session.loggedIn) ?? .loggedOut
            defer { state.waiters.removeAll() }
            let stale = state.calls.filter { _, entry in
                entry.direction == .incoming && entry.phase == .ringing
                    && (api == nil || Self.isForAnotherUser(entry.calleeID, api: api))
            }
            return (Array(state.waiters.values), Array(stale.keys))
        }
        for callID in stale { endRemotely(callID: callID, reason: .failed) }
        for waiter in waiters { waiter.resume(returning: api) }
        // Hang-ups from before a suspension or relaunch go out now.
        if api != nil { pendingActions.load().forEach(send) }
    }

    /// The API, waiting while the app is still launching, at most until `deadline`.
    private func api(waitingUntil deadline: Date) async -> RingerAPIClient? {
        let id = UUID()
        let sleepUntil = self.sleepUntil
        let timer = Task { [weak self] in
            guard (try? await sleepUntil(deadline)) != nil else { return }
            self?.state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> RingerAPIClient?? in
                switch state.session {
                case .loggedIn(let api): return .some(api)
                case .loggedOut: return .some(nil)
                case .launching:
                    state.waiters[id] = continuation
                    return .none
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    // MARK: VoIP push

    /// Handles a PushKit VoIP push. Reports to the call UI before returning, in every case; call the
    /// PushKit completion handler after this returns.
    /// - Parameter payload: the push's JSON (`{"ringer":{…}}`).
    /// - Returns: what became of the push.
    @discardableResult
    public func handleVoIPPush(_ payload: Data) -> PushDisposition {
        handleIncomingPush(payload, reportsEveryPush: true)
    }

    /// The ringing-push path, shared by VoIP pushes and FCM data messages (``handleDataMessage(_:)``).
    /// - Parameters:
    ///   - payload: `{"ringer":{…}}` as in a VoIP push.
    ///   - reportsEveryPush: true under PushKit's rule (every push is reported; one that cannot ring is
    ///     reported and ended at once); false where the platform has no such rule (Android): only a push
    ///     that rings reaches the call UI, so a stale or unusable one never flashes a call on screen.
    /// - Returns: what became of the push.
    func handleIncomingPush(_ payload: Data, reportsEveryPush: Bool) -> PushDisposition {
        guard let push = try? RingerJSON.decode(VoIPPush.self, from: payload),
              push.ringer.type == .callIncoming, let uuid = UUID(uuidString: push.ringer.callId) else {
            if reportsEveryPush { reportAndEnd(id: UUID(), caller: Party(id: "unknown"), reason: .failed) }
            observer(.pushReported(callID: nil, disposition: .unreadable))
            return .unreadable
        }
        let body = push.ringer
        let callID = body.callId.lowercased()
        let expiresAt = Date(unixMilliseconds: body.expiresAt)
        let report = IncomingCallReport(id: uuid, caller: body.caller, hasVideo: body.hasVideo)
        var endedWith: CallEndReason?
        let disposition = state.withLock { state -> PushDisposition in
            if let entry = state.calls[callID] {
                endedWith = entry.endReason
                return entry.phase == .ended ? .alreadyEnded : .duplicate
            }
            if expiresAt <= now() { return .expired }
            switch state.session {
            case .loggedOut: return .loggedOut
            case .loggedIn(let api) where Self.isForAnotherUser(body.calleeId, api: api): return .otherUser
            default: break
            }
            state.calls[callID] = Entry(uuid: uuid, calleeID: body.calleeId, direction: .incoming, phase: .ringing,
                                        expiresAt: expiresAt)
            return .ringing
        }
        switch disposition {
        case .ringing:
            ui.reportIncomingCall(report) { [weak self] error in self?.incomingReported(callID: callID, error: error) }
        case _ where !reportsEveryPush:
            break
        case .duplicate:
            // Apple requires a report for every VoIP push; CallKit refuses the known UUID, so nothing new rings.
            ui.reportIncomingCall(report) { _ in }
        case .expired:
            reportAndEnd(id: uuid, caller: body.caller, reason: .unanswered)
        case .alreadyEnded:
            // The extra report Apple requires ends as the call did here (a call this device's user ended
            // has no remote reason to repeat).
            reportAndEnd(id: UUID(), caller: body.caller, reason: endedWith ?? .remoteEnded)
        case .loggedOut, .otherUser, .unreadable:
            reportAndEnd(id: uuid, caller: body.caller, reason: .failed)
        }
        observer(.pushReported(callID: callID, disposition: disposition))
        return disposition
    }

    /// True when a call names a callee and the API names a different logged-in user.
    private static func isForAnotherUser(_ calleeID: String?, api: RingerAPIClient?) -> Bool {
        guard let calleeID, let userID = api?.userID else { return false }
        return calleeID != userID
    }

    /// Handles a PushKit payload given as `PKPushPayload.dictionaryPayload`.
    @discardableResult
    public func handleVoIPPush(dictionary: [AnyHashable: Any]) -> PushDisposition {
        let data = (try? JSONSerialization.data(withJSONObject: dictionary)) ?? Data()
        return handleVoIPPush(data)
    }

    private func reportAndEnd(id: UUID, caller: Party, reason: CallEndReason) {
        ui.reportIncomingCall(IncomingCallReport(id: id, caller: caller, hasVideo: false)) { _ in }
        ui.reportCallEnded(id: id, at: now(), reason: reason)
    }

    private func incomingReported(callID: String, error: (any Error)?) {
        guard error == nil else {
            // The system refused to ring (Do Not Disturb, blocked): forget it so a later push can ring.
            _ = state.withLock { $0.calls.removeValue(forKey: callID) }
            return
        }
        observer(.ringing(callID: callID))
        armDeadline(callID: callID)
        // A refusal here means the call ended while this device was waking (409 with the state), or is
        // not this user's call (a push for the previous user of the phone): close it.
        perform(callID: callID, attempts: 3, onFailure: { [weak self] problem in
            guard let problem else { return }
            // `ended` means another device answered and the call is over since: this one is only now ringing.
            let reason = problem.callState == .ended ? .answeredElsewhere
                : problem.callState.map(Self.endReason(forFinal:)) ?? .failed
            self?.endRemotely(callID: callID, reason: reason)
        }) { api, device in _ = try await api.ringing(callID: callID, deviceID: device) }
    }

    /// Ends a still-ringing call shortly after its deadline, so it never rings on if the server's
    /// `call.unanswered` is lost (no socket, suspended app).
    private func armDeadline(callID: String) {
        guard let expiresAt = state.withLock({ $0.calls[callID]?.expiresAt }) else { return }
        let sleepUntil = self.sleepUntil
        Task { [weak self] in
            guard (try? await sleepUntil(expiresAt.addingTimeInterval(Self.deadlineGrace))) != nil else { return }
            guard let self, self.state.withLock({ $0.calls[callID]?.phase == .ringing }) else { return }
            self.endRemotely(callID: callID, reason: .unanswered)
        }
    }

    /// The reason for a call the server ended itself (``Call/endReason``): `failed` when the connection was
    /// lost (the call broke; CallKit's "an error occurred"), `remoteEnded` at the maximum duration (the far end,
    /// the server, hung up a call that worked); nil when a participant ended it.
    static func endReason(forSystemEnd call: Call) -> CallEndReason? {
        switch call.endReason {
        case .connectionLost?: .failed
        case .some: .remoteEnded
        case nil: nil
        }
    }

    /// The reason a callee device shows for a call that reached `state` without it.
    static func endReason(forFinal state: CallState) -> CallEndReason {
        switch state {
        case .unanswered: .unanswered
        case .accepted: .answeredElsewhere
        case .declined: .declinedElsewhere
        case .failed: .failed
        default: .remoteEnded
        }
    }

    // MARK: Audio

    /// The call UI activated the audio session (`CXProviderDelegate.provider(_:didActivate:)`): media of
    /// answered calls may start now. Starting audio earlier breaks it on iOS (Apple: "Making and
    /// receiving VoIP calls": configure the session, start audio only once it is activated).
    public func audioSessionActivated() {
        let ready = state.withLock { state -> [(String, MediaSession)] in
            state.audioActive = true
            defer { state.mediaWaitingForAudio.removeAll() }
            return Array(state.mediaWaitingForAudio)
        }
        for (callID, media) in ready { observer(.mediaCanStart(callID: callID, media: media)) }
    }

    /// The call UI deactivated the audio session (`provider(_:didDeactivate:)`).
    public func audioSessionDeactivated() {
        state.withLock { $0.audioActive = false }
    }

    /// A media session is known for an answered call: start at once if audio is active, else wait.
    private func mediaReady(callID: String, media: MediaSession) {
        let startNow = state.withLock { state -> Bool in
            guard state.calls[callID]?.phase == .active else { return false }
            if state.audioActive { return true }
            state.mediaWaitingForAudio[callID] = media
            return false
        }
        if startNow { observer(.mediaCanStart(callID: callID, media: media)) }
    }

    // MARK: Notice pushes

    /// Handles an ordinary (non-VoIP) push about a call (``NoticePush``): a background notice that the
    /// call was answered or declined elsewhere or cancelled ends the native call, as the matching
    /// WebSocket event would. Payloads that are not Ringer notices are ignored.
    /// - Returns: the event type the notice carried, if it was one.
    @discardableResult
    public func handleNotificationPush(_ payload: Data) -> EventType? {
        guard let notice = try? RingerJSON.decode(NoticePush.self, from: payload) else { return nil }
        let callID = notice.ringer.callId.lowercased()
        switch notice.ringer.type {
        case .callAnsweredElsewhere: endRemotely(callID: callID, reason: .answeredElsewhere)
        case .callDeclinedElsewhere: endRemotely(callID: callID, reason: .declinedElsewhere)
        case .callCancelled: endRemotely(callID: callID, reason: .remoteEnded)
        case .callUnanswered: endRemotely(callID: callID, reason: .unanswered)
        default: break
        }
        return notice.ringer.type
    }

    // MARK: Server events

    /// Handles an event from the ``EventStream``.
    public func handle(_ event: CallEvent) {
        observer(.event(event))
        let callID = event.call.callId
        switch event.type {
        case .callIncoming:
            guard let uuid = UUID(uuidString: callID), event.call.state == .ringing else { return }
            let isNew = state.withLock { state -> Bool in
                guard state.calls[callID] == nil, event.call.expiresAt > now() else { return false }
                state.calls[callID] = Entry(uuid: uuid, calleeID: event.call.callee.id, direction: .incoming,
                                            phase: .ringing, expiresAt: event.call.expiresAt)
                return true
            }
            guard isNew else { return }
            ui.reportIncomingCall(IncomingCallReport(id: uuid, caller: event.call.caller, hasVideo: event.call.hasVideo)) {
                [weak self] error in self?.incomingReported(callID: callID, error: error)
            }
        case .callAccepted:
            outgoingCallAnswered(callID: callID)
        case .callCancelled, .callDeclined:
            endRemotely(callID: callID, reason: .remoteEnded)
        case .callEnded:
            endRemotely(callID: callID, reason: endedReason(event.call))
        case .callAnsweredElsewhere:
            endRemotely(callID: callID, reason: .answeredElsewhere)
        case .callDeclinedElsewhere:
            endRemotely(callID: callID, reason: .declinedElsewhere)
        case .callUnanswered:
            endRemotely(callID: callID, reason: .unanswered)
        default:
            break
        }
    }

    /// The callee answered this device's outgoing call: connect it on the native UI and fetch the
    /// caller's media session. Once per call, whether the news came by event or by ``refreshCalls()``.
    private func outgoingCallAnswered(callID: String) {
        let isOutgoing = state.withLock { state -> Bool in
            guard var entry = state.calls[callID], entry.direction == .outgoing, entry.phase == .ringing else { return false }
            entry.phase = .active
            state.calls[callID] = entry
            return true
        }
        guard isOutgoing, let uuid = UUID(uuidString: callID) else { return }
        ui.reportOutgoingCallConnected(id: uuid, at: now())
        keepAlive(callID: callID)
        perform(callID: callID, attempts: 3) { [observer, weak self] api, _ in
            let media = try await api.media(callID: callID)
            observer(.outgoingAnswered(callID: callID, media: media))
            self?.mediaReady(callID: callID, media: media)
        }
    }

    /// Re-reads every call still up on the native UI and closes the ones that ended while no event could
    /// reach this device. Call it when the event stream connects or reconnects (`.connected`, `.restored`): a
    /// stream with no resume point (an app woken by a push before it ever connected) replays nothing, and
    /// an answered call has neither a deadline nor a notice push to close it otherwise.
    public func refreshCalls() {
        let live = state.withLock { state in state.calls.filter { $0.value.phase != .ended }.map(\.key) }
        for callID in live {
            perform(callID: callID, attempts: 3) { [weak self] api, _ in
                let call = try await api.call(id: callID)
                guard let self else { return }
                // A caller whose app missed `call.accepted` (no resume point yet) learns of the answer here.
                if call.state == .accepted, self.state.withLock({ $0.calls[callID]?.direction == .outgoing }) {
                    self.outgoingCallAnswered(callID: callID)
                }
                guard let reason = self.reasonIfOver(call) else { return }
                self.endRemotely(callID: callID, reason: reason)
            }
        }
    }

    /// The reason to close `call` with on this device, or nil while it is still up here.
    private func reasonIfOver(_ call: Call) -> CallEndReason? {
        guard let direction = state.withLock({ $0.calls[call.callId]?.direction }) else { return nil }
        let answeredHere = call.acceptedDeviceId == deviceID
        switch (direction, call.state) {
        case (_, .ringing), (.outgoing, .accepted): return nil
        case (.incoming, .accepted): return answeredHere ? nil : .answeredElsewhere
        case (.incoming, .ended): return answeredHere ? Self.endReason(forSystemEnd: call) ?? .remoteEnded : .answeredElsewhere
        case (.outgoing, .ended): return Self.endReason(forSystemEnd: call) ?? .remoteEnded
        case (.incoming, _): return Self.endReason(forFinal: call.state)
        case (.outgoing, .unanswered): return .unanswered
        case (.outgoing, .failed): return .failed
        case (.outgoing, _): return .remoteEnded
        }
    }

    /// The reason `call.ended` gives: `remoteEnded` for the caller and for the device that answered (or the
    /// server's own reason, ``endReason(forSystemEnd:)``); `answeredElsewhere` for the callee's other devices,
    /// which learn of the answer only now (they missed `call.answered_elsewhere`, e.g. their socket came up
    /// after it).
    private func endedReason(_ call: Call) -> CallEndReason {
        let incoming = state.withLock { $0.calls[call.callId]?.direction == .incoming }
        guard incoming, let answered = call.acceptedDeviceId, answered != deviceID else {
            return Self.endReason(forSystemEnd: call) ?? .remoteEnded
        }
        return .answeredElsewhere
    }

    /// Ends a call for a reason the local user did not cause; reports it to the UI exactly once.
    private func endRemotely(callID: String, reason: CallEndReason) {
        let ended = state.withLock { state -> (UUID, (@Sendable (Bool) -> Void)?)? in
            guard var entry = state.calls[callID], entry.phase != .ended else { return nil }
            entry.phase = .ended
            entry.endReason = reason
            let answer = entry.answer
            entry.answer = nil
            state.calls[callID] = entry
            state.mediaWaitingForAudio[callID] = nil
            return (entry.uuid, answer)
        }
        guard let (uuid, answer) = ended else { return }
        // The end first, then the pending answer action's failure: CallKit ends a call whose answer action
        // fails, and would then ignore the report, showing a failed call instead of this reason.
        ui.reportCallEnded(id: uuid, at: now(), reason: reason)
        answer?(false)
        observer(.ended(callID: callID, reason: reason))
    }

    // MARK: User actions on the native call UI

    /// The user answered on the native UI (`CXAnswerCallAction`). `completion(true)` fulfils the
    /// action once the server confirmed; `completion(false)` fails it (the call ended meanwhile).
    public func answer(callID uuid: UUID, completion: @escaping @Sendable (Bool) -> Void) {
        let callID = uuid.uuidString.lowercased()
        let ringing = state.withLock { state -> Bool in
            guard var entry = state.calls[callID], entry.direction == .incoming, entry.phase == .ringing else { return false }
            entry.phase = .answering
            entry.answer = completion
            state.calls[callID] = entry
            return true
        }
        guard ringing else { return completion(false) }
        sendAccept(callID: callID)   // waits for the API if the app is still launching
    }

    private func sendAccept(callID: String) {
        perform(callID: callID, attempts: 5, onFailure: { [weak self] problem in
            // The answer lost to whatever ended the call first: say which (a decline on another device is
            // `declinedElsewhere`, a ring-out `unanswered`), as the matching event would have.
            let reason: CallEndReason = problem?.type == ProblemType.answeredElsewhere.rawValue ? .answeredElsewhere
                : problem?.callState.map(Self.endReason(forFinal:)) ?? .remoteEnded
            self?.endRemotely(callID: callID, reason: reason)
        }) { [weak self] api, device in
            let response = try await api.accept(callID: callID, deviceID: device)
            self?.answerConfirmed(callID: callID, media: response.media)
        }
    }

    private func answerConfirmed(callID: String, media: MediaSession) {
        let completion = state.withLock { state -> (@Sendable (Bool) -> Void)? in
            guard var entry = state.calls[callID], entry.phase == .answering else { return nil }
            entry.phase = .active
            defer { entry.answer = nil; state.calls[callID] = entry }
            return entry.answer
        }
        guard let completion else { return }
        completion(true)
        keepAlive(callID: callID)
        observer(.answered(callID: callID, media: media))
        mediaReady(callID: callID, media: media)
    }

    /// The user ended or declined on the native UI (`CXEndCallAction`): declines a ringing incoming
    /// call, cancels an unanswered outgoing one, ends an active one. The action completes at once; the
    /// request is retried until the server acknowledges it.
    public func end(callID uuid: UUID, completion: @escaping @Sendable (Bool) -> Void) {
        let callID = uuid.uuidString.lowercased()
        let ended = state.withLock { state -> (Entry, Phase)? in
            guard var entry = state.calls[callID], entry.phase != .ended else { return nil }
            let phase = entry.phase
            entry.phase = .ended
            state.calls[callID] = entry
            state.mediaWaitingForAudio[callID] = nil
            return (entry, phase)
        }
        completion(true)
        guard let (entry, phase) = ended else { return }
        entry.answer?(false)
        observer(.ended(callID: callID, reason: nil))
        let kind: PendingCallAction.Kind = switch (entry.direction, phase) {
        case (.incoming, .ringing), (.incoming, .answering): .decline
        case (.outgoing, .ringing): .cancel
        default: .end
        }
        let action = PendingCallAction(kind: kind, callId: callID, deviceId: deviceID, createdAt: now())
        pendingActions.save(pendingActions.load().filter { $0.callId != callID } + [action])
        send(action)
    }

    /// Ends every call that is not over yet, each as ``end(callID:completion:)`` does (ringing calls are
    /// declined, unanswered outgoing ones cancelled, answered ones ended, all durably), and marks the
    /// audio session inactive. For a reset of the native call UI, which drops every call (Apple:
    /// `CXProviderDelegate.providerDidReset(_:)`: a reset ends all calls).
    public func endAllCalls() {
        let live = state.withLock { state -> [UUID] in
            state.audioActive = false
            return state.calls.values.filter { $0.phase != .ended }.map(\.uuid)
        }
        for uuid in live { end(callID: uuid) { _ in } }
    }

    /// Sends a stored hang-up, retrying transient failures; it leaves the store once the server
    /// answered (success, or a refusal that retrying cannot change). Unsent, it waits for the next
    /// ``connect(api:)``.
    private func send(_ action: PendingCallAction) {
        guard sending.withLock({ $0.insert(action.callId).inserted }) else { return }
        let (store, callID) = (pendingActions, action.callId)
        let settle: @Sendable (Bool) -> Void = { [weak self] answered in
            if answered { store.save(store.load().filter { $0.callId != callID }) }
            _ = self?.sending.withLock { $0.remove(callID) }
        }
        // A 5xx problem is no acknowledgement (retrying may succeed): the hang-up stays for the next connect.
        perform(callID: callID, attempts: 8, onSuccess: { settle(true) },
                onFailure: { problem in settle(problem.map { $0.status < 500 } ?? false) }) { api, _ in
            switch action.kind {
            case .decline:
                // This device's accept may already have reached the server: then the call must be ended, not
                // declined, or it stays accepted and the user looks busy to every later caller. Only a state
                // conflict says that; `answered-elsewhere` (also `accepted`) means another device answered,
                // and ending would hang up the call the user just took there.
                do {
                    _ = try await api.decline(callID: callID, deviceID: action.deviceId)
                } catch let error as RingerAPIError where error.problem?.callState == .accepted
                            && error.problem?.type == ProblemType.callStateConflict.rawValue {
                    _ = try await api.end(callID: callID)
                }
            case .cancel:
                do {
                    _ = try await api.cancel(callID: callID)
                } catch let error as RingerAPIError where error.problem?.callState == .accepted {
                    _ = try await api.end(callID: callID)
                }
            case .end:
                _ = try await api.end(callID: callID)
            }
        }
    }

    // MARK: Keepalive

    /// Tells the coordinator how the event stream is doing (pass every ``EventStream/Status``): while it is
    /// connected the server hears this app on it, otherwise answered calls send keepalives.
    public func eventStreamStatusChanged(_ status: EventStream.Status) {
        let connected = status == .connected || status == .restored
        state.withLock { $0.streamConnected = connected }
    }

    /// Runs the keepalive loop of an answered call until it ends here: every ``keepaliveInterval`` seconds,
    /// a keepalive when the event stream is not connected. A refusal (the server ended the call, e.g.
    /// `connection_lost` while this app could not reach it) closes the native call with the server's reason.
    private func keepAlive(callID: String) {
        guard state.withLock({ $0.keptAlive.insert(callID).inserted }) else { return }
        let (sleepUntil, interval) = (self.sleepUntil, keepaliveInterval)
        // The rounds count from the answer, not from whenever the task first runs.
        let answeredAt = now()
        Task { [weak self] in
            defer { _ = self?.state.withLock { $0.keptAlive.remove(callID) } }
            var next = answeredAt
            while true {
                next = next.addingTimeInterval(interval)
                guard (try? await sleepUntil(next)) != nil, let self else { return }
                let (active, connected, session) = self.state.withLock { state in
                    (state.calls[callID]?.phase == .active, state.streamConnected, state.session)
                }
                guard active else { return }
                guard !connected, case .loggedIn(let api) = session else { continue }
                do {
                    try await api.keepalive(callID: callID)
                } catch let error as RingerAPIError where error.problem.map({ (400..<500).contains($0.status) }) == true {
                    // The call is over on the server: read why, then close it here.
                    let call = try? await api.call(id: callID)
                    self.endRemotely(callID: callID, reason: call.flatMap(self.reasonIfOver) ?? .failed)
                    return
                } catch {
                    continue   // no answer: the next round tries again
                }
            }
        }
    }

    // MARK: Outgoing calls

    /// Places a call; the callee's answer arrives as ``Observation/outgoingAnswered(callID:media:)``.
    /// - Returns: the call (its state may already be `busy` or `failed`).
    /// - Throws: ``RingerAPIError``; `RingerAPIError.transport` when no user is logged in.
    public func startCall(to callee: String, hasVideo: Bool = false) async throws -> Call {
        guard case .loggedIn(let api) = state.withLock({ $0.session }) else {
            throw RingerAPIError.transport("not logged in")
        }
        // Retried with one Idempotency-Key: a lost answer never makes the callee's phone ring twice.
        let key = UUID().uuidString.lowercased()
        var attempt = 0
        let call: Call
        while true {
            attempt += 1
            do {
                call = try await api.createCall(callee: callee, hasVideo: hasVideo, idempotencyKey: key)
                break
            } catch let error as RingerAPIError where error.isRetryable && attempt < 3 {
                try await Task.sleep(for: .milliseconds(250 * attempt))
            }
        }
        if call.state == .ringing, let uuid = UUID(uuidString: call.callId) {
            state.withLock {
                $0.calls[call.callId] = Entry(uuid: uuid, direction: .outgoing, phase: .ringing, expiresAt: call.expiresAt)
            }
        }
        return call
    }

    // MARK: Requests

    /// Retry delays of call requests: from 0.125…0.25 s, doubling, at most 8 s.
    static let requestBackoff = RetryBackoff(initialDelay: 0.25, maximumDelay: 8)

    /// Runs an API request with retries (exponential backoff) while it fails for transient reasons.
    /// A problem answer (4xx) is final: `onFailure` gets it; giving up without an answer gives nil.
    private func perform(callID: String, attempts: Int,
                         onSuccess: (@Sendable () -> Void)? = nil,
                         onFailure: (@Sendable (Problem?) -> Void)? = nil,
                         _ body: @escaping @Sendable (RingerAPIClient, String) async throws -> Void) {
        let (observer, deviceID) = (self.observer, self.deviceID)
        let deadline = state.withLock { $0.calls[callID]?.expiresAt } ?? now().addingTimeInterval(60)
        Task { [weak self] in
            for attempt in 1...attempts {
                guard let api = await self?.api(waitingUntil: deadline) else { break }
                do {
                    try await body(api, deviceID)
                    onSuccess?()
                    return
                } catch let error as RingerAPIError where error.isRetryable && attempt < attempts {
                    try? await Task.sleep(for: .seconds(Self.requestBackoff.delay(beforeRetry: attempt)))
                } catch let error as RingerAPIError {
                    observer(.requestFailed(callID: callID, detail: error.description))
                    onFailure?(error.problem)
                    return
                } catch {
                    observer(.requestFailed(callID: callID, detail: String(describing: error)))
                    onFailure?(nil)
                    return
                }
            }
            onFailure?(nil)
        }
    }
}
