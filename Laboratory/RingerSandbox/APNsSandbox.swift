public import Foundation
import HTTP2Server
import JWT
import RingerHTTP
public import RingerSupport

/// A local APNs: Apple's provider API over HTTP/2 + TLS (``HTTP2Server``: nghttp2 and OpenSSL), with Apple's checks and
/// answers, handing accepted pushes to the simulated devices registered with it.
///
/// Besides `POST /3/device/<token>`, a small control API serves tools in other processes:
/// `POST /sandbox/devices` `{"token","bundle_id"}`, `DELETE /sandbox/devices/<token>` (then 410
/// `Unregistered`), `POST /sandbox/keys` `{"key_id","team_id","public_key_pem"}`, `GET /sandbox/pushes[?since=N]`,
/// `GET /sandbox/stats`, and fault injection under `/sandbox/faults` (see `SandboxFaultControl`, and
/// `inject(_:)` and `clearFaults()` for the Swift side).
///
/// ```swift
/// let sandbox = APNsSandbox(configuration: .init(certificatePath: paths.serverCertificate,
///                                               privateKeyPath: paths.serverPrivateKey), logger: log)
/// try sandbox.addProviderKey(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", publicKeyPEM: pem)
/// sandbox.register(SandboxDevice(token: hex, bundleID: "com.example.app") { push in … })
/// let port = try sandbox.start()
/// ```
/// Thread-safe.
public final class APNsSandbox: Sendable {
    /// Where to listen and with which certificate.
    public struct Configuration: Sendable {
        /// Address to bind.
        public var host: String
        /// Port; 0 picks a free one.
        public var port: Int
        /// PEM server certificate (must be valid for the host clients use).
        public var certificatePath: String
        /// PEM private key of the certificate.
        public var privateKeyPath: String
        /// PEM CA file for provider client certificates (Apple: "Establishing a certificate-based connection
        /// to APNs"); nil accepts provider tokens only.
        ///
        /// When set, the TLS handshake asks for a client certificate and refuses one this CA did not sign; a
        /// client may still send none and use provider tokens. Requests on a certificate connection need no
        /// `authorization` header; their `apns-topic` must be the certificate's UID (the bundle id) or it
        /// with `.voip` or `.complication`, else 400 `TopicDisallowed`; a certificate without a UID, or past
        /// its end date by the sandbox's clock, gets 403 `BadCertificate`.
        public var clientCAPath: String?

        /// Creates a configuration.
        /// - Parameters:
        ///   - host: Address to bind.
        ///   - port: Port; 0 picks a free one.
        ///   - certificatePath: PEM server certificate.
        ///   - privateKeyPath: Its PEM private key.
        ///   - clientCAPath: PEM CA for client certificates; nil for provider tokens only.
        public init(
            host: String = "127.0.0.1", port: Int = 0, certificatePath: String, privateKeyPath: String,
            clientCAPath: String? = nil
        ) {
            self.host = host
            self.port = port
            self.certificatePath = certificatePath
            self.privateKeyPath = privateKeyPath
            self.clientCAPath = clientCAPath
        }
    }

    struct State {
        var keys: [String: APNsRequestValidator.ProviderKey] = [:]
        var devices: [String: SandboxDevice] = [:]
        var accepted: [SandboxPush] = []
        /// The latest push per offline device, kept until it expires (APNs stores one per app).
        var stored: [String: SandboxPush] = [:]
        /// Real seconds between accepting a push and handing it to the device, per token.
        var deliveryDelays: [String: TimeInterval] = [:]
        /// Accepted pushes still on their way to the device (a delivery delay has not run out).
        var deliveriesUnderway = 0
        /// Request faults, oldest first (see APNsSandbox+Faults.swift).
        var faults: [APNsSandboxFault] = []
        /// Connection faults in force, applied to the server at start and whenever they change.
        var connectionFaults = ConnectionFaults()
        /// Push requests that reached the handler (faulted ones included).
        var pushRequests = 0
        /// Provider tokens whose signature was verified, by token string; emptied when a key changes.
        var verifiedTokens: [String: APNsRequestValidator.VerifiedToken] = [:]
    }

    private let configuration: Configuration
    // Internal rather than private for the extension in APNsSandbox+Faults.swift.
    let state = LockedValue(State())
    let server = LockedValue<HTTP2Server?>(nil)
    private let validator = APNsRequestValidator()
    private let now: @Sendable () -> Date
    private let expiryNow: @Sendable () -> Date
    private let log: Logger

    /// Creates the sandbox; it listens on ``start()``.
    /// - Parameters:
    ///   - configuration: address and TLS files.
    ///   - now: the clock used for provider-token age, and for expiration unless `expiryNow` is given.
    ///   - expiryNow: the clock that decides whether a stored push expired (`apns-expiration`); scenarios
    ///     run it faster than real time while token ages stay real. Defaults to `now`.
    ///   - logger: receives one line per answered request (never the provider token).
    public init(
        configuration: Configuration, now: @escaping @Sendable () -> Date = { Date() },
        expiryNow: (@Sendable () -> Date)? = nil, logger: Logger
    ) {
        self.configuration = configuration
        self.now = now
        self.expiryNow = expiryNow ?? now
        log = logger
    }

    // MARK: Registry

    /// Trusts a provider key.
    /// - Parameter publicKeyPEM: the key's public half (`BEGIN PUBLIC KEY`) or the `.p8` itself.
    /// - Throws: `JWTError` when the PEM is not an EC key.
    public func addProviderKey(keyID: String, teamID: String, publicKeyPEM: String) throws {
        let key: JWTVerificationKey
        if publicKeyPEM.contains("PRIVATE KEY") {
            key = try JWTSigningKey(pem: publicKeyPEM).publicKey()
        } else {
            key = try JWTVerificationKey(publicKeyPEM: publicKeyPEM)
        }
        state.withLock { state in
            state.keys[keyID] = .init(keyID: keyID, teamID: teamID, publicKey: key)
            state.verifiedTokens = [:]
        }
    }

    /// Adds or replaces a device token.
    public func register(_ device: SandboxDevice) {
        state.withLock { $0.devices[device.token] = device }
    }

    /// Marks a token unregistered (app uninstalled): later pushes get 410 `Unregistered` with `at`.
    public func unregister(token: String, at date: Date) {
        state.withLock { $0.devices[token.lowercased()]?.unregisteredAt = date }
    }

    /// Switches a device on or off. Going online delivers the stored push if it has not expired
    /// (Apple: `apns-expiration`; 0 means the push was never stored).
    public func setOnline(token: String, _ online: Bool) {
        let due = state.withLock { state -> (SandboxPush, (@Sendable (SandboxPush) -> Void)?)? in
            let token = token.lowercased()
            state.devices[token]?.isOnline = online
            guard online, let push = state.stored.removeValue(forKey: token) else { return nil }
            return (push, state.devices[token]?.deliver)
        }
        guard let (push, deliver) = due else { return }
        if push.expiration > 0, Double(push.expiration) >= expiryNow().timeIntervalSince1970 { deliver?(push) }
    }

    /// Makes pushes to a device take time to arrive, as a slow network does: an accepted push reaches the
    /// device `seconds` later (or is stored, if the device went offline meanwhile).
    /// - Parameters:
    ///   - token: the device token (hex).
    ///   - seconds: real seconds; 0 delivers at once.
    public func setDeliveryDelay(token: String, _ seconds: TimeInterval) {
        state.withLock { $0.deliveryDelays[token.lowercased()] = max(0, seconds) }
    }

    /// Every push accepted so far, oldest first.
    public var acceptedPushes: [SandboxPush] { state.withLock { $0.accepted } }

    /// The pushes accepted after the first `count`, oldest first (`GET /sandbox/pushes?since=<count>`): a
    /// tool that polls while thousands arrive (`ringer-lab bench --only ringing`) reads only what is new, since
    /// the list only grows.
    /// - Parameter count: how many the caller has already read; below 0 counts as 0, past the end gives none.
    /// - Returns: the pushes from index `count` on.
    public func acceptedPushes(since count: Int) -> [SandboxPush] {
        state.withLock { state in Array(state.accepted[min(max(count, 0), state.accepted.count)...]) }
    }

    /// Accepted pushes still on their way to their device (see ``setDeliveryDelay(token:_:)``): a test
    /// that checks what reached the phones waits for 0.
    public var deliveriesUnderway: Int { state.withLock { $0.deliveriesUnderway } }

    // MARK: Server

    /// Starts listening (HTTP/2 over TLS).
    /// - Returns: the bound port.
    /// - Throws: `HTTP2ServerError` when the address, the certificate or the client CA cannot be used.
    @discardableResult
    public func start() throws -> Int {
        let web = HTTP2Server(
            configuration: .init(
                certificatePath: configuration.certificatePath,
                privateKeyPath: configuration.privateKeyPath, host: configuration.host,
                port: configuration.port, maxRequestBodyBytes: 64 * 1024,
                clientCAPath: configuration.clientCAPath),
            handler: { [weak self] request in
                await self?.handle(request) ?? HTTPResponse(status: 503)
            })
        let port = try web.start()
        server.withLock { $0 = web }
        applyConnectionFaults()
        return port
    }

    /// Stops listening. Idempotent.
    public func shutdown() {
        server.withLock { web in
            web?.shutdown()
            web = nil
        }
    }

    private func handle(_ request: HTTPRequest) async -> HTTPResponse {
        if request.path.hasPrefix("/sandbox/") { return SandboxControl.handle(request, sandbox: self) }
        if let faulted = await applyFault(to: request) { return faulted }
        let apnsID =
            request.headers["apns-id"].flatMap { UUID(uuidString: $0) != nil ? $0.lowercased() : nil }
            ?? UUID().uuidString.lowercased()
        let (keys, devices, verifiedTokens) = state.withLock { ($0.keys, $0.devices, $0.verifiedTokens) }
        let current = now()
        let accepted: APNsRequestValidator.Accepted
        do {
            // A provider token is reused for up to an hour (Apple), so its signature is verified once.
            accepted = try validator.validate(
                .init(
                    method: request.method, path: request.path, headers: request.headers,
                    body: request.body, clientCertificate: request.clientCertificate),
                keys: keys, device: { devices[$0] }, now: current,
                verified: { verifiedTokens[$0] },
                remember: { token, verified in
                    self.state.withLock { state in
                        // A bound, so a client minting a token per request cannot grow it.
                        if state.verifiedTokens.count >= 256 { state.verifiedTokens = [:] }
                        state.verifiedTokens[token] = verified
                    }
                })
        } catch let rejection as APNsRequestValidator.Rejection {
            log.info(
                "APNs sandbox rejected",
                [
                    "apns.id": .string(apnsID), "apns.status": .string("\(rejection.status)"),
                    "apns.reason": .string(rejection.reason),
                ])
            var body = ["reason": rejection.reason] as [String: Any]
            if let timestamp = rejection.timestamp { body["timestamp"] = timestamp }
            let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
            return HTTPResponse(
                status: rejection.status,
                headers: [
                    ("apns-id", apnsID),
                    ("content-type", "application/json"),
                    // As APNs, an origin server with a clock (RFC 9110 §6.6.1): `ringer doctor` reads it.
                    ("date", HTTPDate.now()),
                ],
                body: Array(data))
        } catch {
            return HTTPResponse(
                status: 500, headers: [("apns-id", apnsID)],
                body: Array(#"{"reason":"InternalServerError"}"#.utf8))
        }
        let push = SandboxPush(
            deviceToken: accepted.token, topic: accepted.topic, pushType: accepted.pushType,
            priority: accepted.priority, expiration: accepted.expiration, apnsID: apnsID,
            payload: Data(request.body), receivedAt: current)
        let delay = state.withLock { state -> TimeInterval in
            state.accepted.append(push)
            let delay = state.deliveryDelays[accepted.token] ?? 0
            if delay > 0 { state.deliveriesUnderway += 1 }
            return delay
        }
        log.info("APNs sandbox accepted", ["apns.id": .string(apnsID), "apns.push_type": .string(accepted.pushType)])
        if delay > 0 {
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(delay))
                guard let self else { return }
                let deliver = route(push)
                deliver?(push)
                state.withLock { $0.deliveriesUnderway -= 1 }
            }
        } else if let deliver = route(push) {
            Task { deliver(push) }
        }
        return HTTPResponse(status: 200, headers: [("apns-id", apnsID)], body: [])
    }

    /// The device's receiver when it is online; otherwise stores the push until it expires and returns nil.
    private func route(_ push: SandboxPush) -> (@Sendable (SandboxPush) -> Void)? {
        state.withLock { state in
            guard let device = state.devices[push.deviceToken] else { return nil }
            if device.isOnline { return device.deliver }
            if push.expiration > 0 { state.stored[push.deviceToken] = push }
            return nil
        }
    }
}
