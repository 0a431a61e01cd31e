import DevCertificates
public import Foundation
import JWT
public import RingerKit
public import RingerSupport
public import RingerSandbox
public import RingerServer
import RingerTestKit
public import RingerWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A whole Ringer installation on loopback: a throw-away CA, APNs key and Firebase service account in a temporary
/// folder, the APNs sandbox and the FCM sandbox (HTTP/2 + TLS), and the Ringer server sending its VoIP pushes and
/// FCM messages to them. Used by `ringer-lab demo`, scenarios, race exploration and end-to-end tests.
///
/// The server is one of two kinds:
/// - by default one ``RingerServer`` in this process on SQLite in the same folder;
/// - with ``Options/cluster``, N separate `ringer serve` processes on a fresh PostgreSQL database and one Redis
///   (docs/operations.md), behind a loopback TCP balancer (``LoopbackBalancer``): each phone has one server URL, as
///   an app has, that leads to its own node and, while that node is down, to the next live one. A kill
///   (``killNode(_:)``) is a real `SIGKILL`; the nodes run on the stack's ``ScenarioClock`` through the test-only
///   `--test-time-scale`/`--test-time-origin` flags.
public final class LocalStack: Sendable {
    /// How to build the stack.
    public struct Options: Sendable {
        /// Seconds a call rings before `unanswered`.
        public var ringTimeout: TimeInterval = 45
        /// Seconds an accepted call may go unheard from before it ends `connection_lost`.
        public var callIdleTimeout: TimeInterval = 120
        /// Seconds after the answer at which an accepted call ends `max_duration`.
        public var maxCallDuration: TimeInterval = 14_400
        /// Server log destination.
        public var logger: Logger = .silent()
        /// Told of every server observation.
        public var observe: @Sendable (ServerObservation) -> Void = { _ in }
        /// The server's time, which the phones and the sandbox's push expiry share; provider-token ages
        /// stay on real time. A ``ScenarioClock`` runs it faster.
        public var clock: any ServerClock = SystemServerClock()
        /// Separate `ringer serve` processes instead of one server in this process; nil (the default) for one
        /// in-process server on SQLite. A cluster's nodes report no ``ServerObservation`` (``observe`` is not
        /// called), and its clock must be a ``ScenarioClock`` or the system clock.
        public var cluster: Cluster?

        /// Creates the defaults.
        public init() {}
    }

    /// A cluster of `ringer serve` processes (docs/operations.md, "Running several nodes").
    public struct Cluster: Sendable {
        /// How many nodes, 1 or more.
        public var nodes: Int
        /// `postgres://…` of a server on which the stack creates a database of its own and drops it at
        /// ``LocalStack/shutdown()`` (``PostgresScratchDatabase``): the role needs `CREATEDB`.
        public var databaseServer: String
        /// `redis://…`. Each stack's nodes use Redis names of their own (`--redis-prefix`, the database's name), so
        /// stacks may share one Redis, also at the same time.
        public var redis: String
        /// The `ringer-lab` executable the nodes run (`ringer-lab node`).
        public var executable: URL
        /// Real seconds a node may take to start and report Redis connected.
        public var startTimeout: TimeInterval = 30
        /// Told of what ``LocalStack/shutdown()`` could not clean up (a database it could not drop, named so it can
        /// be dropped by hand); standard error by default.
        public var warn: @Sendable (String) -> Void = { message in
            try? FileHandle.standardError.write(contentsOf: Data(("warning: " + message + "\n").utf8))
        }

        /// - Parameters:
        ///   - nodes: how many `ringer serve` processes, 1 or more.
        ///   - databaseServer: `postgres://…` of a role that may create databases.
        ///   - redis: `redis://…`, which other stacks may share.
        ///   - executable: the `ringer-lab` binary.
        public init(nodes: Int, databaseServer: String, redis: String, executable: URL) {
            self.nodes = nodes
            self.databaseServer = databaseServer
            self.redis = redis
            self.executable = executable
        }
    }

    /// What runs the server.
    private enum Backend: Sendable {
        /// One server in this process (a new instance after a restart), and its configuration with its bound
        /// port, so a restart listens where phones connect.
        case inProcess(LockedValue<RingerServer?>, ServerConfiguration)
        /// `ringer serve` processes behind the balancer, on the stack's own database.
        case cluster(ServerNodes, LoopbackBalancer, PostgresScratchDatabase)
    }

    /// The temporary folder holding keys, certificates and the database; removed by ``shutdown()``.
    public let directory: URL
    /// The server's base URL, `http://127.0.0.1:<port>`: on a cluster a balancer port that prefers node 0.
    public let serverURL: URL
    /// The APNs sandbox.
    public let sandbox: APNsSandbox
    /// The FCM sandbox (Google's token endpoint and `messages:send`), delivering to the Android phones' Play services.
    public let fcmSandbox: FCMSandbox
    /// The Firebase project the server sends through and the Android phones belong to.
    public static let firebaseProject = "ringer-demo"
    /// The in-process Ringer server (a new instance after ``restartServer(downFor:)``). Only an in-process stack
    /// (no ``Options/cluster``) has one, and only while it runs (not between ``killNode(_:)`` and
    /// ``startNode(_:)``): a test that asks otherwise is wrong, and traps.
    public var server: RingerServer {
        guard case .inProcess(let current, _) = backend, let server = current.withLock({ $0 }) else {
            preconditionFailure("LocalStack.server: no in-process server runs (a cluster stack, or a killed node)")
        }
        return server
    }
    /// The in-process server, nil on a cluster stack or while it is down.
    var inProcessServer: RingerServer? {
        guard case .inProcess(let current, _) = backend else { return nil }
        return current.withLock { $0 }
    }
    /// How many server nodes: 1 in process, ``Cluster/nodes`` on a cluster.
    public var nodeCount: Int {
        switch backend {
        case .inProcess: 1
        case .cluster(let nodes, _, _): nodes.ports.count
        }
    }
    /// WebSockets for simulated phones.
    public let webSockets: any WebSocketTransport
    private let backend: Backend
    private let options: Options
    /// Phones made so far, for the round robin over nodes.
    private let phonesMade = LockedValue(0)
    private let adminKey: String
    /// Phones made by ``phone(user:name:deviceID:behaviour:loggedIn:node:observe:)``, switched off by ``shutdown()``.
    private let phones = LockedValue<[SimulatedIPhone]>([])
    /// The Android phone host, started by the first Android phone (a task, so phones made at once share it); its
    /// phones close with it at ``shutdown()``.
    private let phoneHost = LockedValue<Task<AndroidPhoneHost, any Error>?>(nil)
    /// The FCM sandbox's HTTP/1.1 base, where phones in other processes hold their socket.
    let fcmPhoneSocketURL: URL
    /// The throw-away CA that signed the sandboxes' certificates.
    let caFile: URL
    /// The one shutdown, which every call of ``shutdown()`` awaits.
    private let shuttingDown = LockedValue<Task<Void, Never>?>(nil)

    private init(
        directory: URL, serverURL: URL, sandbox: APNsSandbox, fcmSandbox: FCMSandbox, backend: Backend,
        adminKey: String, options: Options, fcmPhoneSocketURL: URL, caFile: URL
    ) {
        self.fcmPhoneSocketURL = fcmPhoneSocketURL
        self.caFile = caFile
        self.directory = directory
        self.serverURL = serverURL
        self.sandbox = sandbox
        self.fcmSandbox = fcmSandbox
        self.backend = backend
        self.options = options
        self.adminKey = adminKey
        webSockets = LWSWebSocketTransport()
    }

    /// Creates keys and certificates, starts the sandbox and the server.
    /// - Throws: when a port cannot be bound or a file cannot be written; ``LocalStackError`` once
    ///   ``shutdownEveryStack()`` was called (a stack that was starting then is shut down before the error).
    public static func start(_ options: Options = Options()) async throws -> LocalStack {
        try LiveStacks.beginStart()
        let stack: LocalStack
        do {
            stack = try await make(options)
        } catch {
            LiveStacks.abandonStart()
            throw error
        }
        guard LiveStacks.finishStart(stack) else {
            await stack.shutdown()
            LiveStacks.abandonStart()
            throw LocalStackError("stopped starting a stack: the process is ending")
        }
        return stack
    }

    /// Shuts down every stack of this process (``shutdown()``), waits for those still starting to give up, and refuses
    /// new ones: for a command ending on `SIGINT` or `SIGTERM`, so no `ringer serve` node, scratch database or
    /// temporary folder outlives it. Returns within about 40 s (a start waiting on a node gives up within 50 ms).
    public static func shutdownEveryStack() async {
        await LiveStacks.shutdownAll(within: 40)
    }

    /// True once ``shutdownEveryStack()`` was called: a run that ends now ended because its stack was shut down under
    /// it, and its result means nothing.
    public static var isProcessEnding: Bool { LiveStacks.isEnding }

    /// ``start(_:)`` without the bookkeeping of the process's stacks.
    private static func make(_ options: Options) async throws -> LocalStack {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let authority = try DevCertificateAuthority.create()
        let tls = try authority.write(to: directory.appendingPathComponent("tls"))

        // An APNs signing key as Apple issues it: a PKCS#8 EC P-256 `.p8`, with a key id and team id.
        let apnsKey = try JWTSigningKey.generateP256()
        let keyFile = directory.appendingPathComponent("AuthKey_RINGERDEMO.p8")
        try Data(try apnsKey.pkcs8PEM().utf8).write(to: keyFile, options: .atomic)
        let (keyID, teamID) = ("RINGERDEMO", "RINGERTEAM")

        let sandbox = APNsSandbox(
            configuration: .init(
                certificatePath: tls.serverCertificate.path,
                privateKeyPath: tls.serverPrivateKey.path),
            expiryNow: options.clock.now, logger: options.logger)
        try sandbox.addProviderKey(keyID: keyID, teamID: teamID, publicKeyPEM: try apnsKey.publicKeyPEM())
        let sandboxPort = try sandbox.start()

        // A Firebase service account whose token URI is the FCM sandbox's, trusted by it. Grants and access
        // tokens age on real time; message ttl on the stack's clock.
        let fcmSandbox = FCMSandbox(
            configuration: .init(
                port: 0, http1Port: 0, certificatePath: tls.serverCertificate.path,
                privateKeyPath: tls.serverPrivateKey.path),
            expiryNow: options.clock.now, logger: options.logger)
        let fcmPorts = try fcmSandbox.start()
        let fcmPort = fcmPorts.http2
        let account = try FCMSandboxServiceAccountFile.make(
            projectID: firebaseProject,
            tokenURI: "https://localhost:\(fcmPort)/token")
        let accountFile = directory.appendingPathComponent("firebase-service-account.json")
        try account.write(to: accountFile, options: .atomic)
        try fcmSandbox.addServiceAccount(json: account)

        let adminKey = Self.randomSecret()
        let userTokenSecret = Self.randomSecret()
        let backend: Backend
        let serverURL: URL
        do {
            if let cluster = options.cluster {
                var arguments = [
                    "--apns-key-file", keyFile.path, "--apns-key-id", keyID, "--apns-team-id", teamID,
                    "--apns-host", "localhost:\(sandboxPort)", "--apns-ca-file", tls.caCertificate.path,
                    "--fcm-service-account", accountFile.path, "--fcm-host", "localhost:\(fcmPort)",
                    "--fcm-ca-file", tls.caCertificate.path,
                    "--ring-timeout", "\(options.ringTimeout)", "--call-idle-timeout", "\(options.callIdleTimeout)",
                    "--max-call-duration", "\(options.maxCallDuration)", "--database-pool-size", "4",
                ]
                arguments += try Self.testTimeFlags(options.clock)
                let database = try PostgresScratchDatabase(serverURL: cluster.databaseServer)
                // The run's own Redis names, so runs sharing a Redis never hear each other; and nodes that end
                // themselves should this process die unannounced (SIGKILL), as a test run's nodes must.
                arguments += ["--redis-prefix", database.name, "--test-parent-pid", "\(getpid())"]
                let nodes: ServerNodes
                do {
                    nodes = try ServerNodes(
                        count: max(1, cluster.nodes),
                        launch: .init(
                            executable: cluster.executable, arguments: arguments,
                            environment: [
                                "RINGER_ADMIN_KEY": adminKey, "RINGER_USER_TOKEN_SECRET": userTokenSecret,
                                "RINGER_DATABASE": database.url, "RINGER_REDIS": cluster.redis,
                            ],
                            folder: directory, startTimeout: cluster.startTimeout))
                } catch {
                    drop(database, cluster)
                    throw error
                }
                let balancer = LoopbackBalancer(backends: nodes.ports)
                do {
                    // The first node migrates the new database; the others then find it current.
                    for node in nodes.ports.indices { try await nodes.start(node) }
                    serverURL = URL(string: "http://127.0.0.1:\(try balancer.front(preferring: 0))")!
                } catch {
                    // Nothing of a stack that never started is left running or stored.
                    await nodes.shutdown()
                    balancer.shutdown()
                    drop(database, cluster)
                    throw error
                }
                backend = .cluster(nodes, balancer, database)
            } else {
                var config = ServerConfiguration()
                config.port = 0
                config.databasePath = directory.appendingPathComponent("ringer.sqlite").path
                config.adminKey = adminKey
                config.userTokenSecret = userTokenSecret
                config.ringTimeout = options.ringTimeout
                config.callIdleTimeout = options.callIdleTimeout
                config.maxCallDuration = options.maxCallDuration
                var apns = ServerConfiguration.APNsSettings(keyFile: keyFile.path, keyID: keyID, teamID: teamID)
                apns.sandboxURL = "https://localhost:\(sandboxPort)"
                apns.productionURL = apns.sandboxURL
                apns.caFile = tls.caCertificate.path
                config.apns = apns
                var fcm = ServerConfiguration.FCMSettings(serviceAccountFiles: [accountFile.path])
                fcm.baseURL = "https://localhost:\(fcmPort)"
                fcm.caFile = tls.caCertificate.path
                config.fcm = fcm
                let server = try RingerServer(
                    configuration: config, clock: options.clock, logger: options.logger,
                    observe: options.observe)
                let port = try await server.start()
                config.port = port
                serverURL = URL(string: "http://127.0.0.1:\(port)")!
                backend = .inProcess(LockedValue(server), config)
            }
        } catch {
            sandbox.shutdown()
            fcmSandbox.shutdown()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        return LocalStack(
            directory: directory, serverURL: serverURL, sandbox: sandbox, fcmSandbox: fcmSandbox,
            backend: backend, adminKey: adminKey, options: options,
            fcmPhoneSocketURL: URL(string: "https://127.0.0.1:\(fcmPorts.http1 ?? 0)")!, caFile: tls.caCertificate)
    }

    /// `--test-time-scale`/`--test-time-origin` for nodes on `clock` (none on the system clock).
    /// - Throws: ``LocalStackError`` for a clock that separate processes cannot share.
    private static func testTimeFlags(_ clock: any ServerClock) throws -> [String] {
        if clock is SystemServerClock { return [] }
        guard let scenario = clock as? ScenarioClock else {
            throw LocalStackError("a cluster stack runs on a ScenarioClock or the system clock, not \(type(of: clock))")
        }
        return [
            "--test-time-scale", "\(scenario.scale)",
            "--test-time-origin", "\(Int64((scenario.origin.timeIntervalSince1970 * 1000).rounded()))",
        ]
    }

    /// Stops every node as a deploy would (in process: ``RingerServer/shutdown()``; a cluster: `SIGTERM`, so each
    /// drains), waits, and starts them again on the same database and ports; they reschedule the stored ring
    /// deadlines.
    /// - Parameter seconds: real seconds the server stays down.
    /// - Throws: when a node cannot open the database or bind its port again.
    public func restartServer(downFor seconds: TimeInterval) async throws {
        switch backend {
        case .inProcess:
            await killNode(0)
        case .cluster(let nodes, let balancer, _):
            for node in nodes.ports.indices {
                balancer.setDown(node, true)
                await nodes.stop(node)
            }
        }
        if seconds > 0 { try? await Task.sleep(for: .seconds(seconds)) }
        for node in 0..<nodeCount { try await startNode(node) }
    }

    /// Kills a node mid-whatever: on a cluster a real `SIGKILL` (no drain, no goodbye to Redis; the balancer
    /// sends its phones to the next live node); in process the server's ``RingerServer/shutdown()`` (timers and
    /// sockets gone), as close to a crash as one process allows. Nothing happens to a node that is down.
    /// - Parameter node: `0..<nodeCount`.
    public func killNode(_ node: Int) async {
        switch backend {
        case .inProcess(let current, _):
            guard node == 0,
                let server = current.withLock({ state -> RingerServer? in
                    defer { state = nil }
                    return state
                })
            else { return }
            await server.shutdown()
        case .cluster(let nodes, let balancer, _):
            guard nodes.ports.indices.contains(node) else { return }
            // The process first, as a machine dies: its sockets end as the kernel ends them, and only then does
            // the balancer send new connections elsewhere.
            nodes.kill(node)
            balancer.setDown(node, true)
        }
    }

    /// Starts a node that is down on its old port and database (it reschedules the stored ring deadlines), and waits
    /// until it serves; nothing happens to a node that runs.
    /// - Parameter node: `0..<nodeCount`.
    /// - Throws: ``LocalStackError`` for a node that is not in the stack or does not come up (with its log), or
    ///   the server's error when it cannot open the database or bind the port.
    public func startNode(_ node: Int) async throws {
        guard (0..<nodeCount).contains(node) else {
            throw LocalStackError("there is no node \(node): the stack has \(nodeCount) (0 to \(nodeCount - 1))")
        }
        switch backend {
        case .inProcess(let current, let configuration):
            guard current.withLock({ $0 == nil }) else { return }
            let next = try RingerServer(
                configuration: configuration, clock: options.clock, logger: options.logger,
                observe: options.observe)
            // The old listener may take a moment to release the port.
            var attempt = 0
            while true {
                do {
                    try await next.start()
                    break
                } catch  where attempt < 50 {
                    attempt += 1
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
            current.withLock { $0 = next }
        case .cluster(let nodes, let balancer, _):
            try await nodes.start(node)
            balancer.setDown(node, false)
        }
    }

    /// Whether a node runs now.
    /// - Parameter node: `0..<nodeCount`.
    public func isNodeRunning(_ node: Int) -> Bool {
        switch backend {
        case .inProcess(let current, _): node == 0 && current.withLock { $0 != nil }
        case .cluster(let nodes, _, _): nodes.isRunning(node)
        }
    }

    /// The end of each node's log, for a failure report (empty in process: its log goes to ``Options/logger``).
    /// - Parameter lines: lines per node.
    /// - Returns: one text per node, headed by its id.
    public func nodeLogTails(lines: Int = 30) -> [String] {
        guard case .cluster(let nodes, _, _) = backend else { return [] }
        return nodes.ports.indices.map { "\(ServerNodes.nodeID($0)):\n" + nodes.logTail($0, lines: lines) }
    }

    /// The base URL a phone uses: the server's in process; on a cluster a balancer port of its own that leads to
    /// `node` while it runs, and to the next live node while it is down.
    /// - Parameter node: the node it prefers; nil for the phone's place among the phones made, modulo the nodes.
    private func phoneURL(node: Int?) throws -> URL {
        let place = phonesMade.withLock { made in
            defer { made += 1 }
            return made
        }
        guard case .cluster(_, let balancer, _) = backend else { return serverURL }
        let preferred = node ?? place
        return URL(string: "http://127.0.0.1:\(try balancer.front(preferring: preferred % nodeCount))")!
    }

    /// Mints a user token through the admin API, as an app's backend would after its own login.
    /// - Throws: ``RingerAPIError`` when the server refuses.
    public func userToken(for userID: String, name: String?) async throws -> String {
        var request = URLRequest(url: serverURL.appendingPathComponent("v1/tokens"))
        request.httpMethod = "POST"
        request.setValue("Bearer " + adminKey, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        // A day of server time: scenarios run the clock up to a thousand times faster than real time.
        request.httpBody = try RingerJSON.encode(CreateTokenRequest(userID: userID, name: name, ttlSeconds: 86_400))
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 201 else {
            throw RingerAPIError.unexpectedResponse("POST /v1/tokens: \(String(decoding: data, as: UTF8.self))")
        }
        return try RingerJSON.decode(TokenResponse.self, from: data).token
    }

    /// `GET /metrics` as the operator's scraper reads it (with the stack's admin key).
    /// - Throws: ``RingerAPIError`` when the server does not answer 200.
    public func metrics() async throws -> String {
        var request = URLRequest(url: serverURL.appendingPathComponent("metrics"))
        request.setValue("Bearer " + adminKey, forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw RingerAPIError.unexpectedResponse("GET /metrics: \(String(decoding: data, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// An API key of the app's backend with `scopes` (decision 0009 §1), made with the stack's admin key.
    /// - Throws: ``RingerAPIError`` when the server refuses to make it.
    public func apiKey(name: String = "backend", scopes: [APIKeyScope]) async throws -> String {
        var request = URLRequest(url: serverURL.appendingPathComponent("v1/api-keys"))
        request.httpMethod = "POST"
        request.setValue("Bearer " + adminKey, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try RingerJSON.encode(CreateAPIKeyRequest(name: name, scopes: scopes))
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 201 else {
            throw RingerAPIError.unexpectedResponse("POST /v1/api-keys: \(String(decoding: data, as: UTF8.self))")
        }
        return try RingerJSON.decode(CreatedAPIKey.self, from: data).key
    }

    /// A phone for `userID`, logged in and registered, app in the foreground, on the stack's clock.
    /// - Parameters:
    ///   - userID: the user who logs in.
    ///   - name: the user's display name.
    ///   - deviceID: the app's device id.
    ///   - behaviour: what the user does when it rings.
    ///   - loggedIn: false to install the app with no user logged in: the server must refuse its registration.
    ///   - node: on a cluster, the node its connections go to while it runs; nil for the phone's place among the
    ///     phones made, modulo the nodes (the first phone on node 0). Ignored in process.
    ///   - observe: told of everything that happens on the phone.
    /// - Returns: the registered phone.
    /// - Throws: ``RingerAPIError`` when the user token cannot be minted or the server refuses the
    ///   registration (then the app is stopped, as an app back at its login screen holds no socket).
    public func phone(
        user userID: String, name: String?, deviceID: String, behaviour: SimulatedIPhone.Behaviour,
        loggedIn: Bool = true, node: Int? = nil,
        observe: @escaping @Sendable (SimulatedIPhone.Observation) -> Void = { _ in }
    )
        async throws -> SimulatedIPhone
    {
        let token = loggedIn ? try await userToken(for: userID, name: name) : ""
        let phone = SimulatedIPhone(
            identity: .init(userID: userID, deviceID: deviceID), server: try phoneURL(node: node),
            userToken: token, webSockets: webSockets, behaviour: behaviour,
            now: options.clock.now, sleepUntil: options.clock.sleep(until:), observe: observe)
        phones.withLock { $0.append(phone) }
        do {
            try await phone.installAndLogIn(sandbox: sandbox)
        } catch {
            phone.setAppState(.killed)
            throw error
        }
        return phone
    }

    /// An Android phone for `userID` in the stack's ``AndroidPhoneHost`` (started at the first, on the stack's clock):
    /// the real Kotlin SDK over the Android mirror, in the stack's Firebase project. Its app is installed and opened;
    /// with `loggedIn` it logs in and registers (`{"platform":"android","fcm_token":…}`) and the host waits until the
    /// server lists it; then the app is moved to `appState`.
    /// - Parameters:
    ///   - userID: the user the phone belongs to.
    ///   - name: the user's display name.
    ///   - deviceID: the app's device id, also the phone's name in the host.
    ///   - behaviour: what the user does when it rings; delays in seconds of the stack's clock (scenario seconds).
    ///   - permissions: the Android permissions granted (all by default).
    ///   - loggedIn: false to install the app with nobody logged in: it registers nothing.
    ///   - appState: where the app is left: `.killed` and `.swipedAway` both swipe it away.
    ///   - locked: the keyguard shows.
    ///   - dozing: the phone is in Doze.
    ///   - node: on a cluster, the node its connections go to while it runs; nil for the phone's place among the
    ///     phones made, modulo the nodes. Ignored in process.
    ///   - observe: told of every event of the phone (docs/android-phone-host.md, "Events"), on the host's reader
    ///     thread.
    ///   - onError: told of a request to the phone that the host refused (an answer with nothing ringing, …).
    /// - Returns: the phone.
    /// - Throws: ``RingerAPIError`` when the user token cannot be minted; ``AndroidPhoneHost/HostError``:
    ///   `no_classpath` when the host is not built (run `make -C android lab`), `registration_failed` when the server
    ///   did not list the logged-in phone, …
    public func androidPhone(
        user userID: String, name: String?, deviceID: String, behaviour: CalleeBehaviour = .ignore,
        permissions: Set<AndroidPermission> = Set(AndroidPermission.allCases), loggedIn: Bool = true,
        appState: ScenarioDevice.AppState = .foreground, locked: Bool = false, dozing: Bool = false,
        node: Int? = nil, observe: @escaping @Sendable (AndroidHostEvent) -> Void = { _ in },
        onError: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> HostedAndroidPhone {
        let token = loggedIn ? try await userToken(for: userID, name: name) : nil
        var fields = HostedAndroidPhone.fields(
            userToken: token, permissions: permissions, behaviour: behaviour, locked: locked, dozing: dozing)
        fields["app_state"] = HostedAndroidPhone.wireName(appState)
        return try await androidPhone(
            user: userID, deviceID: deviceID, fields: fields, node: node, observe: observe, onError: onError)
    }

    /// An Android phone in the stack's ``AndroidPhoneHost`` (started on first use, on the stack's clock), added with
    /// `add_phone`'s `fields` as they are.
    /// - Parameters:
    ///   - userID: the user the phone belongs to.
    ///   - deviceID: the app's device id, also the phone's name in the host.
    ///   - fields: the rest of `add_phone`'s fields (``HostedAndroidPhone/fields(userToken:permissions:behaviour:locked:dozing:)``).
    ///   - node: on a cluster, the node its connections go to while it runs; nil for the phone's place among the
    ///     phones made. Ignored in process.
    ///   - observe: told of every event of the phone, on the host's reader thread.
    ///   - onError: told of a request to the phone that the host refused.
    /// - Returns: the phone.
    /// - Throws: ``AndroidPhoneHost/HostError``: `no_classpath` when the host is not built (`make -C android lab`),
    ///   `registration_failed` when the server did not list the logged-in phone, …
    func androidPhone(
        user userID: String, deviceID: String, fields: [String: Any], node: Int? = nil,
        observe: @escaping @Sendable (AndroidHostEvent) -> Void, onError: @escaping @Sendable (String) -> Void
    ) async throws -> HostedAndroidPhone {
        var request = fields
        let url = try phoneURL(node: node)
        if case .cluster = backend { request["server_url"] = url.absoluteString }
        return try await HostedAndroidPhone.add(
            to: try await androidPhoneHost(), deviceID: deviceID, userID: userID, fields: request, observe: observe,
            onError: onError)
    }

    /// The stack's phone host, started at the first call with the stack's server, FCM sandbox and clock.
    /// - Throws: ``AndroidPhoneHost/HostError`` when it cannot start.
    private func androidPhoneHost() async throws -> AndroidPhoneHost {
        let task = phoneHost.withLock { task in
            if let task { return task }
            let (scale, origin): (Double, Date) =
                if let clock = options.clock as? ScenarioClock { (clock.scale, clock.origin) } else { (1, Date()) }
            let started = Task { [serverURL, fcmPhoneSocketURL, caFile, directory] in
                try await AndroidPhoneHost.launch(
                    serverURL: serverURL, fcmSandboxURL: fcmPhoneSocketURL, caFile: caFile,
                    projectID: Self.firebaseProject, timeScale: min(scale, 1), timeOrigin: origin,
                    logFile: directory.appendingPathComponent("android-phone-host.log"))
            }
            task = started
            return started
        }
        return try await task.value
    }

    /// The end of the phone host's log, for a failure report; nil when no host ran.
    public func phoneHostLogTail(lines: Int = 40) -> String? {
        guard phoneHost.withLock({ $0 != nil }),
            let text = try? String(
                contentsOf: directory.appendingPathComponent("android-phone-host.log"), encoding: .utf8)
        else { return nil }
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Switches the phones off, stops the server (a cluster's nodes with `SIGTERM`, then drops its database, telling
    /// ``Cluster/warn`` when it cannot) and the sandboxes, and removes the temporary folder. A second call, also one
    /// made at the same time (``shutdownEveryStack()`` on a signal), waits for the first.
    public func shutdown() async {
        let task = shuttingDown.withLock { task in
            if let task { return task }
            let started = Task { await self.stopEverything() }
            task = started
            return started
        }
        await task.value
        LiveStacks.remove(self)
    }

    private func stopEverything() async {
        for phone in phones.withLock({ $0 }) { phone.setAppState(.killed) }
        if let host = phoneHost.withLock({ $0 }) { await (try? host.value)?.shutdown() }
        switch backend {
        case .inProcess: await killNode(0)
        case .cluster(let nodes, let balancer, let database):
            await nodes.shutdown()
            balancer.shutdown()
            if let cluster = options.cluster { Self.drop(database, cluster) }
        }
        sandbox.shutdown()
        fcmSandbox.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Drops a cluster stack's database, telling ``Cluster/warn`` when it cannot.
    private static func drop(_ database: PostgresScratchDatabase, _ cluster: Cluster) {
        do {
            try database.drop()
        } catch {
            cluster.warn(
                "could not drop the run's database \(database.name) (\(error)); drop it by hand: DROP DATABASE \(database.name)"
            )
        }
    }

    private static func randomSecret() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}
