public import Foundation
public import HTTP2Client
import JWT
import RingerHTTP
public import RingerWire

/// Sends notifications to Apple's provider API over HTTP/2 (Apple: "Sending notification requests to APNs").
///
/// Each APNs host (sandbox, production) gets its own small pool of long-lived HTTP/2 connections, each
/// driven by its own ``HTTP2Client`` (nghttp2 + OpenSSL loop and thread), created on first use and sharing
/// nothing mutable with the other host. A push goes to the first connection with a free stream, else to the
/// one with the fewest in flight (``HTTP2ClientPool``); requests multiplex as streams up to the server's
/// SETTINGS_MAX_CONCURRENT_STREAMS (APNs lowers and raises it as it likes).
/// Every request has a deadline; a push whose connection fails is resent once, with the same `apns-id`,
/// on another connection, and reconnects to a failing host back off. Authentication is a provider token
/// (one shared ``APNsProviderToken``) or a TLS client certificate (``APNsCertificate``), chosen in
/// ``Configuration/authentication``.
/// Thread-safe; call ``shutdown()`` before dropping the client.
public final class APNsClient: Sendable {
    /// How requests prove they come from the app's provider (Apple: "Establishing a token-based
    /// connection to APNs" / "Establishing a certificate-based connection to APNs").
    public enum Authentication: Sendable {
        /// A `.p8` signing key: every request carries `authorization: bearer <provider token>`.
        case providerToken(APNsProviderToken.Credentials)
        /// A client certificate presented in the TLS handshake; requests carry no `authorization`.
        case certificate(APNsCertificate)
    }

    /// Where and how to connect.
    public struct Configuration: Sendable {
        /// Provider token or client certificate.
        public var authentication: Authentication
        /// Base URL for sandbox tokens; Apple's by default.
        public var sandboxURL: String
        /// Base URL for production tokens; Apple's by default.
        public var productionURL: String
        /// Extra CA certificate (PEM path) to trust, for a local sandbox.
        public var caFile: String?
        /// Deadline for one push, in seconds, from the call to the answer (waiting for a connection or
        /// a free stream, and the one resend, included); a push without an answer by then fails as
        /// ``APNsClientError/timedOut(after:)``.
        public var requestTimeout: TimeInterval
        /// The same for VoIP pushes, shorter: a ringing call cannot wait, and a push that gets no answer in a
        /// few seconds is better sent again on a fresh connection than waited for.
        public var voipRequestTimeout: TimeInterval
        /// Connections per APNs host (the pool size), each with its own loop thread; pushes multiplex on
        /// them. Apple asks for a few long-lived connections rather than many.
        public var connectionsPerHost: Int
        /// Most streams the client opens on one connection; the server's SETTINGS_MAX_CONCURRENT_STREAMS
        /// caps it further (the client follows the server's value as it changes).
        public var maxConcurrentStreams: Int
        /// Seconds an idle connection is kept for reuse before the client closes it.
        public var connectionIdleLifetime: TimeInterval
        /// Seconds of silence before a keep-alive HTTP/2 PING (and TCP keep-alive probes) on a connection; an
        /// unanswered PING marks the connection dead and it is replaced. Nil for none.
        public var keepAliveInterval: TimeInterval?

        /// Creates a configuration with Apple's hosts and token authentication.
        /// - Parameters:
        ///   - credentials: the provider key, key id and team id.
        ///   - sandboxURL: base URL for sandbox tokens.
        ///   - productionURL: base URL for production tokens.
        ///   - caFile: extra CA (PEM path) to trust, for a local sandbox.
        ///   - requestTimeout: deadline per push in seconds; default 10.
        ///   - voipRequestTimeout: deadline per VoIP push in seconds; default 5.
        ///   - connectionsPerHost: pool size per host; default 2.
        ///   - maxConcurrentStreams: client-side stream cap per connection; default 1000.
        ///   - connectionIdleLifetime: seconds an idle connection stays reusable; default 3600.
        ///   - keepAliveInterval: seconds of silence before a keep-alive PING; default 30.
        public init(
            credentials: APNsProviderToken.Credentials,
            sandboxURL: String = "https://api.sandbox.push.apple.com",
            productionURL: String = "https://api.push.apple.com",
            caFile: String? = nil, requestTimeout: TimeInterval = 10, voipRequestTimeout: TimeInterval = 5,
            connectionsPerHost: Int = 2, maxConcurrentStreams: Int = 1000,
            connectionIdleLifetime: TimeInterval = 3600, keepAliveInterval: TimeInterval? = 30
        ) {
            self.init(
                authentication: .providerToken(credentials), sandboxURL: sandboxURL, productionURL: productionURL,
                caFile: caFile, requestTimeout: requestTimeout, voipRequestTimeout: voipRequestTimeout,
                connectionsPerHost: connectionsPerHost, maxConcurrentStreams: maxConcurrentStreams,
                connectionIdleLifetime: connectionIdleLifetime, keepAliveInterval: keepAliveInterval)
        }

        /// Creates a configuration with Apple's hosts; the other parameters as in
        /// ``init(credentials:sandboxURL:productionURL:caFile:requestTimeout:voipRequestTimeout:connectionsPerHost:maxConcurrentStreams:connectionIdleLifetime:keepAliveInterval:)``.
        /// - Parameter authentication: a provider-token key or a client certificate.
        public init(
            authentication: Authentication,
            sandboxURL: String = "https://api.sandbox.push.apple.com",
            productionURL: String = "https://api.push.apple.com",
            caFile: String? = nil, requestTimeout: TimeInterval = 10, voipRequestTimeout: TimeInterval = 5,
            connectionsPerHost: Int = 2, maxConcurrentStreams: Int = 1000,
            connectionIdleLifetime: TimeInterval = 3600, keepAliveInterval: TimeInterval? = 30
        ) {
            self.authentication = authentication
            self.sandboxURL = sandboxURL
            self.productionURL = productionURL
            self.caFile = caFile
            self.requestTimeout = requestTimeout
            self.voipRequestTimeout = voipRequestTimeout
            self.connectionsPerHost = connectionsPerHost
            self.maxConcurrentStreams = maxConcurrentStreams
            self.connectionIdleLifetime = connectionIdleLifetime
            self.keepAliveInterval = keepAliveInterval
        }

        /// The HTTP/2 client settings for one connection of a host's pool.
        var http2: HTTP2Client.Configuration {
            var identity: HTTP2Client.ClientCertificate?
            if case .certificate(let certificate) = authentication { identity = certificate.identity }
            return HTTP2Client.Configuration(
                caFile: caFile, maxConnectionsPerHost: 1,
                maxConcurrentStreams: maxConcurrentStreams, clientCertificate: identity,
                userAgent: "Ringer-APNs/1",
                connectionIdleLifetime: connectionIdleLifetime,
                keepAliveInterval: keepAliveInterval)
        }
    }

    private let configuration: Configuration
    private let sandboxHost: HTTP2ClientPool
    private let productionHost: HTTP2ClientPool
    /// The provider token shared by every request of this client; nil with certificate authentication.
    public let providerToken: APNsProviderToken?

    /// Creates the client; each host's HTTP/2 loop starts on its first push.
    /// - Throws: `HTTP2ClientError` for a configuration the HTTP/2 client would refuse (pool size, stream cap, timeouts).
    public init(configuration: Configuration) throws {
        guard configuration.requestTimeout > 0, configuration.voipRequestTimeout > 0,
            configuration.requestTimeout.isFinite, configuration.voipRequestTimeout.isFinite
        else {
            throw HTTP2ClientError.invalidRequest("requestTimeout and voipRequestTimeout must be positive seconds")
        }
        guard configuration.connectionsPerHost >= 1 else {
            throw HTTP2ClientError.invalidRequest("connectionsPerHost must be at least 1")
        }
        self.configuration = configuration
        if case .providerToken(let credentials) = configuration.authentication {
            providerToken = APNsProviderToken(credentials: credentials)
        } else {
            providerToken = nil
        }
        sandboxHost = try HTTP2ClientPool(configuration: configuration.http2, size: configuration.connectionsPerHost)
        productionHost = try HTTP2ClientPool(configuration: configuration.http2, size: configuration.connectionsPerHost)
    }

    /// Sends one notification.
    ///
    /// The push gets ``Configuration/voipRequestTimeout`` (VoIP) or ``Configuration/requestTimeout``, cut
    /// short by `deadline`. If its connection fails before the answer (closed, reset, TLS or HTTP/2 error)
    /// it is sent once more on another connection, with the same `apns-id`, so APNs and the app see one
    /// notification; pushes the server refused or left unprocessed (REFUSED_STREAM, GOAWAY) are resent by
    /// ``HTTP2Client`` itself. On 403 `ExpiredProviderToken` or `InvalidProviderToken` it mints a new provider
    /// token once and retries once with the same `apns-id`; every other answer is returned as is.
    /// - Parameters:
    ///   - notification: headers and payload.
    ///   - deviceToken: the hex device token (any even length; Apple does not promise 64 characters).
    ///   - environment: which host to send to: `sandbox` the development one, any other value production.
    ///   - deadline: when the push stops mattering (for a VoIP push, the ring deadline); nil for none.
    /// - Returns: APNs' answer, with `attempts` requests made (resends after a connection failure included).
    /// - Throws: ``APNsClientError``: `timedOut(after:)` when no answer came in time (the push may or may not
    ///   have been delivered), `deadlinePassed` when `deadline` had passed (nothing sent), `transport` when the
    ///   connection failed twice, `certificateRefused` when APNs refused the client certificate in the TLS
    ///   handshake, `invalidDeviceToken`, `payloadTooLarge`, `signing`; `CancellationError` when the task is
    ///   cancelled.
    public func send(
        _ notification: APNsNotification, to deviceToken: String, environment: APNsEnvironment,
        deadline: Date? = nil
    ) async throws -> (response: APNsResponse, attempts: Int) {
        guard Self.isHexToken(deviceToken) else { throw APNsClientError.invalidDeviceToken }
        guard notification.payload.count <= notification.pushType.maximumPayloadBytes else {
            throw APNsClientError.payloadTooLarge(
                bytes: notification.payload.count,
                limit: notification.pushType.maximumPayloadBytes)
        }
        let (base, pool) = host(for: environment)
        let ceiling = notification.pushType == .voip ? configuration.voipRequestTimeout : configuration.requestTimeout
        var attempts = 0
        var refreshedToken = false
        while true {
            let timeout = min(ceiling, deadline?.timeIntervalSinceNow ?? ceiling)
            guard timeout > 0 else { throw APNsClientError.deadlinePassed }
            let credential: (token: String, authorization: String)?
            do {
                credential = try providerToken?.currentWithAuthorization()
            } catch {
                throw APNsClientError.signing(String(describing: error))
            }
            let token = credential?.token
            let request = HTTP2Request(
                url: base + "/3/device/" + deviceToken, method: "POST",
                headers: notification.requestHeaders(authorization: credential?.authorization),
                body: notification.payload, timeout: timeout, connectionRetries: 1)
            let raw: HTTP2Response
            do {
                raw = try await pool.send(request)
            } catch let error as HTTP2ClientError {
                if error == .timedOut { throw APNsClientError.timedOut(after: timeout) }
                if error.isCertificateRefused { throw APNsClientError.certificateRefused(error.description) }
                throw APNsClientError.transport(error.description)
            }
            attempts += raw.attempts
            var response = APNsResponse(status: raw.status, apnsID: raw.header("apns-id"), body: raw.body)
            response.serverDate = raw.header("date").flatMap(HTTPDate.parse)
            if !refreshedToken, response.status == 403,
                response.reason == .expiredProviderToken || response.reason == .invalidProviderToken,
                let token, providerToken?.invalidate(token) == true
            {
                refreshedToken = true
                continue
            }
            if response.reason == .tooManyProviderTokenUpdates { providerToken?.throttle() }
            return (response, attempts)
        }
    }

    /// Connections opened and recycled, pushes resent and timed out so far, for one host.
    /// - Parameter environment: the host.
    /// - Returns: zeros when the host was never used.
    public func statistics(for environment: APNsEnvironment) -> HTTP2Client.Statistics {
        host(for: environment).pool.statistics
    }

    /// The base URL and connection pool of an environment. Apple has two hosts: `sandbox` is the development
    /// one, and every other value the production one, as for a device registered without `apns_environment`.
    private func host(for environment: APNsEnvironment) -> (url: String, pool: HTTP2ClientPool) {
        environment == .sandbox
            ? (configuration.sandboxURL, sandboxHost) : (configuration.productionURL, productionHost)
    }

    /// Fails in-flight requests and stops both hosts' HTTP/2 loops. Idempotent.
    public func shutdown() {
        sandboxHost.shutdown()
        productionHost.shutdown()
    }

    /// True for a device token as APNs issues them: an even number (2…1024) of ASCII hex digits.
    /// Apple does not promise a length, so none is assumed beyond a sanity bound.
    public static func isHexToken(_ token: String) -> Bool {
        func isHex(_ byte: UInt8) -> Bool {
            (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
        }
        // A native string's bytes are scanned as a buffer: this runs for every push.
        return (2...1024).contains(token.utf8.count) && token.utf8.count % 2 == 0
            && (token.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isHex) } ?? token.utf8.allSatisfy(isHex))
    }
}

/// A push that could not be sent, or got no answer from APNs.
public struct APNsClientError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidDeviceToken, payloadTooLarge, signing, transport, timedOut, deadlinePassed, certificateRefused
    }

    private let code: Code
    /// Details for operators; never contains tokens or keys.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// The device token is not hex; nothing was sent.
    public static let invalidDeviceToken = APNsClientError(.invalidDeviceToken, "device token is not hex")
    /// The caller's deadline had passed before the push could be sent; nothing was sent.
    public static let deadlinePassed = APNsClientError(.deadlinePassed, "the push's deadline passed before it was sent")

    /// No answer within the request deadline; APNs may or may not have delivered it. A connection that
    /// answered nothing during that time was closed, so later pushes use a new one.
    /// - Parameter seconds: the deadline the push had.
    /// - Returns: the error.
    public static func timedOut(after seconds: TimeInterval) -> APNsClientError {
        APNsClientError(
            .timedOut,
            "no answer from APNs within \(String(format: "%.1f", seconds)) s; the push may or may not have been delivered"
        )
    }

    /// The payload exceeds Apple's limit for the push type; nothing was sent.
    public static func payloadTooLarge(bytes: Int, limit: Int) -> APNsClientError {
        APNsClientError(.payloadTooLarge, "payload is \(bytes) bytes; the limit is \(limit)")
    }

    /// The provider token could not be signed (bad key).
    public static func signing(_ detail: String) -> APNsClientError { APNsClientError(.signing, detail) }

    /// The connection failed (DNS, TCP, TLS, HTTP/2).
    public static func transport(_ detail: String) -> APNsClientError { APNsClientError(.transport, detail) }

    /// APNs refused the client certificate in the TLS handshake (an alert such as `unknown_ca`,
    /// `certificate_expired` or `certificate_revoked`): the server's certificate set-up is wrong, and sending
    /// again cannot help until an operator fixes it. Nothing was delivered.
    public static func certificateRefused(_ detail: String) -> APNsClientError {
        APNsClientError(.certificateRefused, detail)
    }

    /// True for ``certificateRefused(_:)``.
    public var isCertificateRefused: Bool { code == .certificateRefused }

    /// True when sending again later may succeed (no answer, or the connection failed); false for
    /// a request that can never be sent as it is.
    public var isRetryable: Bool { code == .transport || code == .timedOut }

    /// True for ``timedOut(after:)``.
    public var isTimeout: Bool { code == .timedOut }

    public var description: String { detail }
}
