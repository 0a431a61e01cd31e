public import Foundation
import RingerSupport
public import RingerWire

/// The platform-neutral brain of ringing on a device: turns VoIP pushes, server events and the user's
/// actions on the native call UI into API calls and call-UI reports, so the rules every app gets wrong
/// hold by construction. The decisions are ``PhoneCallMachine``'s (a pure value, pinned by the test vectors
/// of docs/test-vectors.md); the coordinator carries out its effects and keeps the per-device bookkeeping
/// (session, waiting requests, audio, keepalives), every timer and retry on the injected clock:
///
/// - **Report first**: ``handleVoIPPush(_:)`` reports a call to the ``CallUI`` before it returns,
///   whatever the push holds; an unusable push is reported and ended at once (Apple: PushKit, iOS 13+).
/// - **One call per server call id**: the CallKit UUID is the call id; the same call arriving by push
///   and by WebSocket, in either order, is one call on screen.
/// - **Answer before the app is ready**: a push that wakes the app before it called
///   ``connect(api:)`` still rings; an answer given then is kept against the call id and sent as soon
///   as the API is available; the native answer completes only when the server confirmed it.
/// - **An answer is never dropped**: the accept is sent again, with jittered backoff, after every transport
///   failure or 5xx until the server answers or the ring deadline passes (then the call ends
///   ``CallEndReason/answerNotDelivered``); the unconfirmed answer is kept in the ``CallMemoryStore`` first, so a
///   relaunch before the deadline shows the call again and sends it.
/// - **Hang-ups are durable**: a decline, cancel or end is stored in the ``PendingActionStore`` before it is
///   sent, and sent until the server answers it with anything that retrying cannot change, for up to
///   ``hangUpLifetime`` after the user acted, across relaunches.
/// - **Remote endings** close the native call with the matching `CXCallEndedReason`, exactly once,
///   and a call nobody ended still stops ringing at its deadline even if no event ever arrives; an end heard
///   before the call's push makes that push report and end at once instead of ringing.
/// - **Deadlines on the server's clock**: a push is stale only by the server's timeline, through the clock
///   offset learned from `stream.ready` and answers' `Date` headers (``serverTimeObserved(_:)``), kept in a
///   ``ClockOffsetStore``; while it is unknown a push rings.
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
        /// A group call's legs changed: who was rung and where each is (an event, `call.updated` included, or a
        /// refresh told it). Show it as the call's participants; it never changes the call's phase.
        case participantsChanged(callID: String, legs: [CallLeg])
        /// The call was held (pause its media: the other party's audio and the microphone) or resumed. It stays
        /// answered, kept alive, and ends as any call; ending another call never resumes it (the user or the app
        /// does, ``CallCoordinator/setHeld(callID:held:)``).
        case heldChanged(callID: String, held: Bool)
        /// The call's microphone was muted or unmuted, from the native UI or at the app's request: stop or resume
        /// sending audio.
        case mutedChanged(callID: String, muted: Bool)
        /// The user pressed these keypad keys on the native call UI, or the app asked for them
        /// (``CallCoordinator/playDTMF(callID:digits:)``): send them in the call's media (RFC 4733 telephone events,
        /// or in-band tones, as the media stack does). Only the call that has the audio gets them.
        case dtmf(callID: String, digits: String)
        /// Where the calls' audio goes, or the outputs to choose from, changed (the system's picker, a headset, the
        /// app's ``CallCoordinator/selectAudioOutput(id:)`` once the system did it): show it on an audio-route button.
        case audioRouteChanged(AudioRoutes)
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

    /// Whether requests can be made: before ``connect(api:)`` the app is still launching (requests
    /// wait), after `connect(api: nil)` nobody is logged in (pushes are refused).
    enum Session {
        case launching
        case loggedIn(RingerAPIClient)
        case loggedOut

        var account: PhoneAccount {
            switch self {
            case .launching: .launching
            case .loggedIn(let api): .loggedIn(userID: api.userID)
            case .loggedOut: .loggedOut
            }
        }
    }

    struct State {
        var session = Session.launching
        /// The calls' phases and the decisions about them.
        var machine: PhoneCallMachine
        /// Native answer actions waiting for the server, by call id.
        var answers: [String: @Sendable (Bool) -> Void] = [:]
        /// Requests waiting for the app to finish launching.
        var waiters: [UUID: CheckedContinuation<RingerAPIClient?, Never>] = [:]
        /// True between the call UI's audio activation and deactivation.
        var audioActive = false
        /// Where the calls' audio goes, and the app's choice (docs/decisions/0008 §2).
        var audio = AudioRouteMachine()
        /// Answered calls whose media waits for the audio session.
        var mediaWaitingForAudio: [String: MediaSession] = [:]
        /// Whether the event stream is connected: the server then hears this app without keepalives.
        var streamConnected = false
        /// Answered calls whose keepalive loop runs.
        var keptAlive: Set<String> = []
        /// The phone's boot time (``PhoneBootTime``) when the machine's clock offset was learned; nil without one.
        var offsetBootTime: Date? = nil
        /// The machine's memory as last stored in the ``CallMemoryStore``.
        var storedMemory: PhoneCallMachine.Memory
        /// Calls whose accept loop runs.
        var accepting: Set<String> = []
    }

    /// Seconds between keepalives of an answered call while the event stream is down: a third of the
    /// server's default `--call-idle-timeout` (120 s), so two may be lost before the server gives up.
    public static let defaultKeepaliveInterval: TimeInterval = 40

    /// Seconds between keepalives of an answered call while the event stream is not connected.
    public let keepaliveInterval: TimeInterval

    /// This device's id, sent with ringing/accept/decline.
    public let deviceID: String
    let ui: any CallUI
    let observer: @Sendable (Observation) -> Void
    let now: @Sendable () -> Date
    let sleepUntil: @Sendable (Date) async throws -> Void
    let random: @Sendable () -> Double
    let pendingActions: any PendingActionStore
    private let clockOffsets: any ClockOffsetStore
    private let callMemory: any CallMemoryStore
    private let bootTime: @Sendable () -> Date
    /// Call ids whose hang-up is being sent right now (so a reconnect does not send it twice).
    let sending = LockedValue<Set<String>>([])
    /// Serialises read-modify-writes of `pendingActions` (``updatePendingActions(_:)``).
    let pendingActionsLock = LockedValue(())
    let state: LockedValue<State>

    /// Creates the coordinator. Create it at app launch, before PushKit can deliver.
    /// - Parameters:
    ///   - deviceID: stable id of this app install.
    ///   - ui: the native call UI.
    ///   - now: the phone's clock (injectable for tests).
    ///   - sleepUntil: suspends until a time on that clock; every timer and retry wait of the coordinator uses
    ///     it; real time by default. Throws `CancellationError` when the task is cancelled.
    ///   - random: a number in `0...1` for the retries' jitter; random by default, fixed in tests.
    ///   - pendingActions: where hang-ups wait until the server acknowledged them; give a
    ///     ``FilePendingActionStore`` so they survive a relaunch.
    ///   - clockOffsets: where the server-minus-phone clock offset learned from the event stream survives a
    ///     relaunch; give a ``UserDefaultsClockOffsetStore`` so a push that launches the app is judged on the
    ///     server's timeline.
    ///   - callMemory: where the calls that ended and the answers not yet confirmed survive a relaunch; give a
    ///     ``FileCallMemoryStore`` so a late push never rings a call that is over and an answer given just before
    ///     the process died still connects. An answer kept there is taken up at once: its call is reported again
    ///     and its accept sent (before its deadline), or it ends ``CallEndReason/answerNotDelivered``.
    ///   - bootTime: the phone's boot time on its wall clock (``PhoneBootTime/now()`` by default): when it moves,
    ///     the wall clock was set and the learned offset, stored or not, is forgotten.
    ///   - keepaliveInterval: seconds between keepalives of an answered call while the event stream is not
    ///     connected; keep it at most a third of the server's `--call-idle-timeout`.
    ///   - observer: receives ``Observation``s on any thread.
    public init(
        deviceID: String, ui: any CallUI, now: @escaping @Sendable () -> Date = { Date() },
        sleepUntil: @escaping @Sendable (Date) async throws -> Void = { deadline in
            let seconds = deadline.timeIntervalSinceNow
            if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) }
        },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
        pendingActions: any PendingActionStore = InMemoryPendingActionStore(),
        clockOffsets: any ClockOffsetStore = InMemoryClockOffsetStore(),
        callMemory: any CallMemoryStore = InMemoryCallMemoryStore(),
        bootTime: @escaping @Sendable () -> Date = PhoneBootTime.now,
        keepaliveInterval: TimeInterval = CallCoordinator.defaultKeepaliveInterval,
        observer: @escaping @Sendable (Observation) -> Void = { _ in }
    ) {
        self.deviceID = deviceID
        self.keepaliveInterval = keepaliveInterval
        self.ui = ui
        self.now = now
        self.sleepUntil = sleepUntil
        self.random = random
        self.pendingActions = pendingActions
        self.clockOffsets = clockOffsets
        self.callMemory = callMemory
        self.bootTime = bootTime
        self.observer = observer
        // An offset learned before the wall clock was set (or before a reboot) would misjudge pushes by the change.
        let stored = clockOffsets.load().flatMap { stored in
            PhoneBootTime.wallClockWasSet(between: stored.bootTime, and: bootTime()) ? nil : stored
        }
        let memory = callMemory.load()
        state = LockedValue(
            State(
                machine: PhoneCallMachine(deviceID: deviceID, clockOffset: stored?.offset, memory: memory),
                offsetBootTime: stored?.bootTime, storedMemory: memory))
        apply(.launched)
    }

    /// The server's clock minus the phone's, seconds, as learned so far; nil while unknown.
    public var clockOffset: TimeInterval? { state.withLock { $0.machine.clockOffset } }

    /// The calls up on this device now (ringing, answering or active; not ended), as one snapshot taken under the
    /// coordinator's lock, oldest ring deadline first. Each call's id is its `uuid`, lowercased.
    /// - Returns: the calls; empty when none is up.
    public func currentCalls() -> [PhoneCallMachine.PhoneCall] {
        state.withLock { state in
            state.machine.calls.values.filter { $0.phase != .ended }
        }.sorted { ($0.localDeadline, $0.uuid.uuidString) < ($1.localDeadline, $1.uuid.uuidString) }
    }

    /// Makes the logged-in user's API available (after login, or at launch with a stored token), and
    /// releases requests that waited for it (an answer given on the lock screen during launch).
    /// Pass nil when nobody is logged in: VoIP pushes are then reported and ended at once, and calls
    /// still ringing end (`failed`). Calls ringing for another user than `api.userID` (pushed while the
    /// app was launching) end too.
    public func connect(api: RingerAPIClient?) {
        // Every answer's `Date` header teaches the server's clock too.
        let api = api?.observingServerTime { [weak self] serverTime in self?.serverTimeObserved(serverTime) }
        let session = api.map(Session.loggedIn) ?? .loggedOut
        let waiters = state.withLock { state -> [CheckedContinuation<RingerAPIClient?, Never>] in
            state.session = session
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        apply(.accountChanged(session.account))
        for waiter in waiters { waiter.resume(returning: api) }
        // Hang-ups from before a suspension or relaunch go out now.
        if api != nil { pendingActions.load().forEach(send) }
    }

    /// The server's clock read `serverTime` just now (the event stream's `stream.ready` `server_time_ms`, or
    /// any other reading of the server's clock the app has): the coordinator judges ring deadlines on the
    /// server's timeline from then on, and keeps the offset in its ``ClockOffsetStore``.
    public func serverTimeObserved(_ serverTime: Date) {
        apply(.serverTime(serverTime))
    }

    /// The API, waiting while the app is still launching, at most until `deadline`.
    func api(waitingUntil deadline: Date) async -> RingerAPIClient? {
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

    // MARK: Carrying out the machine's effects

    /// Feeds an input to the machine and carries out its effects, outside the lock.
    /// - Parameters:
    ///   - input: what happened.
    ///   - media: the media session that came with ``PhoneCallInput/answerConfirmed(callID:)``.
    ///   - answer: the native answer action of an ``PhoneCallInput/answer(callID:)``: kept, under the same lock,
    ///     while the machine holds the call's answer pending (its confirmation may come back on another thread at
    ///     once), completed by the input's own `complete_answer` if it has one, else failed.
    ///   - before: bookkeeping done under the same lock, before the input.
    /// - Returns: the effects carried out.
    @discardableResult
    func apply(
        _ input: PhoneCallInput, media: MediaSession? = nil,
        answer: (@Sendable (Bool) -> Void)? = nil,
        before: (inout State) -> Void = { _ in }
    ) -> [PhoneCallEffect] {
        let boot = bootTime()
        // What the clock-offset store must hold afterwards, if it changes: stored here, with the boot time the
        // state keeps, rather than as an effect of its own.
        var storedOffset: StoredClockOffset?? = .none
        var hangUps: [String: PendingCallAction] = [:]
        var routeEffects: [AudioRouteEffect] = []
        let (effects, answers, refused) = state.withLock {
            state -> ([PhoneCallEffect], [String: @Sendable (Bool) -> Void], (@Sendable (Bool) -> Void)?) in
            before(&state)
            // The action joins any kept for the same call (a second way of answering): both complete together.
            if case .answer(let callID) = input, let answer {
                let earlier = state.answers[callID]
                state.answers[callID] = { fulfilled in
                    earlier?(fulfilled)
                    answer(fulfilled)
                }
            }
            if let learnedAt = state.offsetBootTime, PhoneBootTime.wallClockWasSet(between: learnedAt, and: boot) {
                _ = state.machine.handle(.phoneClockChanged, at: now())
                state.offsetBootTime = nil
                storedOffset = .some(nil)
            }
            let wasUp = state.machine.calls.values.contains { $0.phase != .ended }
            let effects = state.machine.handle(input, at: now())
            // The last call ended: the audio route's choice is over with it, whenever the call UI says the audio
            // stopped (Telecom's connection may close before the machine hears the hang-up).
            if wasUp, !state.machine.calls.values.contains(where: { $0.phase != .ended }) {
                routeEffects = state.audio.handle(.audioDeactivated(callsLeft: false))
            }
            var answers: [String: @Sendable (Bool) -> Void] = [:]
            for effect in effects {
                switch effect {
                case .completeAnswer(let callID, _): answers[callID] = state.answers.removeValue(forKey: callID)
                case .ended(let callID, _): state.mediaWaitingForAudio[callID] = nil
                case .saveClockOffset(let offset):
                    state.offsetBootTime = boot
                    storedOffset = StoredClockOffset(offset: offset, bootTime: boot)
                case .sendHangUp(let callID, let kind):
                    // Stored before the memory below: a process that dies in between still sends the hang-up of a
                    // call its memory already holds as over.
                    let action = PendingCallAction(kind: kind, callID: callID, deviceID: deviceID, createdAt: now())
                    updatePendingActions { $0.filter { $0.callID != callID } + [action] }
                    hangUps[callID] = action
                default: break
                }
            }
            // An answer the machine did not take (the call is not ringing here) fails now, alone.
            var refused: (@Sendable (Bool) -> Void)?
            if case .answer(let callID) = input, answer != nil, state.machine.calls[callID]?.answerPending != true,
                state.answers[callID] != nil
            {
                refused = answer
                state.answers[callID] = nil
            }
            // Stored before the effects run: an accept is never sent without its answer surviving the process. Under
            // the lock, so two changes reach the store in the order they were made.
            let memory = state.machine.memory
            if memory != state.storedMemory {
                state.storedMemory = memory
                callMemory.save(memory)
            }
            return (effects, answers, refused)
        }
        if case .some(let stored) = storedOffset { clockOffsets.save(stored) }
        refused?(false)
        for effect in effects { carryOut(effect, answers: answers, hangUps: hangUps, media: media) }
        carryOut(routeEffects)
        return effects
    }

    private func carryOut(
        _ effect: PhoneCallEffect, answers: [String: @Sendable (Bool) -> Void],
        hangUps: [String: PendingCallAction], media: MediaSession?
    ) {
        switch effect {
        case .reportIncoming(let callID, let report):
            ui.reportIncomingCall(report) { [weak self] error in
                self?.apply(.reportFinished(callID: callID, accepted: error == nil))
            }
        case .reportDuplicate(let report):
            // CallKit refuses the known UUID, so nothing new rings.
            ui.reportIncomingCall(report) { _ in }
        case .reportAndEnd(let id, let caller, let reason):
            let id = id ?? UUID()
            ui.reportIncomingCall(IncomingCallReport(id: id, caller: caller, hasVideo: false)) { _ in }
            ui.reportCallEnded(id: id, at: now(), reason: reason)
        case .reportEnded(let id, let reason):
            ui.reportCallEnded(id: id, at: now(), reason: reason)
        case .reportOutgoingConnected(let id):
            ui.reportOutgoingCallConnected(id: id, at: now())
        case .reportAnswering(let id):
            ui.reportCallAnswering(id: id, at: now())
        case .reportAnswered(let id):
            ui.reportCallAnswered(id: id, at: now())
        case .completeAnswer(let callID, let fulfilled):
            answers[callID]?(fulfilled)
        case .pushHandled(let callID, let disposition):
            observer(.pushReported(callID: callID, disposition: disposition))
        case .ringing(let callID):
            observer(.ringing(callID: callID))
        case .answered(let callID):
            guard let media else { return }
            observer(.answered(callID: callID, media: media))
            mediaReady(callID: callID, media: media)
        case .ended(let callID, let reason):
            observer(.ended(callID: callID, reason: reason))
        case .sendRinging(let callID):
            // A refusal means the call ended while this device was waking (409 with the state), or is not this
            // user's call (a push for the previous user of the phone): the machine closes it. A server that could
            // not answer (no problem reaches here then) said nothing about the call: it rings on to its deadline.
            perform(
                callID: callID,
                onFailure: { [weak self] problem in
                    guard let problem else { return }
                    self?.apply(.ringingRefused(callID: callID, problem: problem))
                }
            ) { api, device in _ = try await api.ringing(callID: callID, deviceID: device) }
        case .sendAccept(let callID):
            sendAccept(callID)
        case .sendHangUp(let callID, _):
            if let action = hangUps[callID] { send(action) }  // stored by apply(_:), under the lock
        case .armDeadline(let callID, let deadline):
            // The device's own end of a call whose `call.unanswered` is lost (no socket, suspended app).
            let sleepUntil = self.sleepUntil
            Task { [weak self] in
                guard (try? await sleepUntil(deadline)) != nil else { return }
                self?.apply(.deadlineReached(callID: callID))
            }
        case .startKeepalive(let callID):
            keepAlive(callID: callID)
        case .fetchMedia(let callID):
            perform(callID: callID) { [observer, weak self] api, _ in
                let media = try await api.media(callID: callID)
                observer(.outgoingAnswered(callID: callID, media: media))
                self?.mediaReady(callID: callID, media: media)
            }
        case .saveClockOffset:
            break  // stored by apply(_:), with the boot time read under the same lock
        case .participantsChanged(let callID, let legs):
            observer(.participantsChanged(callID: callID, legs: legs))
        case .requestHeld(let callID, let held):
            guard let id = UUID(uuidString: callID) else { return }
            ui.requestHeld(id: id, held: held)
        case .requestMuted(let callID, let muted):
            guard let id = UUID(uuidString: callID) else { return }
            ui.requestMuted(id: id, muted: muted)
        case .heldChanged(let callID, let held):
            observer(.heldChanged(callID: callID, held: held))
        case .mutedChanged(let callID, let muted):
            observer(.mutedChanged(callID: callID, muted: muted))
        case .requestDTMF(let callID, let digits):
            guard let id = UUID(uuidString: callID) else { return }
            ui.requestDTMF(id: id, digits: digits)
        case .dtmf(let callID, let digits):
            observer(.dtmf(callID: callID, digits: digits))
        }
    }

    // MARK: VoIP push

    /// Handles a PushKit VoIP push. Reports to the call UI before returning, in every case; call the
    /// PushKit completion handler after this returns.
    /// - Parameter payload: the push's JSON (`{"ringer":{…}}`).
    /// - Returns: what became of the push.
    @discardableResult
    public func handleVoIPPush(_ payload: Data) -> PushDisposition {
        // PushKit's rule: every push is reported, and one that cannot ring is reported and ended at once.
        let input: PhoneCallInput
        if let push = try? RingerJSON.decode(VoIPPush.self, from: payload),
            push.ringer.type == .callIncoming, let uuid = UUID(uuidString: push.ringer.callID)
        {
            let body = push.ringer
            let incoming = IncomingPush(
                uuid: uuid, caller: body.caller, calleeID: body.calleeID, hasVideo: body.hasVideo,
                sentAt: Date(unixMilliseconds: body.sentAt),
                expiresAt: Date(unixMilliseconds: body.expiresAt), group: body.group, waiting: body.waiting == true)
            let account = state.withLock { $0.session.account }
            input = .incomingPush(incoming, account: account, reportsEveryPush: true)
        } else {
            input = .unreadablePush(reportsEveryPush: true)
        }
        for case .pushHandled(_, let disposition) in apply(input) { return disposition }
        return .unreadable
    }

    /// Handles a PushKit payload given as `PKPushPayload.dictionaryPayload`.
    @discardableResult
    public func handleVoIPPush(dictionary: [AnyHashable: Any]) -> PushDisposition {
        let data = (try? JSONSerialization.data(withJSONObject: dictionary)) ?? Data()
        return handleVoIPPush(data)
    }

    // MARK: Audio

    /// The call UI activated the audio session (`CXProviderDelegate.provider(_:didActivate:)`): media of
    /// answered calls may start now. Starting audio earlier breaks it on iOS (Apple: "Making and
    /// receiving VoIP calls": configure the session, start audio only once it is activated).
    public func audioSessionActivated() {
        let (ready, routeEffects) = state.withLock { state -> ([(String, MediaSession)], [AudioRouteEffect]) in
            state.audioActive = true
            defer { state.mediaWaitingForAudio.removeAll() }
            // Any call not over: CallKit activates the session as soon as an outgoing call's start is fulfilled.
            let video = state.machine.calls.values.contains { $0.phase != .ended && !$0.held && $0.hasVideo }
            return (Array(state.mediaWaitingForAudio), state.audio.handle(.audioActivated(video: video)))
        }
        for (callID, media) in ready { observer(.mediaCanStart(callID: callID, media: media)) }
        carryOut(routeEffects)
    }

    /// The call UI deactivated the audio session (`provider(_:didDeactivate:)`).
    public func audioSessionDeactivated() {
        state.withLock { state in
            state.audioActive = false
            let callsLeft = state.machine.calls.values.contains { $0.phase != .ended }
            _ = state.audio.handle(.audioDeactivated(callsLeft: callsLeft))
        }
    }

    /// A media session is known for an answered call: start at once if audio is active, else wait.
    func mediaReady(callID: String, media: MediaSession) {
        let startNow = state.withLock { state -> Bool in
            guard state.machine.phase(of: callID) == .active else { return false }
            if state.audioActive { return true }
            state.mediaWaitingForAudio[callID] = media
            return false
        }
        if startNow { observer(.mediaCanStart(callID: callID, media: media)) }
    }

    // MARK: Alert and background pushes

    /// Handles an ordinary (non-VoIP) push about a call (``AlertOrBackgroundPush``): a background push that the
    /// call was answered or declined elsewhere, cancelled or unanswered ends the native call, as the matching
    /// WebSocket event would; one for a call not seen yet is remembered, so its late VoIP push is reported and
    /// ended at once. Payloads that are not Ringer alert or background pushes are ignored.
    /// - Returns: the event type the push carried, if it was one.
    @discardableResult
    public func handleNotificationPush(_ payload: Data) -> EventType? {
        guard let notice = try? RingerJSON.decode(AlertOrBackgroundPush.self, from: payload) else { return nil }
        apply(.updatePush(notice.ringer.type, callID: notice.ringer.callID.lowercased()))
        return notice.ringer.type
    }

    // MARK: Server events

    /// Handles an event from the ``EventStream``.
    public func handle(_ event: CallEvent) {
        observer(.event(event))
        apply(.event(event.type, event.call))
    }

    /// Re-reads every call still up on the native UI and closes the ones that ended while no event could
    /// reach this device. Call it when the event stream connects or reconnects (`.connected`, `.restored`): a
    /// stream with no resume point (an app woken by a push before it ever connected) replays nothing, and
    /// an answered call has neither a deadline nor an alert or background push to close it otherwise.
    public func refreshCalls() {
        let live = state.withLock { $0.machine.liveCallIDs }
        for callID in live {
            perform(callID: callID) { [weak self] api, _ in
                let call = try await api.call(id: callID)
                self?.apply(.callRead(call))
            }
        }
    }

    // MARK: User actions on the native call UI

    /// The user answered on the native UI (`CXAnswerCallAction`). `completion(true)` fulfils the
    /// action once the server confirmed; `completion(false)` fails it (the call ended meanwhile).
    public func answer(callID uuid: UUID, completion: @escaping @Sendable (Bool) -> Void) {
        apply(.answer(callID: uuid.uuidString.lowercased()), answer: completion)
    }

    /// The user ended or declined on the native UI (`CXEndCallAction`): declines a ringing incoming
    /// call, cancels an unanswered outgoing one, ends an active one. The action completes at once; the
    /// request is retried until the server acknowledges it.
    public func end(callID uuid: UUID, completion: @escaping @Sendable (Bool) -> Void) {
        completion(true)
        apply(.end(callID: uuid.uuidString.lowercased()))
    }

    /// Ends every call that is not over yet, each as ``end(callID:completion:)`` does (ringing calls are
    /// declined, unanswered outgoing ones cancelled, answered ones ended, all durably), and marks the
    /// audio session inactive. For a reset of the native call UI, which drops every call (Apple:
    /// `CXProviderDelegate.providerDidReset(_:)`: a reset ends all calls).
    public func endAllCalls() {
        // The route's choice ends with the last call (``apply(_:media:answer:before:)``).
        apply(.endAll, before: { $0.audioActive = false })
    }

    /// The native UI held or resumed a call (CallKit performed a `CXSetHeldCallAction`: its own button, "Hold &
    /// Accept" of another call; Telecom's `Connection.onHold()`/`onUnhold()`). Resuming holds this device's other
    /// active calls (through ``CallUI/requestHeld(id:held:)``), so one call has the audio.
    /// - Returns: true when the call is now in that state (fulfil the action); false when it cannot be (a call not
    ///   answered, or over: fail the action).
    @discardableResult
    public func hold(callID uuid: UUID, held: Bool) -> Bool {
        let callID = uuid.uuidString.lowercased()
        apply(.setHeld(callID: callID, held: held, by: .system))
        return state.withLock { $0.machine.isHeld(callID, held) }
    }

    /// The native UI muted or unmuted a call (CallKit performed a `CXSetMutedCallAction`; Telecom's
    /// `onMuteStateChanged`).
    /// - Returns: true when the call is now so (fulfil the action); false for a call over or unknown (fail it).
    @discardableResult
    public func mute(callID uuid: UUID, muted: Bool) -> Bool {
        let callID = uuid.uuidString.lowercased()
        apply(.setMuted(callID: callID, muted: muted, by: .system))
        return state.withLock { $0.machine.isMuted(callID, muted) }
    }

    /// The user pressed keys on the native keypad (CallKit performed a `CXPlayDTMFCallAction`; Telecom's
    /// `onPlayDtmfTone`), or the call UI took the app's request: ``Observation/dtmf(callID:digits:)`` follows.
    /// - Parameters:
    ///   - uuid: the call's native id.
    ///   - digits: the keys, each one of ``PhoneCallMachine/dtmfDigits``.
    /// - Returns: true when the call has the audio and the digits are valid (fulfil the action); false otherwise
    ///   (fail it: a held, ringing or ended call plays no tones).
    @discardableResult
    public func dtmf(callID uuid: UUID, digits: String) -> Bool {
        let callID = uuid.uuidString.lowercased()
        guard state.withLock({ $0.machine.mayPlayDTMF(callID, digits) }) else { return false }
        apply(.playDTMF(callID: callID, digits: digits, by: .system))
        return true
    }

    // MARK: The app's call controls

    /// Holds or resumes an answered call from the app, through the native UI (a `CXSetHeldCallAction` transaction, a
    /// Telecom hold), so the system's screen and the app stay in step; ``Observation/heldChanged(callID:held:)``
    /// follows once the system did it. Resuming holds every other active call first.
    /// - Parameters:
    ///   - callID: the call id (any case).
    ///   - held: true to hold, false to resume.
    /// - Returns: false when the call is not answered here (ringing, over, unknown): nothing was asked.
    @discardableResult
    public func setHeld(callID: String, held: Bool) -> Bool {
        let callID = callID.lowercased()
        guard state.withLock({ $0.machine.mayHold(callID) }) else { return false }
        apply(.setHeld(callID: callID, held: held, by: .app))
        return true
    }

    /// Mutes or unmutes a call's microphone from the app, through the native UI (a `CXSetMutedCallAction`
    /// transaction, Telecom's mute), so its mute button shows it; ``Observation/mutedChanged(callID:muted:)``
    /// follows once the system did it.
    /// - Parameters:
    ///   - callID: the call id (any case).
    ///   - muted: true to mute.
    /// - Returns: false when the call is over or unknown: nothing was asked.
    @discardableResult
    public func setMuted(callID: String, muted: Bool) -> Bool {
        let callID = callID.lowercased()
        guard state.withLock({ $0.machine.mayMute(callID) }) else { return false }
        apply(.setMuted(callID: callID, muted: muted, by: .app))
        return true
    }

    /// Plays keypad tones on a call from the app's own keypad, through the native UI (a `CXPlayDTMFCallAction`
    /// transaction), so the system knows of them as of its own keypad's; ``Observation/dtmf(callID:digits:)`` follows
    /// once the system did it, and the app's media sends them then.
    /// - Parameters:
    ///   - callID: the call id (any case).
    ///   - digits: the keys, each one of ``PhoneCallMachine/dtmfDigits`` (`0`–`9`, `*`, `#`, `A`–`D`), 1 to 64.
    /// - Returns: false when the call does not have the audio (not answered, held, over, unknown) or a digit is not a
    ///   keypad key: nothing was asked.
    @discardableResult
    public func playDTMF(callID: String, digits: String) -> Bool {
        let callID = callID.lowercased()
        guard state.withLock({ $0.machine.mayPlayDTMF(callID, digits) }) else { return false }
        apply(.playDTMF(callID: callID, digits: digits, by: .app))
        return true
    }

    // MARK: Outgoing calls

    /// Retry delays of placing a call: 0.25…0.5 s, then 0.5…1 s.
    static let placeCallBackoff = Backoff(initialDelay: 0.5, maximumDelay: 2)

    /// Places a call; the callee's answer arrives as ``Observation/outgoingAnswered(callID:media:)``.
    /// - Parameters:
    ///   - callee: the user to call.
    ///   - hasVideo: whether to ask for video.
    ///   - callWaiting: true to ring a callee who is in another call as a waiting call, false to get `busy`; nil
    ///     leaves it to the server's `--call-waiting` (docs/call-lifecycle.md "Call waiting").
    /// - Returns: the call (its state may already be `busy` or `failed`).
    /// - Throws: ``RingerAPIError``; `RingerAPIError.transport` when no user is logged in; `CancellationError`
    ///   when the task is cancelled during a retry wait.
    public func startCall(to callee: String, hasVideo: Bool = false, callWaiting: Bool? = nil) async throws -> Call {
        try await place { api, key in
            try await api.createCall(callee: callee, hasVideo: hasVideo, callWaiting: callWaiting, idempotencyKey: key)
        }
    }

    /// Rings several people in one call (`POST /v1/calls` with `callees`; docs/call-lifecycle.md "Group calls"):
    /// each callee's phones ring with their own leg, and ``Observation/participantsChanged(callID:legs:)`` tells
    /// where each is. Placed as ``startCall(to:hasVideo:callWaiting:)`` places a call: retried with one
    /// `Idempotency-Key`.
    /// - Parameters:
    ///   - callees: user ids, distinct, not this user, at most the server's `--max-callees-per-call` (16 by default).
    ///   - answerPolicy: `.firstAnswer` (the first to answer gets the call, the others stop ringing) or `.allMayJoin`.
    ///   - hasVideo: whether to ask for video.
    ///   - callWaiting: as for ``startCall(to:hasVideo:callWaiting:)``, for every callee.
    /// - Returns: the call with its `legs`, in state `ringing`, `busy` or `failed`.
    /// - Throws: ``RingerAPIError``: a 422 `duplicate-callee` or `too-many-callees`, a 404 `user-not-found` naming the
    ///   unknown `callees` (nobody rang), a 429 when the callees would spend more of this user's calls a minute than
    ///   are left.
    public func startGroupCall(
        to callees: [String], answerPolicy: AnswerPolicy = .firstAnswer, hasVideo: Bool = false,
        callWaiting: Bool? = nil
    ) async throws -> Call {
        try await place { api, key in
            try await api.createCall(
                callees: callees, answerPolicy: answerPolicy, hasVideo: hasVideo, callWaiting: callWaiting,
                idempotencyKey: key)
        }
    }

    /// Rings more people into a call this user placed, or is in (`POST /v1/calls/{id}/ring`). Someone ringing or in
    /// the call already is left alone, so a retry rings nobody twice.
    /// - Returns: the call with its legs.
    /// - Throws: ``RingerAPIError``: 409 `callee-already-rung` for someone whose leg of this call ended (place a new
    ///   call), 409 `call-state-conflict` once the call is over, 403 for a callee not in the call.
    public func ringMore(callID: String, callees: [String]) async throws -> Call {
        guard case .loggedIn(let api) = state.withLock({ $0.session }) else {
            throw RingerAPIError.transport("not logged in")
        }
        let call = try await api.ring(callID: callID, callees: callees)
        apply(.callRead(call))
        return call
    }

    /// The logged-in user's call history from the server, newest first, a page at a time (``RingerAPIClient/recentCalls(limit:before:)``):
    /// the list an app's recent and missed calls screen shows, across devices and reinstalls.
    /// - Parameters:
    ///   - limit: calls per page, 1 to 100; nil for the server's default.
    ///   - before: the previous page's ``CallList/nextBefore``; nil for the newest page.
    /// - Throws: ``RingerAPIError``; a transport error when nobody is logged in.
    public func recentCalls(limit: Int? = nil, before: String? = nil) async throws -> CallList {
        guard case .loggedIn(let api) = state.withLock({ $0.session }) else {
            throw RingerAPIError.transport("not logged in")
        }
        return try await api.recentCalls(limit: limit, before: before)
    }

    /// A group call's legs as this device last heard them; nil for a 1:1 call or a call it does not know.
    public func participants(callID: String) -> [CallLeg]? {
        state.withLock { $0.machine.calls[callID.lowercased()]?.legs }
    }

    /// Creates a call with `create`, retried with one Idempotency-Key (a lost answer never makes a callee's phone
    /// ring twice), and records it as this device's outgoing call.
    private func place(_ create: (RingerAPIClient, String) async throws -> Call) async throws -> Call {
        guard case .loggedIn(let api) = state.withLock({ $0.session }) else {
            throw RingerAPIError.transport("not logged in")
        }
        let key = UUID().uuidString.lowercased()
        var attempt = 0
        let call: Call
        while true {
            attempt += 1
            do {
                call = try await create(api, key)
                break
            } catch let error as RingerAPIError where error.isRetryable && attempt < 3 {
                let delay = Self.placeCallBackoff.delay(beforeRetry: attempt, random: random())
                try await sleepUntil(now().addingTimeInterval(delay))
            }
        }
        apply(.outgoingPlaced(call))
        return call
    }
}
