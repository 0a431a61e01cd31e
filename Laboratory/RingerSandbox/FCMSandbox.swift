public import Foundation
import HTTP2Server
import LibWebSockets
import RingerHTTP
public import RingerSupport

/// A local Firebase Cloud Messaging: Google's OAuth 2.0 token endpoint for service accounts and FCM HTTP v1
/// `messages:send`, with Google's checks and answers, delivering accepted messages to Android phones (the phone
/// host's Play services over ``FCMSandboxSocket``, or an in-process ``FCMSandboxDevice``) by FCM's rules for Doze,
/// offline phones, `ttl`, collapse keys and high-priority demotion. It is written from Google's documentation alone,
/// independent of Ringer's FCM client, so that it can check it.
///
/// It listens on two TLS ports with the same routes behind both:
/// - HTTP/2 (``HTTP2Server``, nghttp2): for HTTP/2 clients such as Ringer's, with concurrent streams.
/// - HTTP/1.1 (libwebsockets' `WebServer`, which also offers its own HTTP/2 through ALPN): for HTTP/1.1
///   clients such as google-auth's token refresh and firebase-admin's synchronous sends, and the phones'
///   WebSocket. Point a service account's `token_uri` here. libwebsockets' HTTP/2 cannot carry concurrent
///   requests with bodies on one connection, so HTTP/2 clients should use the HTTP/2 port.
///
/// Routes (docs/fcm.md, "The FCM sandbox" has them in full):
/// - `POST /token`: the JWT grant (RFC 7523) of an account added with ``addServiceAccount(_:)``.
/// - `POST /v1/projects/{project}/messages:send`: see ``FCMRequestValidator``.
/// - `/sandbox/…`: control routes for tools in other processes (see ``FCMSandboxControl``) and, on the
///   HTTP/1.1 port, the phones' WebSocket `GET /sandbox/connect?token=…` (see ``FCMSandboxSocket``).
///
/// ```swift
/// let sandbox = FCMSandbox(configuration: .init(certificatePath: paths.serverCertificate.path,
///                                               privateKeyPath: paths.serverPrivateKey.path), logger: log)
/// try sandbox.addServiceAccount(FCMSandboxServiceAccount(serviceAccountJSON: file))
/// sandbox.register(FCMSandboxDevice(token: token, projectID: "ringer-dev") { message in … return .userVisible })
/// let ports = try sandbox.start()
/// ```
/// Thread-safe.
public final class FCMSandbox: Sendable {
    /// Where to listen, with which certificate, and the numbers of the delivery rules.
    public struct Configuration: Sendable {
        /// Address to bind (both ports).
        public var host: String
        /// The HTTP/2 port; 0 picks a free one.
        public var port: Int
        /// The HTTP/1.1 (and WebSocket) port; 0 picks a free one, nil serves none.
        public var http1Port: Int?
        /// PEM server certificate (must be valid for the host clients use).
        public var certificatePath: String
        /// PEM private key of the certificate.
        public var privateKeyPath: String
        /// HIGH messages that showed the user nothing after which an app is demoted (Google publishes no
        /// number; default 5). See ``FCMDeliveryQueue``.
        public var demotionThreshold: Int = 5
        /// Seconds (expiry clock) within which those misuses must fall, and how long a demotion lasts
        /// (default 3600).
        public var demotionWindow: TimeInterval = 3600
        /// Messages stored for one device beyond which FCM discards all of them (Google: 100).
        public var storedMessageLimit: Int = 100
        /// Seconds a phone on the WebSocket has to acknowledge a message before it counts as
        /// `notDelivered` (default 30).
        public var acknowledgementTimeout: TimeInterval = 30
        /// Seconds libwebsockets lets one HTTP/1.1 request run, a never-answered one included (default 300).
        public var http1RequestTimeout: Int = 300

        /// Creates a configuration.
        /// - Parameters:
        ///   - host: Address to bind.
        ///   - port: HTTP/2 port; 0 picks a free one.
        ///   - http1Port: HTTP/1.1 port; 0 picks a free one, nil for none.
        ///   - certificatePath: PEM server certificate.
        ///   - privateKeyPath: Its PEM private key.
        public init(
            host: String = "127.0.0.1", port: Int = 0, http1Port: Int? = 0, certificatePath: String,
            privateKeyPath: String
        ) {
            self.host = host
            self.port = port
            self.http1Port = http1Port
            self.certificatePath = certificatePath
            self.privateKeyPath = privateKeyPath
        }
    }

    /// The bound ports.
    public struct Ports: Sendable, Hashable {
        /// The HTTP/2 port.
        public var http2: Int
        /// The HTTP/1.1 port, nil when not served.
        public var http1: Int?
    }

    /// Which server a request came through.
    enum Listener: Sendable {
        case http2, http1
    }

    struct State {
        var accounts: [FCMSandboxServiceAccount] = []
        var tokens = FCMAccessTokens()
        /// The token URLs this sandbox answers to, accepted as a grant's `aud`.
        var audiences: Set<String> = []
        var devices: [String: FCMSandboxDevice] = [:]
        var queue: FCMDeliveryQueue
        var accepted: [FCMSandboxMessage] = []
        /// Deliveries to each token run one after another, in order: the last one queued per token.
        var deliveryChains: [String: Task<Void, Never>] = [:]
        var deliveriesUnderway = 0
        /// The phone connected over the WebSocket, per token.
        var sockets: [String: FCMSandboxSocket] = [:]
        /// Request faults, oldest first (see FCMSandbox+Faults.swift).
        var faults: [FCMSandboxFault] = []
        var statistics = FCMSandboxStatistics()
        var isRunning = false
        var ports: Ports?
    }

    let configuration: Configuration
    // Internal rather than private for the extensions and FCMSandboxControl.
    let state: LockedValue<State>
    private let http2Server = LockedValue<HTTP2Server?>(nil)
    private let http1Server = LockedValue<WebServer?>(nil)
    private let validator = FCMRequestValidator()
    private let grantValidator = FCMTokenGrantValidator()
    let now: @Sendable () -> Date
    let expiryNow: @Sendable () -> Date
    let log: Logger

    /// Creates the sandbox; it listens on ``start()``.
    /// - Parameters:
    ///   - configuration: addresses, TLS files and rule numbers.
    ///   - now: the clock of grants and access tokens (real time: a scenario's clock must not age them).
    ///   - expiryNow: the clock of message `ttl`, stored messages and demotion windows (scenario time, which
    ///     may run faster). Defaults to `now`.
    ///   - logger: one line per answered request; never an access token, a key or a registration token.
    public init(
        configuration: Configuration, now: @escaping @Sendable () -> Date = { Date() },
        expiryNow: (@Sendable () -> Date)? = nil, logger: Logger
    ) {
        self.configuration = configuration
        self.now = now
        self.expiryNow = expiryNow ?? now
        log = logger
        let rules = FCMDeliveryQueue.Rules(
            demotionThreshold: max(configuration.demotionThreshold, 1),
            demotionWindow: max(configuration.demotionWindow, 0),
            storedMessageLimit: max(configuration.storedMessageLimit, 1))
        state = LockedValue(State(queue: FCMDeliveryQueue(rules: rules)))
    }

    // MARK: Service accounts

    /// Trusts a service account's key: its grants get access tokens for its projects.
    /// Replaces an entry with the same email and key id.
    public func addServiceAccount(_ account: FCMSandboxServiceAccount) {
        state.withLock { state in
            state.accounts.removeAll { $0.clientEmail == account.clientEmail && $0.keyID == account.keyID }
            state.accounts.append(account)
        }
    }

    /// Trusts the account of a service-account JSON file.
    /// - Parameter json: the file's bytes.
    /// - Throws: ``FCMSandboxError`` naming what is wrong with the file.
    public func addServiceAccount(json: Data) throws {
        addServiceAccount(try FCMSandboxServiceAccount(serviceAccountJSON: json))
    }

    /// Forgets every access token issued: later sends with them get 401 `UNAUTHENTICATED`, and clients
    /// must make a new grant (as after Google revoked them).
    public func revokeAccessTokens() {
        state.withLock { $0.tokens.revokeAll() }
    }

    /// The token URL to put in a service account's `token_uri`: the HTTP/1.1 port if served, else the HTTP/2
    /// one, at `localhost` (the name the sandbox's certificates carry). Nil before ``start()``.
    public var tokenURI: String? {
        state.withLock { state in
            state.ports.map { "https://localhost:\($0.http1 ?? $0.http2)/token" }
        }
    }

    /// The bound ports while running.
    public var ports: Ports? { state.withLock { $0.ports } }

    // MARK: Devices

    /// Adds or replaces a registration token. Messages stored for it are delivered if its reachability lets
    /// them through.
    public func register(_ device: FCMSandboxDevice) {
        let now = expiryNow()
        state.withLock { state in
            state.devices[device.token] = device
            let due = state.queue.release(token: device.token, reachability: device.reachability, now: now)
            hand(due, to: device.token, in: &state, now: now)
        }
    }

    /// Says how the phone can be reached: going online delivers what is stored; entering Doze holds NORMAL
    /// messages; leaving Doze delivers them; coming back online while dozing delivers the HIGH ones.
    /// Unknown tokens are ignored.
    public func setReachability(token: String, _ reachability: FCMSandboxDevice.Reachability) {
        let now = expiryNow()
        state.withLock { state in
            guard state.devices[token] != nil else { return }
            state.devices[token]?.reachability = reachability
            let due = state.queue.release(token: token, reachability: reachability, now: now)
            hand(due, to: token, in: &state, now: now)
        }
    }

    /// Marks a token deleted (app uninstalled, `deleteToken`): later sends get 404 `UNREGISTERED`, and what
    /// FCM stored for it is discarded.
    public func unregister(token: String, at date: Date) {
        state.withLock { state in
            guard state.devices[token] != nil else { return }
            state.devices[token]?.unregisteredAt = date
            state.queue.discard(token: token)
        }
    }

    /// How a phone can be reached now, as FCM sees it (a WebSocket phone is offline while disconnected);
    /// nil for an unknown token.
    public func reachability(token: String) -> FCMSandboxDevice.Reachability? {
        state.withLock { $0.devices[token]?.reachability }
    }

    /// Whether a registration token is known (deleted ones included).
    func hasDevice(token: String) -> Bool {
        state.withLock { $0.devices[token] != nil }
    }

    /// Opens a Doze maintenance window: dozing phones take every stored message that has not expired.
    /// - Parameter token: only this phone (if dozing); nil for every dozing phone.
    /// - Returns: how many messages were handed over.
    @discardableResult
    public func runMaintenanceWindow(token: String? = nil) -> Int {
        let now = expiryNow()
        return state.withLock { state in
            var count = 0
            for (candidate, device) in state.devices
            where device.reachability == .dozing && (token == nil || token == candidate) {
                let due = state.queue.maintenanceWindow(token: candidate, now: now)
                count += due.count
                hand(due, to: candidate, in: &state, now: now)
            }
            return count
        }
    }

    // MARK: What happened

    /// Every message accepted for a registration token so far, oldest first (`validate_only`, topic and
    /// condition sends are not recorded).
    public var acceptedMessages: [FCMSandboxMessage] { state.withLock { $0.accepted } }

    /// The accepted messages after the first `count` (a poller's read position), oldest first.
    public func acceptedMessages(since count: Int) -> [FCMSandboxMessage] {
        state.withLock { state in Array(state.accepted[min(max(count, 0), state.accepted.count)...]) }
    }

    /// Where a message is, by its name; nil for a name the sandbox never answered.
    public func deliveryState(ofMessage name: String) -> FCMSandboxDeliveryState? {
        let now = expiryNow()
        return state.withLock { state in
            state.queue.expire(now: now)
            return state.queue.states[name]
        }
    }

    /// Messages stored for a phone (offline, or NORMAL while dozing), oldest first; expired ones are dropped.
    public func storedMessages(token: String) -> [FCMSandboxMessage] {
        let now = expiryNow()
        return state.withLock { state in
            state.queue.expire(now: now)
            return state.queue.storedMessages(token: token)
        }
    }

    /// Whether an app's HIGH messages are delivered as NORMAL now (see ``Configuration/demotionThreshold``).
    public func isDemoted(projectID: String, packageName: String) -> Bool {
        let now = expiryNow()
        return state.withLock { $0.queue.isDemoted(.init(projectID: projectID, packageName: packageName), now: now) }
    }

    /// Messages handed to a phone whose receipt has not come back: a test that checks what reached the phones
    /// waits for 0.
    public var deliveriesUnderway: Int { state.withLock { $0.deliveriesUnderway } }

    /// What the sandbox counted since it was created.
    public var statistics: FCMSandboxStatistics {
        let connections = http2Server.withLock { $0?.statistics.connectionsAccepted } ?? 0
        let now = expiryNow()
        return state.withLock { state in
            state.queue.expire(now: now)
            var statistics = state.statistics
            statistics.http2Connections = connections
            statistics.acceptedMessages = state.accepted.count
            statistics.count(state.queue.states.values)
            return statistics
        }
    }

    // MARK: Server

    /// Starts listening on both ports (TLS).
    /// - Returns: the bound ports.
    /// - Throws: `HTTP2ServerError` or `LibWebSocketsError` when an address or the certificate cannot be used.
    @discardableResult
    public func start() throws -> Ports {
        let http2 = HTTP2Server(
            configuration: .init(
                certificatePath: configuration.certificatePath, privateKeyPath: configuration.privateKeyPath,
                host: configuration.host, port: configuration.port, maxRequestBodyBytes: 64 * 1024),
            handler: { [weak self] request in await self?.handle(request, via: .http2) ?? HTTPResponse(status: 503) })
        let http2Port = try http2.start()
        var http1: WebServer?
        var http1Port: Int?
        if let port = configuration.http1Port {
            var web = WebServer.Configuration(
                host: configuration.host, port: port,
                tls: .init(
                    certificatePath: configuration.certificatePath, privateKeyPath: configuration.privateKeyPath),
                maxRequestBodyBytes: 64 * 1024, webSocketPaths: [FCMSandboxSocket.path],
                requestTimeoutSeconds: min(max(configuration.http1RequestTimeout, 1), 3600))
            web.webSocketPingSeconds = 20
            let server = WebServer(
                configuration: web,
                handler: { [weak self] request in await self?.handle(request, via: .http1) ?? HTTPResponse(status: 503)
                },
                webSocketHandler: { [weak self] request, connection in
                    self?.upgrade(request, connection) ?? .reject(status: 503)
                })
            do {
                http1Port = try server.start()
            } catch {
                http2.shutdown()
                throw error
            }
            http1 = server
        }
        http2Server.withLock { $0 = http2 }
        http1Server.withLock { $0 = http1 }
        let ports = Ports(http2: http2Port, http1: http1Port)
        let hosts = Set([configuration.host, "localhost", "127.0.0.1"])
        let audiences = Set(
            hosts.flatMap { host in [http2Port, http1Port].compactMap { $0 }.map { "https://\(host):\($0)/token" } })
        state.withLock { state in
            state.ports = ports
            state.audiences = audiences
            state.isRunning = true
        }
        return ports
    }

    /// Stops listening and closes the phones' sockets. Idempotent.
    public func shutdown() {
        state.withLock { $0.isRunning = false }
        http2Server.withLock { server in
            server?.shutdown()
            server = nil
        }
        http1Server.withLock { server in
            server?.shutdown()
            server = nil
        }
    }

    private func handle(_ request: HTTPRequest, via listener: Listener) async -> HTTPResponse {
        if request.path.hasPrefix("/sandbox/") { return FCMSandboxControl.handle(request, sandbox: self) }
        if request.path == "/token" { return await grant(request, via: listener) }
        return await send(request, via: listener)
    }

    /// `POST /token`.
    private func grant(_ request: HTTPRequest, via listener: Listener) async -> HTTPResponse {
        state.withLock { $0.statistics.tokenRequests += 1 }
        if let faulted = await applyFault(endpoint: .token, token: nil, via: listener) { return faulted }
        let (accounts, audiences) = state.withLock { ($0.accounts, $0.audiences) }
        let current = now()
        let json = [("content-type", "application/json; charset=utf-8"), ("cache-control", "no-store")]
        do {
            let grant = try grantValidator.validate(
                method: request.method, body: request.body, accounts: accounts,
                audiences: audiences, now: current)
            let assertion = FCMTokenGrantValidator.formFields(request.body)["assertion"] ?? ""
            let (token, expiresIn) = state.withLock { state in
                state.statistics.accessTokensIssued += 1
                return state.tokens.issue(grant, assertion: assertion, now: current)
            }
            log.info("FCM sandbox granted an access token", ["fcm.client_email": .string(grant.clientEmail)])
            let body: [String: Any] = ["access_token": token, "expires_in": expiresIn, "token_type": "Bearer"]
            let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
            return HTTPResponse(status: 200, headers: json, body: Array(data))
        } catch {
            log.info(
                "FCM sandbox refused a grant",
                [
                    "oauth.error": .string(error.error),
                    "oauth.error_description": .string(error.description),
                ])
            return HTTPResponse(status: error.status, headers: json, body: error.body)
        }
    }

    /// `POST /v1/projects/{project}/messages:send`.
    private func send(_ request: HTTPRequest, via listener: Listener) async -> HTTPResponse {
        state.withLock { $0.statistics.sendRequests += 1 }
        let target = Self.registrationToken(in: request.body)
        if let faulted = await applyFault(endpoint: .send, token: target, via: listener) { return faulted }
        let current = now()
        let (tokens, devices) = state.withLock { ($0.tokens, $0.devices) }
        let accepted: FCMRequestValidator.Accepted
        do {
            accepted = try validator.validate(
                .init(
                    method: request.method, path: request.path, headers: request.headers,
                    body: request.body),
                accessToken: { tokens.lookup($0, now: current) }, device: { devices[$0] },
                now: current)
        } catch {
            log.info(
                "FCM sandbox rejected", ["fcm.status": .string(error.status), "fcm.error_code": .string(error.code)])
            return Self.response(error)
        }
        let project = accepted.projectID
        guard !accepted.validateOnly else {
            // Google answers a dry run with this placeholder name.
            return Self.named("projects/\(project)/messages/fake_message_id")
        }
        let name = "projects/\(project)/messages/\(Self.messageID(at: current))"
        guard case .token(let token) = accepted.target else {
            state.withLock { $0.statistics.topicMessages += 1 }
            log.info("FCM sandbox accepted a topic or condition message", ["fcm.message": .string(name)])
            return Self.named(name)
        }
        let scenarioNow = expiryNow()
        let priority = state.withLock { state -> FCMSandboxMessage.Priority in
            guard let device = state.devices[token] else { return accepted.priority }
            let app = FCMDeliveryQueue.App(projectID: device.projectID, packageName: device.packageName)
            let priority = state.queue.deliveryPriority(accepted.priority, app: app, now: scenarioNow)
            let message = FCMSandboxMessage(
                name: name, projectID: project, token: token, data: accepted.data,
                notification: accepted.notification, requestedPriority: accepted.priority,
                priority: priority, ttl: accepted.ttl, collapseKey: accepted.collapseKey,
                acceptedAt: scenarioNow)
            state.accepted.append(message)
            if priority != accepted.priority { state.statistics.demotedMessages += 1 }
            let due = state.queue.accept(message, reachability: device.reachability, now: scenarioNow)
            hand(due, to: token, in: &state, now: scenarioNow)
            return priority
        }
        log.info("FCM sandbox accepted", ["fcm.message": .string(name), "fcm.priority": .string(priority.rawValue)])
        return Self.named(name)
    }

    /// Starts delivering `messages` to the token's phone, after any delivery to it still running, and
    /// records each receipt; a device without a receiver gets them recorded at once.
    func hand(_ messages: [FCMSandboxMessage], to token: String, in state: inout State, now: Date) {
        guard !messages.isEmpty, let device = state.devices[token] else { return }
        let app = FCMDeliveryQueue.App(projectID: device.projectID, packageName: device.packageName)
        guard let deliver = device.deliver else {
            for message in messages { state.queue.record(nil, for: message, app: app, now: now) }
            return
        }
        state.deliveriesUnderway += messages.count
        let previous = state.deliveryChains[token]
        state.deliveryChains[token] = Task { [weak self] in
            await previous?.value
            for message in messages {
                let receipt = await deliver(message)
                self?.record(receipt, for: message, app: app)
            }
        }
    }

    private func record(_ receipt: FCMSandboxReceipt, for message: FCMSandboxMessage, app: FCMDeliveryQueue.App) {
        let now = expiryNow()
        state.withLock { state in
            state.deliveriesUnderway -= 1
            guard receipt == .connectionLost else {
                state.queue.record(receipt, for: message, app: app, now: now)
                return
            }
            // FCM keeps a message the phone never acknowledged and delivers it once the phone is back; it may be
            // back already, on a newer socket. Only an open socket is handed it: the closed one answers at once, and
            // until its close is seen, handing it again would spin.
            state.queue.storeAgain(message, now: now)
            if state.sockets[message.token]?.connection.isOpen == true, let device = state.devices[message.token],
                device.deliver != nil
            {
                let due = state.queue.release(token: message.token, reachability: device.reachability, now: now)
                hand(due, to: message.token, in: &state, now: now)
            }
        }
    }

    /// The `message.token` of a send body, for matching faults before the body is checked.
    private static func registrationToken(in body: [UInt8]) -> String? {
        guard let root = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let message = root["message"] as? [String: Any]
        else { return nil }
        return message["token"] as? String ?? message["fid"] as? String
    }

    /// A message id shaped like FCM's (`0:<microseconds>%<16 hex digits>`).
    private static func messageID(at date: Date) -> String {
        let micros = Int64(date.timeIntervalSince1970 * 1_000_000)
        return "0:\(micros)%" + String(format: "%016llx", UInt64.random(in: .min ... .max))
    }

    private static func named(_ name: String) -> HTTPResponse {
        let data =
            (try? JSONSerialization.data(withJSONObject: ["name": name], options: [.withoutEscapingSlashes])) ?? Data()
        return HTTPResponse(
            status: 200, headers: [("content-type", "application/json; charset=UTF-8")], body: Array(data))
    }

    /// Google's error answer: the rejection's status and body, and `Retry-After` when given.
    static func response(_ rejection: FCMSandboxRejection, retryAfter: Int? = nil) -> HTTPResponse {
        var headers = [("content-type", "application/json; charset=UTF-8")]
        if let retryAfter { headers.append(("retry-after", String(retryAfter))) }
        return HTTPResponse(status: rejection.httpStatus, headers: headers, body: rejection.body)
    }
}
