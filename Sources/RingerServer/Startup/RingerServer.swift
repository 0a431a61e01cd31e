import APNs
import FCM
import Foundation
import JWT
import LibWebSockets
import RingerCore
import RingerHTTP
public import RingerLogging
import RingerRedis
public import RingerStore
import RingerSync
import RingerWire

/// The Ringer server: HTTP API and WebSocket on libwebsockets, SQLite store, APNs VoIP pushes, FCM
/// data messages.
///
/// ```swift
/// let server = try RingerServer(configuration: config, logger: Logger(label: "ringer"))
/// let port = try await server.start()
/// // …
/// await server.shutdown()
/// ```
/// Thread-safe. ``start()`` once; ``shutdown()`` is idempotent.
public final class RingerServer: Sendable {
    /// Largest message a client may send on the event socket (`/v1/events`), in bytes: the socket carries
    /// events to the app, and clients send at most small control messages. A larger one closes the socket
    /// with 1009 (RFC 6455 §7.4.1), so no client can make the server hold more than this per socket.
    public static let maxEventSocketMessageBytes = 4096

    private let configuration: ServerConfiguration
    private let store: any RingerStore
    private let hub: EventHub
    let service: CallService
    private let router: APIRouter
    private let apns: APNsClient?
    private let fcm: FCMClient?
    private let fcmWatch: FCMCredentialWatch?
    /// The other servers of the cluster, with `--redis`.
    private let cluster: ClusterLink?
    /// This run of this server: `--node-id` and the start time, `<node-id>/<unix ms>`. Stored with the calls it
    /// places, in its heartbeat, and shown in `/healthz` with `--redis`.
    public let incarnation: String
    private let pushes: PushDispatcher
    private let web: LockedValue<WebServer?>
    private let nextConnectionID = LockedValue<UInt64>(0)
    private let log: Logger

    /// Loads and checks the APNs credentials, so a wrong file or password stops the server at start
    /// instead of failing every call later.
    /// - Throws: ``ConfigurationError`` naming the flag (never a secret's value).
    static func authentication(
        _ credentials: ServerConfiguration.APNsSettings.Credentials
    ) throws -> APNsClient.Authentication {
        switch credentials {
        case .signingKey(let file, let keyID, let teamID):
            let pem: String
            do {
                pem = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw ConfigurationError("cannot read --apns-key-file \(file)")
            }
            do {
                return .providerToken(.init(key: try JWTSigningKey(pem: pem), keyID: keyID, teamID: teamID))
            } catch {
                throw ConfigurationError("--apns-key-file \(file) is not a PKCS#8 EC private key (.p8)")
            }
        case .certificate(let file, let keyFile, let password):
            do {
                return .certificate(try APNsCertificate.load(file: file, keyFile: keyFile, password: password))
            } catch let error as APNsCertificateError {
                throw ConfigurationError(Self.explain(error, file: file, keyFile: keyFile))
            }
        }
    }

    /// Loads every FCM service-account file and makes the client, so a bad file stops the server at start.
    /// - Throws: ``ConfigurationError`` naming the file and the field to fix (never key material).
    static func fcmClient(_ settings: ServerConfiguration.FCMSettings) throws -> FCMClient {
        var accounts: [FCMServiceAccount] = []
        for file in settings.serviceAccountFiles {
            do {
                accounts.append(try FCMServiceAccount(contentsOfFile: file))
            } catch {
                throw ConfigurationError("--fcm-service-account \(file): \(error.detail)")
            }
        }
        do {
            return try FCMClient(
                configuration: .init(
                    serviceAccounts: accounts, baseURL: settings.baseURL,
                    caFile: settings.caFile))
        } catch {
            throw ConfigurationError("--fcm-service-account / --fcm-host / --fcm-ca-file: \(error)")
        }
    }

    /// A certificate problem in the terms of the flags that caused it (never the password).
    static func explain(_ error: APNsCertificateError, file: String, keyFile: String?) -> String {
        switch error {
        case .passwordNeeded:
            return
                "--apns-cert-file \(file): the file is encrypted and no password was given; set RINGER_APNS_CERT_PASSWORD"
        case .noPrivateKey:
            return keyFile.map { "--apns-cert-key-file \($0) holds no private key" }
                ?? "--apns-cert-file \(file) holds no private key; give the key file with --apns-cert-key-file"
        case .keyMismatch:
            return keyFile.map {
                "--apns-cert-key-file \($0): the private key does not belong to --apns-cert-file \(file)"
            }
                ?? "--apns-cert-file \(file): \(error.description)"
        default:
            return "--apns-cert-file \(file): \(error.description)"
        }
    }

    /// Builds the server: opens (and migrates) the database, loads the APNs key and the FCM service
    /// accounts. Listens on ``start()``.
    /// - Parameters:
    ///   - configuration: flags and settings.
    ///   - store: a store to use instead of opening `configuration.databasePath` (tests).
    ///   - clock: time source; real time by default.
    ///   - logger: where operational messages go; never receives tokens or keys.
    ///   - observe: called for each ``ServerObservation`` (timelines, tests), on any thread.
    /// - Throws: ``ConfigurationError`` for an unreadable key; `StoreError` when the database cannot open.
    public init(
        configuration: ServerConfiguration, store: (any RingerStore)? = nil,
        clock: any ServerClock = SystemServerClock(), logger: Logger,
        observe: @escaping @Sendable (ServerObservation) -> Void = { _ in }
    ) throws {
        self.configuration = configuration
        log = logger
        // New at every start, so what a killed predecessor of the same name left is never taken for this one's.
        let incarnation = "\(configuration.nodeID)/\(Date().unixMilliseconds)"
        self.incarnation = incarnation
        let store = try store ?? Self.openStore(configuration)
        self.store = store
        apns = try configuration.apns.map { settings in
            let authentication = try Self.authentication(settings.credentials)
            if case .certificate(let certificate) = authentication {
                let metadata: Logger.Metadata = [
                    "apns.certificate.subject": .string(certificate.subject),
                    "apns.certificate.not_after": .string(certificate.notAfter.description),
                ]
                if certificate.notAfter.timeIntervalSinceNow < 30 * 24 * 3600 {
                    logger.warning("the APNs client certificate expires within 30 days; renew it", metadata)
                } else {
                    logger.info("APNs certificate authentication", metadata)
                }
            }
            return try APNsClient(
                configuration: .init(
                    authentication: authentication, sandboxURL: settings.sandboxURL,
                    productionURL: settings.productionURL, caFile: settings.caFile))
        }
        let fcm = try configuration.fcm.map(Self.fcmClient)
        self.fcm = fcm
        // Call changes and the hub's baseline reads hold the same per-user locks (EventHub, CallService).
        let publications = KeyedAsyncLock()
        hub = EventHub(
            store: store, publications: publications, maxSocketsPerUser: configuration.maxSocketsPerUser,
            now: { clock.now() })
        let tokens = try UserTokens(
            secret: configuration.userTokenSecret,
            publicKeys: UserTokens.publicKeys(files: configuration.userTokenPublicKeyFiles))
        let pushHealth = PushSetupHealth(log: logger)
        let limits = RateLimits(
            settings: configuration.rateLimits,
            trustedProxies: configuration.trustedProxies, clock: clock)
        fcmWatch = fcm.map { FCMCredentialWatch(client: $0, health: pushHealth, clock: clock, log: logger) }
        let delivery = PushDelivery(store: store, health: pushHealth, clock: clock, log: logger, observe: observe)
        let pushes = PushDispatcher(apns: apns, fcm: fcm, delivery: delivery, clock: clock)
        self.pushes = pushes
        service = CallService(
            store: store, hub: hub, publications: publications, pushes: pushes,
            media: try MediaTokens(settings: configuration.media),
            ringTimeout: configuration.ringTimeout, limits: limits,
            watch: AcceptedCallWatch(
                idleLimit: configuration.callIdleTimeout,
                maximumDuration: configuration.maxCallDuration),
            clock: clock, log: logger, node: incarnation,
            lockWait: (store as? PostgresStore)?.operationTimeout,
            retention: configuration.retentionDays.flatMap { $0 > 0 ? TimeInterval($0) * 86_400 : nil },
            observe: observe)
        let cluster = try Self.clusterLink(
            configuration, incarnation: incarnation, store: store, hub: hub, service: service,
            clock: clock, log: logger)
        self.cluster = cluster
        service.cluster.withLock { $0 = cluster }
        if let cluster {
            hub.presenceObserver.withLock { $0 = { cluster.presenceChanged(userID: $0, online: $1) } }
            hub.deviceObserver.withLock { $0 = { cluster.deviceConnected(userID: $0, deviceID: $1, at: $2) } }
        }
        router = APIRouter(
            service: service, devices: DeviceRegistry(store: store, fcmProjects: fcm?.projectIDs ?? []),
            store: store, tokens: tokens,
            adminKey: configuration.adminKey, maxUserTokenTTL: configuration.maxUserTokenTTL,
            clock: clock, log: logger, pushHealth: pushHealth,
            mediaUsesDevelopmentKey: configuration.media.usesDevelopmentKey, limits: limits)
        web = LockedValue(nil)
    }

    /// The link to the other servers, when `--redis` is set: their events reach the sockets here and this
    /// server's watch over accepted calls; what Redis lost is read back from the store.
    /// - Throws: ``ConfigurationError`` naming `--redis` for a URL that cannot be used or a Redis that cannot be reached.
    private static func clusterLink(
        _ configuration: ServerConfiguration, incarnation: String, store: any RingerStore, hub: EventHub,
        service: CallService, clock: any ServerClock, log: Logger
    ) throws -> ClusterLink? {
        guard let text = configuration.redisURL else { return nil }
        let url: RedisURL
        do {
            url = try RedisURL(parsing: text)
        } catch {
            throw ConfigurationError("--redis (RINGER_REDIS): \(error)")
        }
        if !PostgresTarget.isPostgresURL(configuration.databasePath) {
            log.warning(
                "--redis is set but --database is an SQLite file: servers of a cluster must share one PostgreSQL database"
            )
        }
        let handlers = ClusterLink.Handlers(
            events: { [weak service] events in service?.learn(fromCluster: events) },
            heard: { [weak service] callID in service?.acceptedCalls.heard(callID: callID, at: clock.now()) },
            connected: { [weak hub] user, device, date in
                hub?.replaceDevice(userID: user, deviceID: device, connectedAt: date)
            },
            resubscribed: { [weak hub, weak service] in
                hub?.catchUpAll()
                service?.cluster.snapshot?.refreshAfterReconnect()
            },
            localUsers: { [weak hub] in hub?.onlineUsers() ?? [] },
            reconcile: { [weak hub] since in
                guard let recent = try? await store.recentSequences(since: since) else { return }
                for (userID, seq) in recent { hub?.catchUp(userID: userID, to: seq) }
            })
        return try ClusterLink(
            url: url, keys: ClusterKeys(prefix: configuration.redisPrefix), incarnation: incarnation, clock: clock,
            log: log, handlers: handlers)
    }

    /// The store `--database` names: a `postgres://` URL opens a ``PostgresStore``, anything else an SQLite file.
    /// - Throws: ``ConfigurationError`` naming `--database` when PostgreSQL cannot be reached or refuses the login,
    ///   or when either database was written by a newer Ringer; `StoreError` for an SQLite file that cannot open.
    static func openStore(_ configuration: ServerConfiguration) throws -> any RingerStore {
        guard let target = PostgresTarget(url: configuration.databasePath) else {
            do {
                return try SQLiteStore(path: configuration.databasePath)
            } catch let error as StoreError where error.isNewerSchema {
                throw ConfigurationError("--database (RINGER_DATABASE) \(configuration.databasePath): \(error)")
            }
        }
        do {
            return try PostgresStore(
                target: target, poolSize: configuration.databasePoolSize,
                operationTimeout: .milliseconds(Int64((configuration.databaseTimeout * 1000).rounded(.up))))
        } catch let error as StoreError {
            throw ConfigurationError(
                error.isNewerSchema
                    ? "--database (RINGER_DATABASE) \(target): \(error)"
                    : "--database (RINGER_DATABASE): cannot use PostgreSQL at \(target): \(error)")
        }
    }

    /// Tries one FCM grant per service account, reschedules the ring timeouts of calls that were ringing
    /// before a restart, and starts listening.
    /// - Returns: the bound port (useful with port 0).
    /// - Throws: ``ConfigurationError`` when Google refuses an FCM grant (an unreachable token endpoint is
    ///   reported by `/healthz` and retried instead); `WebServerError` when the address cannot be bound;
    ///   `StoreError`.
    @discardableResult
    public func start() async throws -> Int {
        if configuration.media.usesDevelopmentKey {
            log.warning(
                "media tokens are signed with LiveKit's published development key (devkey/secret): anyone can "
                    + "mint tokens for that media server; set --media-api-key and --media-api-secret")
        }
        // A store that cannot take writes would answer reads and lose every call: refuse to start on it.
        do {
            try await store.checkWritable(at: Date())
        } catch {
            throw ConfigurationError(
                PostgresTarget.isPostgresURL(configuration.databasePath)
                    ? "--database (RINGER_DATABASE): the PostgreSQL database \(configuration.databaseDescription) cannot be written "
                        + "(\(error)); check that it is a primary, not a read-only standby, and that the user may write"
                    : "the database \(configuration.databasePath) cannot be written (\(error)); "
                        + "check the file's permissions, the disk's free space and the path")
        }
        try await fcmWatch?.checkAtStart()
        let router = self.router
        var webConfiguration = WebServer.Configuration(
            host: configuration.host, port: configuration.port,
            extraRequestHeaders: ["idempotency-key"],
            maxRequestBodyBytes: APIRouter.maxBodyBytes,
            webSocketPaths: ["/v1/events"],
            maxWebSocketMessageBytes: Self.maxEventSocketMessageBytes)
        webConfiguration.webSocketPingSeconds = 20
        webConfiguration.payloadTooLargeResponse = APIProblem.response(
            APIProblem.payloadTooLarge(limit: APIRouter.maxBodyBytes))
        // Refused upgrades answer problem+json like every other refusal (clients read `type`, not the text).
        webConfiguration.webSocketNotFoundResponse = APIProblem.response(
            APIProblem.notFound("no WebSocket here; the event stream is GET /v1/events"))
        webConfiguration.webSocketShuttingDownResponse = APIProblem.response(APIProblem.unavailable())
        webConfiguration.requestDeadlineSeconds = configuration.requestDeadlineSeconds
        webConfiguration.requestTimeoutResponse = APIProblem.response(
            APIProblem.requestTimeout(seconds: configuration.requestDeadlineSeconds))
        webConfiguration.maxConnectionsPerAddress = configuration.maxConnectionsPerAddress
        webConfiguration.maxConnections = configuration.maxConnections
        webConfiguration.headersTooLargeResponse = APIProblem.response(
            APIProblem.headersTooLarge(limit: webConfiguration.maxRequestHeaderBytes))
        webConfiguration.badRequestTargetResponse = APIProblem.response(APIProblem.badRequestTarget())
        webConfiguration.badContentLengthResponse = APIProblem.response(APIProblem.badContentLength())
        webConfiguration.badHeaderValueResponse = APIProblem.response(APIProblem.badHeaderValue())
        webConfiguration.transferEncodingResponder = { both in
            APIProblem.response(APIProblem.transferEncoding(withContentLength: both))
        }
        webConfiguration.unknownMethodResponse = APIProblem.response(APIProblem.methodNotImplemented())
        webConfiguration.unknownMethodResponder = { method, path in
            APIRouter.unknownMethodResponse(method: method, path: path)
        }
        webConfiguration.pipelinedRequestResponse = APIProblem.response(
            APIProblem.malformed(
                "another request was pipelined behind this one's body; nothing was done: send each after the previous answer"
            ))
        let server = WebServer(
            configuration: webConfiguration,
            handler: { request in await router.handle(request) },
            webSocketHandler: { [weak self] request, connection in
                self?.upgrade(request, connection) ?? .reject(APIProblem.response(APIProblem.unavailable()))
            })
        // Ring deadlines are rescheduled before the first request is served; those already past fire at once.
        try await service.resumeRingTimeouts()
        // Accepted calls are watched again from now; those past their maximum duration end at the first sweep.
        try await service.resumeAcceptedCalls()
        // The backstop for ring deadlines no timer of this server owns (another server died mid-ring).
        try await service.startRingSweep()
        cluster?.start()
        let port = try server.start()
        web.withLock { $0 = server }
        log.info("listening", ["http.address": .string("\(configuration.host):\(port)")])
        return port
    }

    /// Lets running requests finish (at most 5 s, refusing new ones), then stops timers, waits for the answers
    /// of pushes already sent (at most 5 s), sends every event
    /// socket the close 1001 Going Away (RFC 6455 §7.4.1) and waits for it to go out (at most
    /// ``WebServer/goingAwaySeconds``), and closes every connection and the listener. Idempotent.
    public func shutdown() async {
        // Requests already running finish (at most 5 s); new ones get 503 meanwhile.
        let unfinished = await router.inFlight.drain(timeout: 5)
        if unfinished > 0 {
            log.warning("shutting down with requests still running", ["http.requests": .string("\(unfinished)")])
        }
        service.shutdown()
        let unsent = await pushes.pending.drain(timeout: 5)
        if unsent > 0 {
            log.warning("shutting down with pushes still unanswered", ["push.pending": .string("\(unsent)")])
        }
        // The web server owns the goodbye of the sockets (their close frame, then their close); the hub hears
        // each socket close from its delegate.
        let server = web.withLock { server in
            defer { server = nil }
            return server
        }
        if let server {
            // Up to the bound of the graceful phase: waited for on a thread of its own, not the cooperative pool.
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    server.shutdown()
                    done.resume()
                }
            }
        }
        await cluster?.shutdown()
        fcmWatch?.shutdown()
        apns?.shutdown()
        fcm?.shutdown()
    }

    /// Whether a device of a user holds an event stream that live events reach (scenarios and tests wait
    /// for this before placing calls, so no event is published before the socket is subscribed).
    /// - Parameters:
    ///   - userID: the user.
    ///   - deviceID: the device id the stream named (`?device_id=`).
    /// - Returns: true when such a stream is subscribed.
    public func hasEventStream(userID: String, deviceID: String) async -> Bool {
        hub.isConnected(userID: userID, deviceID: deviceID)
    }

    /// How many event streams a user holds, whatever their devices (tests and diagnostics: one device id
    /// never holds more than one, since a newer socket replaces the older with 4001).
    /// - Parameter userID: the user.
    /// - Returns: the number of subscribed sockets.
    public func eventStreamCount(userID: String) async -> Int {
        hub.socketCount(userID: userID)
    }

    /// Decides a WebSocket upgrade for `/v1/events` (runs on the libwebsockets thread; no I/O).
    private func upgrade(_ request: HTTPRequest, _ connection: WebSocketConnection) -> WebSocketUpgrade {
        let user: Party
        do {
            // The header, or `?access_token=` for clients that cannot set one (browsers' WebSocket).
            user = try router.authenticate(request, token: request.bearerToken)
            try router.limits.admitEventStreamConnect(user: user.id)
        } catch let problem as Problem {
            return .reject(APIProblem.response(problem))
        } catch let limited as RateLimitExceeded {
            return .reject(limited.response)
        } catch {
            return .reject(APIProblem.response(APIProblem.unauthorized("the user token is not valid")))
        }
        var since: Int64?
        if let text = request.query["since"] {
            guard let value = Int64(text), value >= 0 else {
                return .reject(
                    APIProblem.response(APIProblem.invalidField("since must be a sequence number (0 or more)")))
            }
            since = value
        }
        let deviceID = request.query["device_id"]
        if let deviceID, !UserID.isValid(deviceID) {
            return .reject(APIProblem.response(APIProblem.invalidField("device_id is not a valid device id")))
        }
        let id = nextConnectionID.withLock { id -> UInt64 in
            id += 1
            return id
        }
        // Subscribed before the handshake completes, so the cap and "newest socket of a device wins"
        // are decided here, synchronously; the replay follows on a task.
        guard hub.admit(id: id, userID: user.id, deviceID: deviceID, sink: connection, since: since) == .admitted else {
            log.debug(
                "event stream refused: socket cap",
                [
                    "user.id": .string(user.id),
                    "ws.max_sockets_per_user": .string("\(hub.maxSocketsPerUser)"),
                ])
            return .reject(APIProblem.response(APIProblem.tooManySockets(limit: hub.maxSocketsPerUser)))
        }
        let session = EventSession(id: id, userID: user.id, hub: hub)
        let hub = self.hub
        let store = self.store
        Task {
            try? await store.upsertUser(id: user.id, name: user.name, at: Date())
            await hub.goLive(id: id, userID: user.id)
        }
        log.debug("event stream opened", ["user.id": .string(user.id), "device.id": .string(deviceID ?? "")])
        return .accept(session)
    }
}

extension WebSocketConnection: EventSink {}

/// The delegate of one `/v1/events` socket: the hub is the only reader of the server's events,
/// clients send nothing the server needs.
private final class EventSession: WebSocketDelegate {
    let id: UInt64
    let userID: String
    let hub: EventHub

    init(id: UInt64, userID: String, hub: EventHub) {
        self.id = id
        self.userID = userID
        self.hub = hub
    }

    func webSocket(_ connection: WebSocketConnection, didReceiveText text: String) {}

    func webSocketDidClose(_ connection: WebSocketConnection) {
        hub.disconnect(id: id, userID: userID)
    }
}
