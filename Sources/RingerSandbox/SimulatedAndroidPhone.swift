public import Foundation
public import RingerKit
import RingerSupport
public import RingerWire

/// A simulated Android phone running an app built on RingerKit, with a self-managed ConnectionService
/// (``SimulatedConnectionService``), obeying Android's rules for calling apps:
///
/// - **App states** (``AppState``): a foreground app holds its event stream; a background one is frozen
///   (no socket) unless a call holds its foreground service; a swiped-away app's process is gone but an FCM
///   message starts it again and reaches `onMessageReceived`; a force-stopped app (or one never opened) gets
///   nothing until the user opens it (receipt `.notDelivered`).
/// - **Messages**: a `notification` message for an app not in the foreground is shown by the system and
///   never reaches the app; a data message goes to ``CallCoordinator/handleDataMessage(_:)``. The receipt is
///   `.userVisible` when the message left a ringing call or a shown notification, or stopped a call that was
///   ringing (its call screen went away), else `.silent` (FCM's demotion counts these).
/// - **Priority**: only while a message delivered at HIGH priority is handled may a background app launch its
///   full-screen call or start a foreground service; a message delivered at NORMAL (sent so, or demoted by
///   FCM) still rings, as a heads-up notification.
/// - **Doze and network**: ``setDozing(_:)`` and ``setOnline(_:)`` tell the FCM registry how the phone is
///   reachable (the registry holds what it may not deliver); a dozing or offline phone drops its socket
///   unless a call holds its foreground service (offline: always).
/// - **Android 13/14 permissions** (``AndroidPermission``): without `POST_NOTIFICATIONS` no notification
///   shows (a call still rings: its notification is exempt); without `USE_FULL_SCREEN_INTENT` a locked phone
///   shows a heads-up notification; an answered or dialled call holds a foreground service of type
///   `phoneCall`, and adds `microphone` once active; a refused start ends the call with `ERROR` and tells the
///   server, never crashing the app.
/// - **Active calls** keep the process alive (foreground service): its socket stays up in the background and
///   after a swipe-away; when the last call ends the service stops and a background app is frozen again.
///
/// Thread-safe.
public final class SimulatedAndroidPhone: Sendable {
    private struct App {
        var coordinator: CallCoordinator
        var stream: EventStream?
    }

    private struct State: AppStreamState {
        var appState: AppState = .forceStopped
        var app: App?
        var lastSeq: Int64?
        var permissions: Set<AndroidPermission>
        var locked = false
        var online = true
        var dozing = false
        var anotherAppInCall = false
        /// High-priority messages being handled right now.
        var highPriorityMessages = 0
        var notifications: [ShownNotification] = []
        var registry: (any FCMSandboxRegistry)?

        var isAppRunning: Bool { app != nil }
        var appStream: EventStream? {
            get { app?.stream }
            set { app?.stream = newValue }
        }
    }

    /// The phone's identity.
    public let identity: Identity
    /// The app's ConnectionService (Telecom's view of its calls).
    public let connectionService: SimulatedConnectionService
    /// The app's foreground service.
    public let foregroundService = SimulatedForegroundService()
    private let server: URL
    private let userToken: String
    private let webSockets: any WebSocketTransport
    /// The phone's data connection (``SimulatedNetwork``): the app's requests and event stream go through it.
    public let network = SimulatedNetwork()
    private let behaviour: Behaviour
    private let now: @Sendable () -> Date
    private let sleepUntil: (@Sendable (Date) async throws -> Void)?
    private let observe: @Sendable (Observation) -> Void
    private let state: LockedValue<State>
    /// Hang-ups not yet acknowledged by the server; kept by the phone because a real app keeps them in a file.
    private let pendingActions = InMemoryPendingActionStore()
    /// The app's kept server-minus-phone clock offset, across launches. It starts at 0: the app ran before and
    /// learned it, and the simulated phone reads the stack's own clock.
    private let clockOffsets = InMemoryClockOffsetStore(offset: 0)
    /// The app's memory of ended calls and unconfirmed answers, across processes (a file in a real app).
    private let callMemory = InMemoryCallMemoryStore()

    /// Creates the phone, switched on, with the app installed but never opened (Android's stopped state).
    /// - Parameters:
    ///   - identity: user, device and FCM token.
    ///   - server: the Ringer server's base URL.
    ///   - userToken: the logged-in user's token (the app keeps it in its storage).
    ///   - webSockets: how the app opens its event stream.
    ///   - behaviour: what the user does when it rings.
    ///   - permissions: the permissions granted (all by default; Android 13/14 lets the user deny or revoke
    ///     `POST_NOTIFICATIONS`, `RECORD_AUDIO` and `USE_FULL_SCREEN_INTENT`).
    ///   - now: the phone's clock (scenarios run it as fast as the server's).
    ///   - sleepUntil: suspends until a time on `now`'s clock, for the app's deadline timers; nil: real time.
    ///   - observe: told of everything that happens, on any thread.
    public init(
        identity: Identity, server: URL, userToken: String, webSockets: any WebSocketTransport,
        behaviour: Behaviour, permissions: Set<AndroidPermission> = Set(AndroidPermission.allCases),
        now: @escaping @Sendable () -> Date = { Date() },
        sleepUntil: (@Sendable (Date) async throws -> Void)? = nil,
        observe: @escaping @Sendable (Observation) -> Void = { _ in }
    ) {
        self.identity = identity
        self.server = server
        self.userToken = userToken
        self.webSockets = webSockets
        self.behaviour = behaviour
        self.now = now
        self.sleepUntil = sleepUntil
        self.observe = observe
        let state = LockedValue(State(permissions: permissions))
        self.state = state
        let box = WeakPhone()
        connectionService = SimulatedConnectionService(
            now: now,
            environment: {
                state.withLock { state in
                    SimulatedConnectionService.Environment(
                        permissions: state.permissions, locked: state.locked,
                        appInForeground: state.appState == .foreground,
                        highPriorityMessage: state.highPriorityMessages > 0, anotherAppInCall: state.anotherAppInCall)
                }
            }, onChange: { change in box.phone?.connectionChanged(change) })
        box.phone = self
    }

    // MARK: State

    /// The app's current state.
    public var appState: AppState { state.withLock { $0.appState } }

    /// True while the app's process runs.
    public var isProcessRunning: Bool { state.withLock { $0.app != nil } }

    /// True while the app holds its event stream.
    public var holdsEventStream: Bool { state.withLock { $0.app?.stream != nil } }

    /// True while live events reach the app's event stream (``EventStream/isLive``: after `stream.ready`,
    /// until the socket closes).
    public var hasLiveEventStream: Bool { state.withLock { $0.app?.stream?.isLive ?? false } }

    /// The running app's coordinator, if its process runs.
    public var coordinator: CallCoordinator? { state.withLock { $0.app?.coordinator } }

    /// The granted permissions.
    public var permissions: Set<AndroidPermission> { state.withLock { $0.permissions } }

    /// Notifications shown so far, oldest first.
    public var notifications: [ShownNotification] { state.withLock { $0.notifications } }

    /// How FCM can reach the phone now.
    public var reachability: FCMSandboxDevice.Reachability {
        state.withLock { Self.reachability(of: $0) }
    }

    /// Hang-ups the app made that the server has not acknowledged yet.
    public var unacknowledgedHangUps: [PendingCallAction] { pendingActions.load() }

    private static func reachability(of state: State) -> FCMSandboxDevice.Reachability {
        !state.online ? .offline : state.dozing ? .dozing : .online
    }

    // MARK: Install, app states, system settings

    /// Registers the app's token with the FCM registry (so messages can reach it), opens the app, and registers
    /// the device with the Ringer server (`{"platform":"android","fcm_token":…}`) as the app does after login;
    /// then the app holds its event stream in the foreground.
    /// - Parameter registry: the FCM sandbox, or a stand-in.
    /// - Throws: ``RingerAPIError`` when the server refuses the registration.
    public func installAndLogIn(registry: any FCMSandboxRegistry) async throws {
        let reachability = state.withLock { state in
            state.registry = registry
            return Self.reachability(of: state)
        }
        registry.register(
            FCMSandboxDevice(
                token: identity.fcmToken, projectID: identity.projectID,
                packageName: identity.packageName, reachability: reachability
            ) { [weak self] message in
                await self?.receive(message) ?? .notDelivered("the phone is switched off")
            })
        state.withLock { $0.appState = .foreground }
        launch()
        _ = try await api.registerDevice(
            id: identity.deviceID,
            DeviceRegistration(
                platform: .android,
                fcmToken: identity.fcmToken))
        updateEventStream()
    }

    /// Moves the app as the user or Android would: opening it (leaves the stopped state, starts the process,
    /// opens the socket), leaving it (frozen unless in a call), swiping it away (the process ends unless a
    /// call's foreground service keeps it), force-stopping it (the process, its foreground service and its
    /// calls end; nothing is delivered until it is opened again). A swipe or a backgrounding of an app that
    /// does not run changes nothing.
    public func setAppState(_ newState: AppState) {
        let inCall = foregroundService.isRunning
        let ended = state.withLock { state -> Bool in
            switch newState {
            case .foreground:
                state.appState = .foreground
                return false
            case .background, .swipedAway:
                guard state.app != nil else { return false }
                state.appState = newState
                return newState == .swipedAway && !inCall
            case .forceStopped:
                state.appState = .forceStopped
                return state.app != nil
            }
        }
        if ended { endProcess(newState) }
        if newState == .foreground { launch() }
        updateEventStream()
    }

    /// Locks (keyguard showing) or unlocks the phone.
    public func setLocked(_ locked: Bool) { state.withLock { $0.locked = locked } }

    /// Grants or revokes a permission (Settings, or the runtime permission dialog).
    public func setPermission(_ permission: AndroidPermission, granted: Bool) {
        state.withLock { state in
            if granted { state.permissions.insert(permission) } else { state.permissions.remove(permission) }
        }
    }

    /// Another app holds a call Telecom cannot hold (incoming connections then fail).
    public func setAnotherAppInCall(_ inCall: Bool) { state.withLock { $0.anotherAppInCall = inCall } }

    /// The phone enters or leaves Doze; the FCM registry is told.
    public func setDozing(_ dozing: Bool) { changeReachability { $0.dozing = dozing } }

    /// The phone loses or regains its network; the FCM registry is told.
    public func setOnline(_ online: Bool) { changeReachability { $0.online = online } }

    private func changeReachability(_ change: (inout State) -> Void) {
        let (registry, reachability) = state.withLock {
            state -> ((any FCMSandboxRegistry)?, FCMSandboxDevice.Reachability) in
            change(&state)
            return (state.registry, Self.reachability(of: state))
        }
        updateEventStream()
        registry?.setReachability(token: identity.fcmToken, reachability)
    }

    /// Switches the phone off or on. Off: the network goes (FCM stores its messages) and the app's process
    /// ends with its calls, whatever holds it; the app is left as after a swipe-away, since a reboot is not a
    /// force stop (a force-stopped app stays stopped). On: the network comes back and FCM delivers what it
    /// stored; no app runs until a message or the user starts it.
    /// - Parameter on: true to switch on.
    public func setPoweredOn(_ on: Bool) {
        let running = state.withLock { state -> Bool in
            guard !on else { return false }
            if state.appState != .forceStopped { state.appState = .swipedAway }
            return state.app != nil
        }
        if running { endProcess(.swipedAway) }
        setOnline(on)
    }

    /// Uninstalls the app: its token is deleted from the registry (later sends get `UNREGISTERED`) and its
    /// process ends.
    public func uninstall() {
        let registry = state.withLock { state -> (any FCMSandboxRegistry)? in
            state.appState = .forceStopped
            defer { state.registry = nil }
            return state.registry
        }
        registry?.unregister(token: identity.fcmToken, at: now())
        endProcess(.forceStopped)
    }

    // MARK: The user's actions

    /// The user taps Answer on a ringing call: the app starts its foreground service (`phoneCall`; a user action
    /// is exempt from background limits), then `Connection.onAnswer()`. A refused start ends the call cleanly.
    public func answer(callID: String) {
        guard let uuid = UUID(uuidString: callID), let coordinator,
            connectionService.connection(uuid)?.isRinging == true
        else { return }
        observe(.userAnswered(callID: callID))
        guard startForegroundService([.phoneCall], origin: .userAction, callID: uuid, coordinator: coordinator) else {
            return
        }
        connectionService.onAnswer(uuid, coordinator: coordinator)
    }

    /// The user taps Decline: `Connection.onReject()`.
    public func decline(callID: String) {
        guard let uuid = UUID(uuidString: callID), let coordinator else { return }
        observe(.userDeclined(callID: callID))
        connectionService.onReject(uuid, coordinator: coordinator)
    }

    /// The user hangs up (or cancels a call not answered yet): `Connection.onDisconnect()`.
    public func hangUp(callID: String) {
        guard let uuid = UUID(uuidString: callID), let coordinator else { return }
        observe(.userHungUp(callID: callID))
        connectionService.onDisconnect(uuid, coordinator: coordinator)
    }

    /// Places a call from the app: the server call, then `placeCall` → a dialing connection, and the call's
    /// foreground service. A call the ConnectionService or the service refuses is cancelled on the server.
    /// - Throws: ``RingerAPIError``; ``ConnectionServiceError`` when Telecom refused the call (it was cancelled).
    public func call(_ callee: String) async throws -> Call {
        guard let coordinator else { throw RingerAPIError.transport("the app is not running") }
        let call = try await coordinator.startCall(to: callee)
        guard call.state == .ringing, let uuid = UUID(uuidString: call.callId) else { return call }
        do {
            try connectionService.placeCall(id: uuid, callee: call.callee, hasVideo: call.hasVideo)
        } catch let error as ConnectionServiceError where error == .callAlreadyExists {
            // The callee answered before this returned: the connection exists and is active already.
        } catch {
            coordinator.end(callID: uuid) { _ in }
            throw error
        }
        _ = startForegroundService([.phoneCall], origin: .userAction, callID: uuid, coordinator: coordinator)
        return call
    }

    // MARK: App process

    private var api: RingerAPIClient {
        RingerAPIClient(baseURL: server, userToken: userToken, transport: network.http())
    }

    /// Starts the app's process unless it runs: the coordinator with the stored login at once (a message is
    /// handled right away). Returns false when the process was already running.
    @discardableResult
    private func launch() -> Bool {
        let observer: @Sendable (CallCoordinator.Observation) -> Void = { [weak self] observation in
            self?.coordinatorObserved(observation)
        }
        let fresh =
            if let sleepUntil {
                CallCoordinator(
                    deviceID: identity.deviceID, ui: connectionService, now: now, sleepUntil: sleepUntil,
                    pendingActions: pendingActions, clockOffsets: clockOffsets, callMemory: callMemory,
                    observer: observer)
            } else {
                CallCoordinator(
                    deviceID: identity.deviceID, ui: connectionService, now: now, pendingActions: pendingActions,
                    clockOffsets: clockOffsets, callMemory: callMemory, observer: observer)
            }
        let started = state.withLock { state -> Bool in
            guard state.app == nil else { return false }
            state.app = App(coordinator: fresh, stream: nil)
            return true
        }
        if started { fresh.connect(api: api) }
        return started
    }

    /// Ends the app's process: socket, foreground service and calls go with it (Telecom disconnects them);
    /// the server is not told.
    private func endProcess(_ reason: AppState) {
        let stream = state.withLock { state -> EventStream? in
            defer { state.app = nil }
            return state.app?.stream
        }
        if let stream { closeKeepingResumePoint(stream) }
        foregroundService.stop()
        connectionService.processDied()
        observe(.processEnded(reason))
    }

    /// Opens or closes the event stream to match the rules: the process runs, the phone is online, and the app
    /// is in the foreground (not dozing) or a call holds its foreground service.
    private func updateEventStream() {
        let inCall = foregroundService.isRunning
        let (open, close) = state.withLock { state -> (Bool, EventStream?) in
            guard state.app != nil else { return (false, nil) }
            let wanted = state.online && (inCall || (state.appState == .foreground && !state.dozing))
            if wanted { return (state.app?.stream == nil, nil) }
            defer { state.app?.stream = nil }
            return (false, state.app?.stream)
        }
        if let close { closeKeepingResumePoint(close) }
        if open { openStream() }
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

    // MARK: Foreground service and calls

    /// Starts (or extends) the foreground service for a call; a refusal ends the call cleanly
    /// (`DisconnectCause` `ERROR`, the server told). Returns false when refused.
    private func startForegroundService(
        _ types: Set<ForegroundServiceType>, origin: SimulatedForegroundService.Origin,
        callID: UUID, coordinator: CallCoordinator
    ) -> Bool {
        do {
            try foregroundService.start(types, permissions: permissions, origin: origin)
        } catch let error as ForegroundServiceError {
            observe(.foregroundServiceRefused(callID: callID.uuidString.lowercased(), error: error))
            connectionService.fail(callID, reason: error.description, coordinator: coordinator)
            return false
        } catch {
            return false
        }
        updateEventStream()
        return true
    }

    /// The ConnectionService changed: audio follows the active connection; the foreground service stops with
    /// the last call, and then a background app is frozen again.
    private func connectionChanged(_ change: SimulatedConnectionService.Change) {
        switch change {
        case .active:
            coordinator?.audioSessionActivated()
        case .disconnected(let id, let cause):
            observe(.callEnded(callID: id.uuidString.lowercased(), cause: cause))
        case .refused(let id, let error):
            observe(.incomingCallRefused(callID: id.uuidString.lowercased(), error: error))
        case .endedBySystem(let id):
            observe(.endedBySystem(callID: id.uuidString.lowercased()))
        default:
            break
        }
        switch change {
        case .destroyed, .endedBySystem:
            guard !connectionService.hasCallInProgress else { return }
            coordinator?.audioSessionDeactivated()
            foregroundService.stop()
            updateEventStream()
        default:
            break
        }
    }

    private func coordinatorObserved(_ observation: CallCoordinator.Observation) {
        switch observation {
        case .ringing(let callID):
            let presentation =
                UUID(uuidString: callID).flatMap { connectionService.connection($0)?.presentation } ?? .headsUp
            observe(.ringing(callID: callID, presentation: presentation))
            userReacts(to: callID)
        case .answered(let callID, let media), .outgoingAnswered(let callID, let media):
            observe(.mediaReady(callID: callID, media: media))
        case .mediaCanStart(let callID, _):
            // The call is active with audio focus: the app captures the microphone, which its foreground
            // service must now cover (Android 14: type `microphone`).
            guard let uuid = UUID(uuidString: callID), let coordinator else { return }
            let origin: SimulatedForegroundService.Origin = appState == .foreground ? .appInForeground : .background
            if startForegroundService([.microphone], origin: origin, callID: uuid, coordinator: coordinator) {
                observe(.audioStarted(callID: callID))
            }
        default:
            break
        }
    }

    private func userReacts(to callID: String) {
        let (delay, answers): (TimeInterval, Bool)
        switch behaviour {
        case .answer(let after): (delay, answers) = (after, true)
        case .decline(let after): (delay, answers) = (after, false)
        case .ignore: return
        }
        Task { [weak self] in
            try? await Task.sleep(for: .seconds(delay))
            guard let self else { return }
            if answers { self.answer(callID: callID) } else { self.decline(callID: callID) }
        }
    }

    // MARK: FCM messages

    /// FCM hands the phone a message (the FCM sandbox's `deliver`): Android's rules decide whether the app sees
    /// it, then `onMessageReceived` runs.
    /// - Parameter message: the message as delivered (its `priority` is what FCM delivered it with).
    /// - Returns: what became of it.
    public func receive(_ message: FCMSandboxMessage) async -> FCMSandboxReceipt {
        let (appState, online, running) = state.withLock { ($0.appState, $0.online, $0.app != nil) }
        guard appState != .forceStopped else {
            return notDelivered(message, "the app is force-stopped: Android delivers nothing until the user opens it")
        }
        guard online else { return notDelivered(message, "the phone is offline") }
        // A notification message while the app is not on screen: the system shows it; the app never runs for it.
        if let notification = message.notification, appState != .foreground {
            return post(notification, by: .system) ? .userVisible : .silent
        }
        if !running, launch() {
            state.withLock { $0.appState = .background }
            observe(.startedByMessage(messageName: message.name))
        }
        guard let coordinator else { return notDelivered(message, "the app's process ended") }
        let high = message.priority == .high
        // Calls ringing before the message: a stop that ends one takes a call screen away, which the user sees.
        let ringingBefore = Set(connectionService.ringingCallIDs)
        if high { state.withLock { $0.highPriorityMessages += 1 } }
        let outcome = coordinator.handleDataMessage(message.data)
        if high { state.withLock { $0.highPriorityMessages -= 1 } }
        observe(.messageReceived(messageName: message.name, priority: message.priority, outcome: outcome))
        var visible = false
        if case .call(let callID?, _) = outcome, let uuid = UUID(uuidString: callID) {
            visible = connectionService.connection(uuid)?.state == .ringing
        }
        // A stop for a call that was ringing here ends its call screen (the coordinator reports the end to the
        // ConnectionService as it handles the data message).
        if case .update(let callID, _) = outcome, let uuid = UUID(uuidString: callID), ringingBefore.contains(uuid) {
            visible = true
        }
        // In the foreground the app gets the notification block too, and posts it itself.
        if let notification = message.notification, post(notification, by: .app) { visible = true }
        return visible ? .userVisible : .silent
    }

    private func notDelivered(_ message: FCMSandboxMessage, _ reason: String) -> FCMSandboxReceipt {
        observe(.messageNotDelivered(messageName: message.name, reason: reason))
        return .notDelivered(reason)
    }

    /// Shows a notification if `POST_NOTIFICATIONS` is granted; true when shown.
    private func post(_ notification: FCMSandboxMessage.Notification, by poster: ShownNotification.Poster) -> Bool {
        let shown = ShownNotification(title: notification.title ?? "", body: notification.body ?? "", postedBy: poster)
        let permitted = state.withLock { state -> Bool in
            guard state.permissions.contains(.postNotifications) else { return false }
            state.notifications.append(shown)
            return true
        }
        observe(permitted ? .notificationShown(shown) : .notificationBlocked(shown))
        return permitted
    }
}

/// Lets the ConnectionService's callbacks reach the phone that owns it without a retain cycle.
private final class WeakPhone: @unchecked Sendable {
    // @unchecked: set once in the phone's initializer, before any callback can run.
    weak var phone: SimulatedAndroidPhone?
}
