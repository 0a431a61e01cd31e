public import Foundation
internal import RingerKit
internal import RingerKitApple
internal import RingerWire

/// The iOS native half of `@ringer/react-native`, one per process: it owns the app's `RingerPhone` (CallKit, the
/// PushKit VoIP registry, the coordinator) from launch, before JavaScript, logs the stored user in natively, and
/// tells JavaScript what happened (``BridgeEvent``s through ``EventRelay``, replayed once to each JavaScript
/// instance). The TurboModule (`RingerModule.mm`) only forwards JavaScript's calls here; every decision is made in
/// this type, its translator and the SDK.
///
/// Start it first thing at launch, so a VoIP push that launched the app is reported before
/// `didFinishLaunching` returns (Apple, `PKPushRegistry`: create the registry at every launch). Expo apps get
/// that from `RingerAppDelegateSubscriber` (the Expo pod, ios/Expo); a bare app's Swift `AppDelegate` adds:
/// ```swift
/// import RingerReactNative
///
/// // application(_:didFinishLaunchingWithOptions:), before React Native starts:
/// RingerReactNative.start()
/// application.registerForRemoteNotifications()
///
/// // application(_:didRegisterForRemoteNotificationsWithDeviceToken:):
/// RingerReactNative.shared.setAPNsToken(deviceToken)
///
/// // application(_:didReceiveRemoteNotification:fetchCompletionHandler:):
/// completionHandler(RingerReactNative.shared.handleNotification(userInfo) ? .newData : .noData)
///
/// // application(_:continue:restorationHandler:), a tap on a call in the phone's Recents:
/// return RingerReactNative.shared.handle(userActivity: userActivity)
/// ```
/// The server is `configure({server})`'s stored choice, else the Info.plist's `RingerServerURL`;
/// `RingerAPNsEnvironment` is `sandbox` for development-signed builds, `production` (the default) otherwise.
///
/// Thread-safe. Events reach JavaScript in the order they happened: translation, history and emission run under
/// one lock (the emitter only queues a call into JavaScript).
///
/// - Note: The public API is what an `AppDelegate` calls (``start()``, ``shared``, ``setAPNsToken(_:)``,
///   ``handleNotification(_:)``) and ``RingerModuleBridge``: it names no RingerKit, RingerKitApple or RingerWire
///   type, and every file imports those `internal`, so a client (the Expo pod) cannot name them. It must still find
///   their modules: a module built without library evolution, as CocoaPods builds this one, makes its clients load
///   even its internal imports (SE-0409), hence the Expo podspec's search path.
public final class RingerReactNative: @unchecked Sendable {
    // @unchecked: `state` is guarded by `stateLock`, `events` by `eventLock` (taken first when both are needed);
    // `startLock` serialises ``start()``, `installLock` the phone's creation (taken in that order).

    /// The process's host, created on first use; ``start()`` brings it up.
    public static let shared = RingerReactNative(environment: .production)

    struct State {
        var started = false
        var phone: RingerPhone?
        var session: StoredSession?
        /// Calls `startCall` placed, as JavaScript knows them, until they end.
        var outgoing: [String: CallSummary] = [:]
        /// The media of each call whose `accepted` JavaScript was sent, until the call ends.
        var media: [String: MediaSession] = [:]
        /// The readiness problems last told to JavaScript.
        var readiness: [String]?
        /// An APNs token that arrived before the phone existed.
        var apnsToken: Data?
        var activeObserver: (any NSObjectProtocol)?
        /// `session.json` was there but could not be read at launch (a launch before the first unlock): it is read
        /// again once protected data becomes available.
        var sessionLocked = false
        /// The observer of `protectedDataDidBecomeAvailable` while `sessionLocked` or `Events.historyLocked`.
        var unlockObserver: (any NSObjectProtocol)?
    }

    struct Events {
        var translator = EventTranslator()
        var relay: EventRelay
        var history: CallHistory
        /// `call-history.json` was there but could not be read at launch (a launch before the first unlock): nothing is
        /// saved over it until it was read and merged (``readLockedHistory()``), so the calls it keeps are not lost.
        var historyLocked = false
        /// Emits to the attached JavaScript instance.
        var emitter: (@Sendable (BridgeEvent) -> Void)?
        /// Bumped by every attach, so only the newest instance's invalidation detaches.
        var attachment = 0
    }

    let environment: Environment
    private let stateLock = NSLock()
    private var state = State()
    private let eventLock = NSLock()
    private var events: Events
    private let startLock = NSLock()
    private let installLock = NSLock()
    private let sessionFile: NativeFile?
    private let serverFile: NativeFile?
    private let historyFile: NativeFile?

    /// Creates a host that has not started; the app uses ``shared``.
    /// - Parameters:
    ///   - environment: the app and system it works with.
    ///   - relayCapacity: how many events wait for JavaScript.
    init(environment: Environment, relayCapacity: Int = EventRelay.defaultCapacity) {
        self.environment = environment
        let read = environment.readFile
        sessionFile = environment.folder.map { NativeFile("session.json", in: $0, readData: read) }
        serverFile = environment.folder.map { NativeFile("server.json", in: $0, readData: read) }
        historyFile = environment.folder.map { NativeFile("call-history.json", in: $0, readData: read) }
        let history = historyFile?.read([HistoryEntry].self) ?? .none
        let historyLocked = if case .unreadable = history { true } else { false }
        events = Events(
            relay: EventRelay(capacity: relayCapacity), history: CallHistory(entries: history.value ?? []),
            historyLocked: historyLocked)
    }

    func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        try stateLock.withLock { try body(&state) }
    }

    // MARK: Launch

    /// Brings up ``shared``: see ``start()``.
    public static func start() { shared.start() }

    /// Creates the phone when a server is known (stored by `configure`, else the Info.plist's `RingerServerURL`), logs
    /// the stored user in (or out, so pushes for nobody end at once), and reads the readiness pre-flight. Call it on
    /// every launch, in `application(_:didFinishLaunchingWithOptions:)`; later calls do nothing, and a call made
    /// while another runs returns when that one is done (`configure` starts the host too, and Expo's template may
    /// run it before the AppDelegate subscribers). Until it ran, the module's methods reject `not_configured`.
    ///
    /// A VoIP push may launch the app after a restart, before the first unlock, when `session.json` (protected
    /// until then) cannot be read: the phone starts logged out, and the session is read again and logged in once
    /// protected data becomes available (``readLockedSession()``). `call-history.json` has the same protection: the
    /// history then starts empty, is not saved over the file, and is merged with it at the unlock
    /// (``readLockedHistory()``).
    public func start() {
        let waits = startLock.withLock { () -> Bool in
            guard !withState({ $0.started }) else { return false }
            let reading = sessionFile?.read(StoredSession.self) ?? .none
            let locked = if case .unreadable = reading { true } else { false }
            let observer = NotificationCenter.default.addObserver(
                forName: Notification.Name("UIApplicationDidBecomeActiveNotification"), object: nil, queue: nil
            ) { [weak self] _ in
                // The user may have changed the notification setting in Settings, outside the app.
                Task { [weak self] in _ = await self?.refreshReadiness() }
            }
            withState { state in
                state.session = reading.value
                state.activeObserver = observer
                state.sessionLocked = locked
            }
            let waits = locked || eventLock.withLock { events.historyLocked }
            if waits { observeUnlock() }
            if let server = knownServer() { _ = install(server: server) }
            withState { $0.started = true }
            return waits
        }
        // The phone may have been unlocked between the failed reads and the observer's registration.
        if waits { readLockedFiles() }
        Task { [weak self] in _ = await self?.refreshReadiness() }
    }

    /// Apple: `UIApplication.protectedDataDidBecomeAvailableNotification`, "posts when the protected files become
    /// available for your code to access" (named by its string, as UIKit is not imported here).
    static let protectedDataDidBecomeAvailable = Notification.Name("UIApplicationProtectedDataDidBecomeAvailable")

    /// Reads the files locked at launch again at each `protectedDataDidBecomeAvailable`, until all were read.
    private func observeUnlock() {
        let observer = NotificationCenter.default.addObserver(
            forName: Self.protectedDataDidBecomeAvailable, object: nil, queue: nil
        ) { [weak self] _ in self?.readLockedFiles() }
        let kept = eventLock.withLock {
            let historyLocked = events.historyLocked
            return withState { state -> Bool in
                guard state.sessionLocked || historyLocked else { return false }
                state.unlockObserver = observer
                return true
            }
        }
        if !kept { NotificationCenter.default.removeObserver(observer) }
    }

    /// Reads the files that could not be read at launch (``readLockedSession()``, ``readLockedHistory()``), and stops
    /// observing the unlock once none waits for it.
    func readLockedFiles() {
        readLockedSession()
        readLockedHistory()
        let observer = eventLock.withLock {
            let historyLocked = events.historyLocked
            return withState { state -> (any NSObjectProtocol)? in
                guard !state.sessionLocked, !historyLocked else { return nil }
                defer { state.unlockObserver = nil }
                return state.unlockObserver
            }
        }
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    /// `call-history.json` could not be read at launch: reads it now, and once it can be read (or is gone), puts the
    /// calls recorded meanwhile before its entries (``CallHistory/merge(stored:)``) and saves the whole. Until then
    /// ``historyEntries`` holds only the calls of this launch.
    func readLockedHistory() {
        guard let historyFile else { return }
        eventLock.withLock {
            guard events.historyLocked else { return }
            let reading = historyFile.read([HistoryEntry].self)
            if case .unreadable = reading { return }
            let recorded = !events.history.entries.isEmpty
            events.history.merge(stored: reading.value ?? [])
            events.historyLocked = false
            if recorded { try? historyFile.save(events.history.entries) }
        }
    }

    /// `session.json` could not be read at launch: reads it now, and once it can be read (or is gone), logs its
    /// user in, once. A login or logout from JavaScript meanwhile wins: a session set since is kept, a deleted file
    /// logs nobody in. With no phone yet, the session waits for ``install(server:)``. A session made on another
    /// server than the phone's is kept, not deleted: `server.json` had the same protection, so the phone may be on
    /// the Info.plist's server rather than `configure`'s; the next launch sorts it out.
    func readLockedSession() {
        guard withState({ $0.sessionLocked }), let sessionFile else { return }
        let reading = sessionFile.read(StoredSession.self)
        if case .unreadable = reading { return }
        // Only the first reader past this point goes on (a notification may race the read after start()).
        let wasLocked = withState { state in
            defer { state.sessionLocked = false }
            return state.sessionLocked
        }
        guard wasLocked, var session = reading.value else { return }
        installLock.withLock {
            guard let phone = withState({ $0.phone }) else {
                withState { state in if state.session == nil { state.session = session } }
                return
            }
            let unnamed = session.server == nil
            if let made = session.server {
                guard let url = URL(string: made), Self.sameServer(url, phone.server) else { return }
            } else {
                session.server = phone.server.absoluteString
            }
            let adopted = withState { state -> Bool in
                guard state.session == nil else { return false }
                state.session = session
                return true
            }
            guard adopted else { return }
            if unnamed { try? store(session: session) }
            phone.logIn(userToken: session.userToken)
        }
    }

    /// The APNs device token (`application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`), for missed-call
    /// alerts and "answered elsewhere" background pushes; kept until the phone exists.
    /// - Parameter token: the token bytes.
    public func setAPNsToken(_ token: Data) {
        let phone = withState { state -> RingerPhone? in
            if state.phone == nil { state.apnsToken = token }
            return state.phone
        }
        phone?.setAPNsToken(token)
    }

    /// An ordinary remote notification (`application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`): a
    /// Ringer background push closes a call answered or declined elsewhere, or cancelled.
    /// - Parameter userInfo: the notification's payload.
    /// - Returns: true when it was a Ringer push.
    @discardableResult
    public func handleNotification(_ userInfo: [AnyHashable: Any]) -> Bool {
        withState { $0.phone }?.handleNotification(userInfo) ?? false
    }

    /// The server to use: `configure`'s stored choice, else the Info.plist's; nil when neither is an http(s) URL.
    func knownServer() -> URL? {
        serverFile?.load(StoredServer.self).flatMap { Self.serverURL($0.server) }
            ?? environment.info("RingerServerURL").flatMap(Self.serverURL)
    }

    /// The app's own server: the Info.plist's `RingerServerURL`, nil when it is not an http(s) URL.
    var defaultServer: URL? { environment.info("RingerServerURL").flatMap(Self.serverURL) }

    /// `text` as a server base URL: http or https, with a host.
    static func serverURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else { return nil }
        return url
    }

    /// Whether two server URLs name the same server: scheme and host in any case, the scheme's default port spelt
    /// or not, a trailing slash or not.
    static func sameServer(_ one: URL, _ other: URL) -> Bool {
        func key(_ url: URL) -> String {
            let scheme = url.scheme?.lowercased() ?? ""
            let defaultPort = scheme == "https" ? 443 : 80
            let port = url.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
            var path = url.path
            while path.hasSuffix("/") { path.removeLast() }
            return "\(scheme)://\(url.host?.lowercased() ?? "")\(port)\(path)"
        }
        return key(one) == key(other)
    }

    /// The phone, created on first call with `server` and logged in with the stored session (or out). Later calls
    /// return the existing phone, whatever `server` says: the process keeps one CallKit provider and one PushKit
    /// registry, so another server takes effect at the next launch.
    func install(server: URL) -> RingerPhone {
        installLock.withLock {
            if let phone = withState({ $0.phone }) { return phone }
            let session = session(madeOn: server)
            let apns: APNsEnvironment = environment.info("RingerAPNsEnvironment") == "sandbox" ? .sandbox : .production
            let phone = environment.makePhone(
                PhoneSetup(
                    server: server, apnsEnvironment: apns,
                    observer: { [weak self] in self?.observe(.observation($0)) },
                    streamStatus: { [weak self] in self?.observe(.streamStatus($0)) }))
            let token = withState { state -> Data? in
                state.phone = phone
                defer { state.apnsToken = nil }
                return state.apnsToken
            }
            if let session { phone.logIn(userToken: session.userToken) } else { phone.logOut() }
            if let token { phone.setAPNsToken(token) }
            return phone
        }
    }

    /// The stored session if it was made on `server`. A token belongs to the server that accepted it: a session
    /// made on another server is deleted, and the phone starts logged out. A session file from before sessions
    /// named their server counts as made on `server`, and is written again naming it.
    private func session(madeOn server: URL) -> StoredSession? {
        guard var session = withState({ $0.session }) else { return nil }
        if let made = session.server {
            guard let url = URL(string: made), Self.sameServer(url, server) else {
                withState { $0.session = nil }
                try? store(session: nil)
                return nil
            }
        } else {
            session.server = server.absoluteString
            let upgraded = session
            withState { $0.session = upgraded }
            try? store(session: upgraded)
        }
        return session
    }

    /// Keeps `configure`'s server for the next launches, or removes it (nil) so the Info.plist's is used.
    /// - Throws: the file system's error.
    func store(server: StoredServer?) throws {
        guard let server else {
            serverFile?.remove()
            return
        }
        try serverFile?.save(server)
    }

    /// Keeps the logged-in user's session for the next launches, or deletes it (nil).
    /// - Throws: the file system's error.
    func store(session: StoredSession?) throws {
        guard let session else {
            sessionFile?.remove()
            return
        }
        try sessionFile?.save(session)
    }

    // MARK: Events

    /// Translates what happened and sends the events on: into the history, then to JavaScript (or the relay's
    /// buffer).
    func observe(_ input: EventTranslator.Input) {
        eventLock.withLock {
            let made = events.translator.translate(input, calls: callSummaries())
            for event in made {
                if case .accepted(let callID, _, let media) = event { withState { $0.media[callID] = media } }
                if events.history.record(event, at: environment.now()), !events.historyLocked {
                    try? historyFile?.save(events.history.entries)
                }
                for emitted in events.relay.send(event) { events.emitter?(emitted) }
            }
        }
        if case .observation(.ended(let callID, _)) = input {
            withState { state in
                state.outgoing[callID] = nil
                state.media[callID] = nil
            }
        }
    }

    /// A JavaScript instance asked for what happened before it (`getInitialEvents()`); from now on its emitter gets
    /// each event as it happens.
    /// - Parameter emitter: sends one event to that instance.
    /// - Returns: the attachment (pass it to ``detach(attachment:)``) and the events to replay.
    func attach(emitter: @escaping @Sendable (BridgeEvent) -> Void) -> (attachment: Int, replay: [BridgeEvent]) {
        eventLock.withLock {
            events.attachment += 1
            events.emitter = emitter
            return (events.attachment, events.relay.attach())
        }
    }

    /// The module of `attachment` was invalidated: events wait for the next instance. A stale attachment (an
    /// instance replaced meanwhile) changes nothing.
    func detach(attachment: Int) {
        eventLock.withLock {
            guard attachment == events.attachment else { return }
            events.emitter = nil
            events.relay.detach()
        }
    }

    /// The call history, newest first; before a locked history file was read, the calls of this launch alone.
    var historyEntries: [HistoryEntry] { eventLock.withLock { events.history.entries } }

    /// One call up on this phone, with what JavaScript is told about it.
    struct CurrentCall {
        var callID: String
        var summary: CallSummary
        var phase: PhoneCallMachine.Phase
        /// The media of its `accepted` event; nil before media could start.
        var media: MediaSession?
        /// A group call's legs as this phone last heard them; nil for a 1:1 call.
        var legs: [CallLeg]?
    }

    /// The calls up on this phone, oldest first. An outgoing call `startCall` has not returned yet is named by the
    /// callee's id alone (`name` null).
    func currentCalls() -> [CurrentCall] {
        let (phone, outgoing, media) = withState { ($0.phone, $0.outgoing, $0.media) }
        guard let phone else { return [] }
        return phone.coordinator.currentCalls().map { call in
            let callID = call.uuid.uuidString.lowercased()
            let summary =
                call.direction == .incoming
                ? CallSummary(
                    direction: .incoming, peer: call.caller ?? Party(id: ""), hasVideo: call.hasVideo,
                    group: call.group,
                    waiting: call.waiting)
                : outgoing[callID]
                    ?? CallSummary(direction: .outgoing, peer: Party(id: call.calleeID ?? ""), hasVideo: call.hasVideo)
            return CurrentCall(
                callID: callID, summary: summary, phase: call.phase, media: media[callID], legs: call.legs)
        }
    }

    private func callSummaries() -> [String: CallSummary] {
        Dictionary(currentCalls().map { ($0.callID, $0.summary) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: Readiness

    /// Reads the pre-flight again: the notification settings' problems, plus `no_push_token` while PushKit has
    /// given no VoIP token (as the registrar reports it to the server), and reports it to the server. A change is
    /// sent to JavaScript as `readinessChanged`.
    /// - Returns: the problems.
    func refreshReadiness() async -> [String] {
        let phone = withState { $0.phone }
        phone?.refreshReadiness()
        var problems = await environment.notificationProblems().map(\.rawValue)
        if phone?.registrar.status.tokens.voip == nil { problems.append(ReadinessProblem.noPushToken.rawValue) }
        let changed = withState { state -> Bool in
            defer { state.readiness = problems }
            return state.readiness != problems
        }
        if changed { observe(.readiness(problems)) }
        return problems
    }
}
