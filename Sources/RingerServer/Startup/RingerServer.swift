import APNs
import CurlHTTP
import FCM
import Foundation
import LibWebSockets
import OpenSSLSupport
import RingerCore
public import RingerSupport
public import RingerStore
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
    /// Delivers the webhook outbox.
    private let webhookDispatcher: WebhookDispatcher
    /// Which push credentials serve which app.
    private let providers: PushProviderRegistry
    private let web: LockedValue<WebServer?>
    private let log: Logger
    /// The server's time; the only one it reads.
    private let clock: any ServerClock

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
        self.clock = clock
        // Every observation counts in `GET /metrics` before it reaches the caller's observer.
        let metrics = ServerMetrics()
        let observe: @Sendable (ServerObservation) -> Void = { observation in
            metrics.record(observation)
            observe(observation)
        }
        // New at every start, so what a killed predecessor of the same name left is never taken for this one's.
        let incarnation = "\(configuration.nodeID)/\(clock.now().unixMilliseconds)"
        self.incarnation = incarnation
        let store = try store ?? Self.openStore(configuration)
        self.store = store
        store.observeOperations { metrics.storeOperation(seconds: $0) }
        apns = try configuration.apns.map { settings in
            let authentication = try Self.authentication(settings.credentials)
            if case .certificate(let certificate) = authentication {
                let metadata: Logger.Metadata = [
                    "apns.certificate.subject": .string(certificate.subject),
                    "apns.certificate.not_after": .string(certificate.notAfter.description),
                ]
                if certificate.notAfter.timeIntervalSince(clock.now()) < 30 * 24 * 3600 {
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
            clock: clock)
        let tokens = try UserTokens(
            secret: configuration.userTokenSecret,
            publicKeys: UserTokens.publicKeys(files: configuration.userTokenPublicKeyFiles))
        let pushHealth = PushSetupHealth(log: logger)
        let limits = RateLimits(
            settings: configuration.rateLimits,
            trustedProxies: configuration.trustedProxies, clock: clock)
        fcmWatch = fcm.map { FCMCredentialWatch(client: $0, health: pushHealth, clock: clock, log: logger) }
        let delivery = PushDelivery(store: store, health: pushHealth, clock: clock, log: logger, observe: observe)
        let secrets = configuration.secretsKeys.isEmpty ? nil : try SecretBox(keys: configuration.secretsKeys)
        // The push providers added through the API reach APNs and FCM where the flags say (Apple's and Google's).
        let providers = PushProviderRegistry(
            store: store, secrets: secrets, hosts: .init(configuration: configuration), defaultAPNs: apns,
            defaultFCM: fcm, log: logger)
        self.providers = providers
        let pushes = PushDispatcher(providers: providers, delivery: delivery, clock: clock)
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
            maxCalleesPerCall: configuration.maxCalleesPerCall, callWaiting: configuration.callWaiting,
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
        webhookDispatcher = WebhookDispatcher(
            store: store, client: CurlClient(), secrets: secrets, clock: clock, log: logger, node: incarnation,
            timeout: configuration.webhookTimeout, allowPrivateAddresses: configuration.webhookAllowPrivateAddresses,
            observe: observe)
        router = APIRouter(
            service: service,
            devices: DeviceRegistry(store: store, fcmProjects: { [providers] in providers.fcmProjects }),
            store: store, tokens: tokens,
            adminKey: configuration.adminKey, maxUserTokenTTL: configuration.maxUserTokenTTL,
            clock: clock, log: logger, pushHealth: pushHealth,
            mediaUsesDevelopmentKey: configuration.media.usesDevelopmentKey, limits: limits,
            events: EventStreamEndpoint(hub: hub, store: store, limits: limits, clock: clock, log: logger),
            webhooks: WebhookEndpoints(
                store: store, clock: clock, log: logger,
                secrets: secrets,
                allowHTTP: configuration.webhookAllowHTTP,
                allowPrivateAddresses: configuration.webhookAllowPrivateAddresses),
            pushProviders: PushProviderAdmin(
                store: store, clock: clock, log: logger, secrets: secrets, flagProjects: fcm?.projectIDs ?? [],
                changed: { [providers] in await providers.reload() }),
            metrics: metrics, metricsToken: configuration.metricsToken,
            openSockets: { [hub] in hub.totalSockets() })
        web = LockedValue(nil)
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
            try await store.checkWritable(at: clock.now())
        } catch {
            throw ConfigurationError(
                PostgresTarget.isPostgresURL(configuration.databasePath)
                    ? "--database (RINGER_DATABASE): the PostgreSQL database \(configuration.databaseDescription) cannot be written "
                        + "(\(error)); check that it is a primary, not a read-only standby, and that the user may write"
                    : "the database \(configuration.databasePath) cannot be written (\(error)); "
                        + "check the file's permissions, the disk's free space and the path")
        }
        try await fcmWatch?.checkAtStart()
        // The push providers added through the API, before the first push.
        await providers.start()
        let router = self.router
        let server = WebServer(
            configuration: Self.webConfiguration(configuration),
            handler: { request in await router.handle(request) },
            webSocketHandler: { request, connection in router.upgrade(request, connection) })
        // Ring deadlines are rescheduled before the first request is served; those already past fire at once.
        try await service.resumeRingTimeouts()
        // Accepted calls are watched again from now; those past their maximum duration end at the first sweep.
        try await service.resumeAcceptedCalls()
        // The backstop for ring deadlines no timer of this server owns (another server died mid-ring).
        try await service.startRingSweep()
        // After the first heartbeat: a claim of this server's must never look like a dead server's. A server that keeps
        // no secrets key cannot sign, so it leaves every delivery to the servers that can.
        if !configuration.secretsKeys.isEmpty { webhookDispatcher.start() }
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
        webhookDispatcher.shutdown()
        providers.shutdown()
        let unsent = await pushes.pending.drain(timeout: 5)
        if unsent > 0 {
            log.warning("shutting down with pushes still unanswered", ["push.pending": .string("\(unsent)")])
        }
        // Their outcomes were handed to the store without waiting: each is on disk before the server goes.
        let unrecorded = await pushes.drainRecords(timeout: 2)
        if unrecorded > 0 {
            log.warning(
                "shutting down with push outcomes not yet stored", ["push.unrecorded": .string("\(unrecorded)")])
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
}
