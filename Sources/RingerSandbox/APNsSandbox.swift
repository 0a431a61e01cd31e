public import Foundation
import JWT
import HTTPTypes
import HTTP2Server
public import RingerLogging
import RingerSync

/// A local APNs: Apple's provider API over HTTP/2 + TLS (``HTTP2Server``: nghttp2 and OpenSSL), with Apple's checks and
/// answers, handing accepted pushes to the simulated devices registered with it.
///
/// Besides `POST /3/device/<token>`, a small control API serves tools in other processes:
/// `POST /sandbox/devices` `{"token","bundle_id"}`, `DELETE /sandbox/devices/<token>` (then 410
/// `Unregistered`), `POST /sandbox/keys` `{"key_id","team_id","public_key_pem"}`, `GET /sandbox/pushes`.
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

        /// Creates a configuration.
        public init(host: String = "127.0.0.1", port: Int = 0, certificatePath: String, privateKeyPath: String) {
            self.host = host
            self.port = port
            self.certificatePath = certificatePath
            self.privateKeyPath = privateKeyPath
        }
    }

    private struct State {
        var keys: [String: APNsRequestValidator.ProviderKey] = [:]
        var devices: [String: SandboxDevice] = [:]
        var accepted: [SandboxPush] = []
        /// The latest push per offline device, kept until it expires (APNs stores one per app).
        var stored: [String: SandboxPush] = [:]
    }

    private let configuration: Configuration
    private let state = LockedValue(State())
    private let server = LockedValue<HTTP2Server?>(nil)
    private let validator = APNsRequestValidator()
    private let now: @Sendable () -> Date
    private let log: Logger

    /// Creates the sandbox; it listens on ``start()``.
    /// - Parameters:
    ///   - configuration: address and TLS files.
    ///   - now: the clock used for token age and expiration (injectable).
    ///   - logger: receives one line per answered request (never the provider token).
    public init(configuration: Configuration, now: @escaping @Sendable () -> Date = { Date() }, logger: Logger) {
        self.configuration = configuration
        self.now = now
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
        state.withLock { $0.keys[keyID] = .init(keyID: keyID, teamID: teamID, publicKey: key) }
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
        if push.expiration > 0, Double(push.expiration) >= now().timeIntervalSince1970 { deliver?(push) }
    }

    /// Every push accepted so far, oldest first.
    public var acceptedPushes: [SandboxPush] { state.withLock { $0.accepted } }

    // MARK: Server

    /// Starts listening (HTTP/2 over TLS).
    /// - Returns: the bound port.
    /// - Throws: `WebServerError` when the address or certificate cannot be used.
    @discardableResult
    public func start() throws -> Int {
        let web = HTTP2Server(
            configuration: .init(certificatePath: configuration.certificatePath,
                                 privateKeyPath: configuration.privateKeyPath, host: configuration.host,
                                 port: configuration.port, maxRequestBodyBytes: 64 * 1024),
            handler: { [weak self] request in
                self?.handle(request) ?? HTTPResponse(status: 503)
            })
        let port = try web.start()
        server.withLock { $0 = web }
        return port
    }

    /// Stops listening. Idempotent.
    public func shutdown() {
        server.withLock { web in
            web?.shutdown()
            web = nil
        }
    }

    private func handle(_ request: HTTPRequest) -> HTTPResponse {
        if request.path.hasPrefix("/sandbox/") { return SandboxControl.handle(request, sandbox: self) }
        let apnsID = request.headers["apns-id"].flatMap { UUID(uuidString: $0) != nil ? $0.lowercased() : nil }
            ?? UUID().uuidString.lowercased()
        let (keys, devices) = state.withLock { ($0.keys, $0.devices) }
        let current = now()
        let accepted: APNsRequestValidator.Accepted
        do {
            accepted = try validator.validate(.init(method: request.method, path: request.path, headers: request.headers,
                                                    body: request.body),
                                              keys: keys, device: { devices[$0] }, now: current)
        } catch let rejection as APNsRequestValidator.Rejection {
            log.info("APNs sandbox rejected", ["apns.id": .string(apnsID), "apns.status": .string("\(rejection.status)"),
                                               "apns.reason": .string(rejection.reason)])
            var body = ["reason": rejection.reason] as [String: Any]
            if let timestamp = rejection.timestamp { body["timestamp"] = timestamp }
            let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
            return HTTPResponse(status: rejection.status,
                                headers: [("apns-id", apnsID),
                                          ("content-type", "application/json")],
                                body: Array(data))
        } catch {
            return HTTPResponse(status: 500, headers: [("apns-id", apnsID)],
                                body: Array(#"{"reason":"InternalServerError"}"#.utf8))
        }
        let push = SandboxPush(deviceToken: accepted.token, topic: accepted.topic, pushType: accepted.pushType,
                               priority: accepted.priority, expiration: accepted.expiration, apnsID: apnsID,
                               payload: Data(request.body), receivedAt: current)
        let deliver = state.withLock { state -> (@Sendable (SandboxPush) -> Void)? in
            state.accepted.append(push)
            guard let device = state.devices[accepted.token] else { return nil }
            if device.isOnline { return device.deliver }
            if push.expiration > 0 { state.stored[accepted.token] = push }
            return nil
        }
        log.info("APNs sandbox accepted", ["apns.id": .string(apnsID), "apns.push_type": .string(accepted.pushType)])
        if let deliver { Task { deliver(push) } }
        return HTTPResponse(status: 200, headers: [("apns-id", apnsID)], body: [])
    }
}
