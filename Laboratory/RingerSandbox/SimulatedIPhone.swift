public import Foundation
public import RingerKit
import RingerSupport
public import RingerWire

/// A simulated iPhone running an app built on RingerKit, obeying iOS's rules for VoIP apps:
///
/// - A VoIP push launches a killed app in the background and hands the push to PushKit.
/// - The app must report a new incoming call to CallKit before the push handler completes, or iOS
///   kills it (Apple: PushKit, "If you fail to report a call to CallKit, the system will terminate your app").
/// - Only the foreground (or a just-woken) app keeps its WebSocket; backgrounding drops it, unless a
///   call is answered on CallKit: iOS keeps an app in a call running. A VoIP push wakes a suspended app
///   as it launches a killed one, and the woken app connects.
/// - When the app's process ends (swiped away, killed by iOS, phone off) its CallKit calls end with it.
///
/// It registers its PushKit token with the ``APNsSandbox`` and its device with the Ringer server,
/// and its user answers, declines or ignores calls as its ``Behaviour`` says. Thread-safe.
public final class SimulatedIPhone: Sendable {
    /// What the user does when the phone rings.
    public typealias Behaviour = CalleeBehaviour

    /// The app's state as iOS sees it.
    public enum AppState: String, Sendable {
        /// On screen, event stream open.
        case foreground
        /// Suspended in the background: no socket.
        case background
        /// Not running: only a VoIP push can wake it.
        case killed
    }

    /// Something that happened on the phone, for timelines and tests.
    public enum Observation: Sendable {
        /// A VoIP push arrived while the app was killed and iOS launched it.
        case woken(apnsID: String)
        /// PushKit delivered a VoIP push to the app.
        case pushReceived(apnsID: String, disposition: CallCoordinator.PushDisposition)
        /// CallKit shows an incoming call (the CallKit UUID is the call id).
        case callKitReported(callID: String)
        /// The native call UI closed for a remote reason.
        case callKitEnded(callID: String, reason: CallEndReason)
        /// The user tapped Answer.
        case userAnswered(callID: String)
        /// The user tapped Decline or End.
        case userEnded(callID: String)
        /// The app holds a media session for the call.
        case mediaReady(callID: String, media: MediaSession)
        /// An event arrived on the app's WebSocket.
        case event(CallEvent)
        /// iOS killed the app for breaking a rule.
        case killedBySystem(reason: String)
        /// A background or alert push reached the running app.
        case alertOrBackgroundPushReceived(type: EventType, apnsID: String)
        /// iOS showed an alert notification (a missed call).
        case notificationShown(title: String, body: String)
        /// The app started media after the system activated the audio session.
        case audioStarted(callID: String)
        /// The app tried to start media before the system activated the audio session (a bug: on iOS
        /// the call would have no sound).
        case audioRefused(callID: String)
        /// The app heard its call held (its media paused) or resumed.
        case held(callID: String, held: Bool)
        /// The app heard its call muted or unmuted (its microphone stopped or resumed).
        case muted(callID: String, muted: Bool)
        /// The app's media was told to play these keypad tones on the call.
        case tones(callID: String, digits: String)
        /// A cellular call arrived and the user answered it so (``SimulatedCallKit/CellularAnswer``), or it ended (nil).
        case cellular(SimulatedCallKit.CellularAnswer?)
    }

    /// Who the phone belongs to and its tokens.
    public struct Identity: Sendable {
        /// The user id.
        public var userID: String
        /// The app's device id.
        public var deviceID: String
        /// The app's bundle id.
        public var bundleID: String
        /// The PushKit VoIP token (hex), as the sandbox knows it.
        public var voipToken: String
        /// The ordinary APNs token (hex) for alerts and background pushes.
        public var apnsToken: String

        /// Creates an identity with random 32-byte VoIP and APNs tokens.
        public init(userID: String, deviceID: String, bundleID: String = "dev.ringer.demo") {
            self.userID = userID
            self.deviceID = deviceID
            self.bundleID = bundleID
            voipToken = Self.randomToken()
            apnsToken = Self.randomToken()
        }

        private static func randomToken() -> String {
            (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        }
    }

    private struct App {
        var coordinator: CallCoordinator
        var stream: EventStream?
    }

    private struct State: AppStreamState {
        var appState: AppState = .killed
        var app: App?
        var killCount = 0
        /// The last event `seq` the app saw (the app would persist it).
        var lastSeq: Int64?

        var isAppRunning: Bool { app != nil }
        var appStream: EventStream? {
            get { app?.stream }
            set { app?.stream = newValue }
        }
    }

    /// The phone's identity.
    public let identity: Identity
    /// The native call UI.
    public let callKit: SimulatedCallKit
    private let server: URL
    private let userToken: String
    private let webSockets: any WebSocketTransport
    /// The phone's data connection (``SimulatedNetwork``): the app's requests and event stream go through it.
    public let network = SimulatedNetwork()
    private let behaviour: Behaviour
    private let launchDelay: TimeInterval
    private let now: @Sendable () -> Date
    private let sleepUntil: (@Sendable (Date) async throws -> Void)?
    private let observe: @Sendable (Observation) -> Void
    private let state = LockedValue(State())
    /// Hang-ups not yet acknowledged by the server. Owned by the phone, not the app process, because
    /// a real app keeps them in a file (``FilePendingActionStore``) that survives being killed.
    private let pendingActions = InMemoryPendingActionStore()
    /// The app's kept server-minus-phone clock offset, across launches. It starts at 0: the app ran before and
    /// learned it, and the simulated phone reads the stack's own clock.
    private let clockOffsets = InMemoryClockOffsetStore(offset: 0)
    /// The app's memory of ended calls and unconfirmed answers, across launches (a real app keeps it in a
    /// ``FileCallMemoryStore``).
    private let callMemory = InMemoryCallMemoryStore()

    /// Creates the phone, switched on with the app killed.
    /// - Parameters:
    ///   - identity: user, device and tokens.
    ///   - server: the Ringer server's base URL.
    ///   - userToken: the logged-in user's token (the app keeps it in its keychain).
    ///   - webSockets: how the app opens its event stream.
    ///   - behaviour: what the user does when it rings.
    ///   - launchDelay: seconds a woken app needs before it can reach the server.
    ///   - now: the phone's clock, which decides whether a call's ring deadline passed (scenarios run it
    ///     as fast as the server's clock).
    ///   - sleepUntil: suspends until a time on `now`'s clock, for the app's own deadline timers; nil: real time.
    ///   - observe: told of everything that happens, on any thread.
    public init(
        identity: Identity, server: URL, userToken: String, webSockets: any WebSocketTransport,
        behaviour: Behaviour, launchDelay: TimeInterval = 0.05, now: @escaping @Sendable () -> Date = { Date() },
        sleepUntil: (@Sendable (Date) async throws -> Void)? = nil,
        observe: @escaping @Sendable (Observation) -> Void = { _ in }
    ) {
        self.identity = identity
        self.server = server
        self.userToken = userToken
        self.webSockets = webSockets
        self.behaviour = behaviour
        self.launchDelay = launchDelay
        self.now = now
        self.sleepUntil = sleepUntil
        self.observe = observe
        callKit = SimulatedCallKit(now: now)
    }

    /// The app's current state.
    public var appState: AppState { state.withLock { $0.appState } }

    /// True while live events reach the app's event stream (``EventStream/isLive``: after `stream.ready`,
    /// until the socket closes).
    public var hasLiveEventStream: Bool { state.withLock { $0.app?.stream?.isLive ?? false } }

    /// How many times iOS killed the app for breaking a rule.
    public var killCount: Int { state.withLock { $0.killCount } }

    /// Hang-ups the app made that the server has not acknowledged yet (kept across app launches).
    public var unacknowledgedHangUps: [PendingCallAction] { pendingActions.load() }

    /// The running app's coordinator, if the app runs.
    public var coordinator: CallCoordinator? { state.withLock { $0.app?.coordinator } }

    /// Registers the phone's token with the sandbox (so APNs can reach it) and, as the app does right
    /// after login, the device with the Ringer server. Leaves the app in the foreground.
    /// - Throws: ``RingerAPIError`` when the server refuses the registration.
    public func installAndLogIn(sandbox: APNsSandbox) async throws {
        for token in [identity.voipToken, identity.apnsToken] {
            sandbox.register(
                SandboxDevice(token: token, bundleID: identity.bundleID) { [weak self] push in
                    self?.receive(push)
                })
        }
        launch(connectAfter: 0)
        _ = try await api.registerDevice(
            id: identity.deviceID,
            DeviceRegistration(
                platform: .ios, voipToken: identity.voipToken, apnsToken: identity.apnsToken, apnsEnvironment: .sandbox,
                bundleID: identity.bundleID))
        setAppState(.foreground)
    }

    /// Moves the app between foreground, background and killed, as the user or iOS would.
    /// Backgrounding drops the WebSocket (unless a call is answered: the app keeps running); returning
    /// reopens it from the last `seq` seen. Killing the app ends its CallKit calls; a killed app cannot be
    /// sent to the background (it stays killed).
    public func setAppState(_ newState: AppState) {
        // iOS does not suspend an app whose call is answered (its audio session is active), so its socket stays.
        let inCall = callKit.calls.contains { $0.state == .answering || $0.state == .active }
        let (running, oldStream, terminated) = state.withLock { state -> (Bool, EventStream?, Bool) in
            // Not running: there is nothing to background (iOS would not launch it for that).
            if newState == .background, state.app == nil { return (false, nil, false) }
            if newState == .background, inCall {
                state.appState = newState
                return (true, nil, false)
            }
            state.appState = newState
            let stream = state.app?.stream
            let terminated = newState == .killed && state.app != nil
            if newState != .foreground { state.app?.stream = nil }
            if newState == .killed { state.app = nil }
            return (state.app != nil, newState == .foreground ? nil : stream, terminated)
        }
        if let oldStream { closeKeepingResumePoint(oldStream) }
        if terminated { callKit.appTerminated() }
        guard newState == .foreground else { return }
        if running {
            openStream()
        } else {
            launch(connectAfter: 0)
        }
    }

    /// Stops the app's event stream and keeps its resume point.
    private func closeKeepingResumePoint(_ stream: EventStream) {
        SimulatedAppStream.stop(stream, keepingResumePointIn: state)
    }

    /// Opens the app's event stream, resuming after the last `seq` the app saw, unless one is open.
    private func openStream() {
        let stream = SimulatedAppStream.make(
            api: api, deviceID: identity.deviceID, transport: network.webSockets(webSockets),
            observe: { [weak self] in self?.observe(.event($0)) },
            coordinator: { [weak self] in self?.coordinator },
            now: now, sleepUntil: sleepUntil)
        SimulatedAppStream.start(stream, in: state)
    }

    /// Places a call from this phone's app.
    /// - Throws: ``RingerAPIError``.
    public func call(_ callee: String, callWaiting: Bool? = nil) async throws -> Call {
        guard let coordinator else { throw RingerAPIError.transport("the app is not running") }
        let call = try await coordinator.startCall(to: callee, callWaiting: callWaiting)
        // CallKit activates the audio session once the start-call action is fulfilled.
        coordinator.audioSessionActivated()
        return call
    }

    /// The user rings several people at once from the app (RingerKit's `startGroupCall`).
    /// - Parameters:
    ///   - callees: the user ids to ring.
    ///   - policy: what an answer does.
    /// - Returns: the call with its legs.
    /// - Throws: `RingerAPIError` when the app is not running or the server refuses.
    public func callGroup(_ callees: [String], policy: AnswerPolicy = .firstAnswer) async throws -> Call {
        guard let coordinator else { throw RingerAPIError.transport("the app is not running") }
        let call = try await coordinator.startGroupCall(to: callees, answerPolicy: policy)
        coordinator.audioSessionActivated()
        return call
    }

    /// The user taps the newest Ringer call in the phone's Recents, and this app calls that person back at once (an app
    /// may first ask; this one does not), as a video call when that call was one.
    /// - Returns: the placed call, or nil when Recents lists no Ringer call.
    /// - Throws: ``RingerAPIError`` when the app is not running or the server refuses.
    public func userCallsBack() async throws -> Call? {
        guard let request = callKit.userTapsNewestRecent() else { return nil }
        guard let coordinator else { throw RingerAPIError.transport("the app is not running") }
        let call = try await coordinator.startCall(to: request.userID, hasVideo: request.hasVideo)
        coordinator.audioSessionActivated()
        return call
    }

    /// A cellular call arrives and the user answers it at once with `answer` (``SimulatedCallKit`` holds or ends the
    /// app's connected calls as the choice says). With no app running the cellular call meets no Ringer call.
    /// - Returns: how it was answered (`endAndAccept` when the app's calls cannot be held).
    @discardableResult
    public func cellularCallArrives(answer: SimulatedCallKit.CellularAnswer) -> SimulatedCallKit.CellularAnswer {
        let taken = coordinator.map { callKit.cellularCallArrives(answer: answer, coordinator: $0) } ?? answer
        observe(.cellular(taken))
        return taken
    }

    /// The cellular call ends; the app's held calls stay held.
    public func cellularCallEnds() {
        callKit.cellularCallEnds()
        observe(.cellular(nil))
    }

    /// The user taps Hold (`held` true) or resumes the call on CallKit's screen.
    public func userHolds(callID: String, held: Bool) {
        guard let uuid = UUID(uuidString: callID), let coordinator else { return }
        callKit.userHolds(uuid, held: held, coordinator: coordinator)
    }

    /// The user taps Mute (`muted` true) or unmutes the call on CallKit's screen.
    public func userMutes(callID: String, muted: Bool) {
        guard let uuid = UUID(uuidString: callID), let coordinator else { return }
        callKit.userMutes(uuid, muted: muted, coordinator: coordinator)
    }

    /// The user taps keys on CallKit's in-call keypad, one action per key.
    public func userPressesKeys(callID: String, digits: String) {
        guard let uuid = UUID(uuidString: callID), let coordinator else { return }
        callKit.userPressesKeys(uuid, digits: digits, coordinator: coordinator)
    }

    /// The user hangs up (or declines, or cancels) the call on the native UI.
    public func hangUp(callID: String) {
        guard let uuid = UUID(uuidString: callID), let coordinator else { return }
        observe(.userEnded(callID: callID))
        if callKit.call(uuid) == nil {
            coordinator.end(callID: uuid) { _ in }
        } else {
            callKit.userEnds(uuid, coordinator: coordinator)
        }
    }

    private var api: RingerAPIClient {
        RingerAPIClient(baseURL: server, userToken: userToken, transport: network.http())
    }

    /// Starts the app process as a real app does at launch: the coordinator at once (PushKit needs it)
    /// with the user's API from the keychain, the event stream after `connectAfter` seconds (a woken
    /// app needs time before its socket is up).
    @discardableResult
    private func launch(connectAfter delay: TimeInterval) -> CallCoordinator {
        let coordinator: CallCoordinator
        let observer: @Sendable (CallCoordinator.Observation) -> Void = { [weak self] observation in
            self?.coordinatorObserved(observation)
        }
        if let sleepUntil {
            coordinator = CallCoordinator(
                deviceID: identity.deviceID, ui: callKit, now: now, sleepUntil: sleepUntil,
                pendingActions: pendingActions, clockOffsets: clockOffsets,
                callMemory: callMemory, observer: observer)
        } else {
            coordinator = CallCoordinator(
                deviceID: identity.deviceID, ui: callKit, now: now,
                pendingActions: pendingActions, clockOffsets: clockOffsets,
                callMemory: callMemory, observer: observer)
        }
        callKit.attach(coordinator)
        coordinator.connect(api: api)
        state.withLock { $0.app = App(coordinator: coordinator, stream: nil) }
        Task { [weak self] in
            if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
            self?.openStream()
        }
        return coordinator
    }

    /// APNs delivered a push to this phone.
    private func receive(_ push: SandboxPush) {
        guard push.pushType == "voip" else { return receiveAlertOrBackgroundPush(push) }
        let (coordinator, woken, suspended) = state.withLock { state -> (CallCoordinator?, Bool, Bool) in
            (state.app?.coordinator, state.appState == .killed, state.app != nil && state.app?.stream == nil)
        }
        var running = coordinator
        if woken {
            observe(.woken(apnsID: push.apnsID))
            running = launch(connectAfter: launchDelay)
            state.withLock { $0.appState = .background }
        } else if suspended {
            // Resumed in the background for the push, the app connects as a launched one does.
            let delay = launchDelay
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(delay))
                self?.openStream()
            }
        }
        guard let running else { return }
        var disposition = CallCoordinator.PushDisposition.unreadable
        let verdict = SimulatedPushKit.deliver(push.payload, callKit: callKit) { payload in
            disposition = running.handleVoIPPush(payload)
        }
        observe(.pushReceived(apnsID: push.apnsID, disposition: disposition))
        if verdict == .appKilled {
            let stream = state.withLock { state -> EventStream? in
                state.killCount += 1
                defer { state.app = nil }
                state.appState = .killed
                return state.app?.stream
            }
            if let stream { closeKeepingResumePoint(stream) }
            callKit.appTerminated()
            observe(.killedBySystem(reason: "VoIP push handled without reporting a call to CallKit"))
        }
    }

    /// An alert or background push. iOS shows an alert whatever the app's state; a background push
    /// reaches only a running app (iOS does not launch a killed app for one).
    private func receiveAlertOrBackgroundPush(_ push: SandboxPush) {
        let running = state.withLock { $0.appState == .killed ? nil : $0.app?.coordinator }
        if push.pushType == "alert",
            let notice = try? RingerJSON.decode(AlertOrBackgroundPush.self, from: push.payload),
            let alert = notice.aps.alert
        {
            observe(.notificationShown(title: alert.title, body: alert.body))
        }
        guard push.pushType == "background" || push.pushType == "alert", let running else { return }
        if let type = running.handleNotificationPush(push.payload) {
            observe(.alertOrBackgroundPushReceived(type: type, apnsID: push.apnsID))
        }
    }

    private func coordinatorObserved(_ observation: CallCoordinator.Observation) {
        switch observation {
        case .ringing(let callID):
            observe(.callKitReported(callID: callID))
            userReacts(to: callID)
        case .answered(let callID, let media), .outgoingAnswered(let callID, let media):
            observe(.mediaReady(callID: callID, media: media))
        case .mediaCanStart(let callID, _):
            // The app starts its media here; the simulated CallKit refuses it before audio activation.
            guard let uuid = UUID(uuidString: callID) else { return }
            do {
                try callKit.startAudio(callID: uuid)
                observe(.audioStarted(callID: callID))
            } catch {
                observe(.audioRefused(callID: callID))
            }
        case .ended(let callID, let reason?):
            observe(.callKitEnded(callID: callID, reason: reason))
        case .heldChanged(let callID, let held):
            observe(.held(callID: callID, held: held))
        case .mutedChanged(let callID, let muted):
            observe(.muted(callID: callID, muted: muted))
        case .dtmf(let callID, let digits):
            observe(.tones(callID: callID, digits: digits))
        default:
            break
        }
    }

    private func userReacts(to callID: String) {
        guard let uuid = UUID(uuidString: callID) else { return }
        let (delay, answer): (TimeInterval, Bool)
        switch behaviour {
        case .answer(let after): (delay, answer) = (after, true)
        case .decline(let after): (delay, answer) = (after, false)
        case .ignore: return
        }
        Task { [weak self] in
            try? await Task.sleep(for: .seconds(delay))
            guard let self, let coordinator = self.coordinator,
                self.callKit.call(uuid)?.state == .ringing
            else { return }
            if answer {
                self.observe(.userAnswered(callID: callID))
                self.callKit.userAnswers(uuid, coordinator: coordinator)
            } else {
                self.observe(.userEnded(callID: callID))
                self.callKit.userEnds(uuid, coordinator: coordinator)
            }
        }
    }
}
