public import Foundation
import HTTP2Client
import JWT

/// Sends notifications to Apple's provider API over HTTP/2 (Apple: "Sending notification requests to APNs").
///
/// One ``HTTP2Client`` (one libcurl multi loop) multiplexes every request to a host over one
/// connection. Authentication is a provider token (one shared ``APNsProviderToken``) or a TLS client
/// certificate (``APNsCertificate``), chosen in ``Configuration/authentication``.
/// Thread-safe; call ``shutdown()`` before dropping the client.
public final class APNsClient: Sendable {
    /// Which APNs host a device token belongs to.
    public enum Environment: String, Sendable {
        /// `api.sandbox.push.apple.com` (development builds).
        case sandbox
        /// `api.push.apple.com` (TestFlight, App Store).
        case production
    }

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
        /// Deadline for one request, seconds; a push that gets no answer within it fails as a timeout.
        public var requestTimeout: TimeInterval

        /// Creates a configuration with Apple's hosts and token authentication.
        public init(credentials: APNsProviderToken.Credentials,
                    sandboxURL: String = "https://api.sandbox.push.apple.com",
                    productionURL: String = "https://api.push.apple.com",
                    caFile: String? = nil, requestTimeout: TimeInterval = 10) {
            self.init(authentication: .providerToken(credentials), sandboxURL: sandboxURL, productionURL: productionURL,
                      caFile: caFile, requestTimeout: requestTimeout)
        }

        /// Creates a configuration with Apple's hosts.
        public init(authentication: Authentication,
                    sandboxURL: String = "https://api.sandbox.push.apple.com",
                    productionURL: String = "https://api.push.apple.com",
                    caFile: String? = nil, requestTimeout: TimeInterval = 10) {
            self.authentication = authentication
            self.sandboxURL = sandboxURL
            self.productionURL = productionURL
            self.caFile = caFile
            self.requestTimeout = requestTimeout
        }
    }

    private let configuration: Configuration
    private let http: HTTP2Client
    /// The provider token shared by every request of this client; nil with certificate authentication.
    public let providerToken: APNsProviderToken?

    /// Creates the client and its HTTP/2 loop; no connection is opened until the first send.
    /// - Throws: `HTTP2ClientError` when libcurl cannot be set up.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        var identity: HTTP2Client.ClientCertificate?
        switch configuration.authentication {
        case .providerToken(let credentials):
            providerToken = APNsProviderToken(credentials: credentials)
        case .certificate(let certificate):
            providerToken = nil
            identity = certificate.identity
        }
        http = try HTTP2Client(configuration: .init(caFile: configuration.caFile, maxConnectionsPerHost: 1,
                                                    clientCertificate: identity, userAgent: "Ringer-APNs/1"))
    }

    /// Sends one notification.
    ///
    /// On 403 `ExpiredProviderToken` or `InvalidProviderToken` it mints a new provider token once and
    /// retries once with the same `apns-id`; every other answer is returned as is.
    /// - Parameters:
    ///   - notification: headers and payload.
    ///   - deviceToken: the hex device token (any even length; Apple does not promise 64 characters).
    ///   - environment: which host to send to.
    /// - Returns: APNs' answer, with `attempts` requests made.
    /// - Throws: ``APNsClientError`` for a request that could not be sent or got no answer.
    public func send(_ notification: APNsNotification, to deviceToken: String,
                     environment: Environment) async throws -> (response: APNsResponse, attempts: Int) {
        guard Self.isHexToken(deviceToken) else { throw APNsClientError.invalidDeviceToken }
        guard notification.payload.count <= notification.pushType.maximumPayloadBytes else {
            throw APNsClientError.payloadTooLarge(bytes: notification.payload.count,
                                                  limit: notification.pushType.maximumPayloadBytes)
        }
        let base = environment == .sandbox ? configuration.sandboxURL : configuration.productionURL
        var attempts = 0
        while true {
            attempts += 1
            var token: String?
            do {
                token = try providerToken?.current()
            } catch {
                throw APNsClientError.signing(String(describing: error))
            }
            var headers = notification.headers.map { HTTP2Request.Header($0.name, $0.value) }
            if let token { headers.append(HTTP2Request.Header("authorization", "bearer " + token)) }
            let request = HTTP2Request(url: base + "/3/device/" + deviceToken, method: "POST", headers: headers,
                                       body: notification.payload, timeout: configuration.requestTimeout)
            let raw: HTTP2Response
            do {
                raw = try await http.send(request)
            } catch let error as HTTP2ClientError {
                throw error == .timedOut ? APNsClientError.timedOut : APNsClientError.transport(error.description)
            }
            let response = APNsResponse(status: raw.status, apnsID: raw.header("apns-id"), body: raw.body)
            if attempts == 1, response.status == 403,
               response.reason == .expiredProviderToken || response.reason == .invalidProviderToken,
               let token, providerToken?.invalidate(token) == true {
                continue
            }
            if response.reason == .tooManyProviderTokenUpdates { providerToken?.throttle() }
            return (response, attempts)
        }
    }

    /// Fails in-flight requests and stops the HTTP/2 loop. Idempotent.
    public func shutdown() { http.shutdown() }

    /// True for a device token as APNs issues them: an even number (2…1024) of ASCII hex digits.
    /// Apple does not promise a length, so none is assumed beyond a sanity bound.
    public static func isHexToken(_ token: String) -> Bool {
        (2...1024).contains(token.utf8.count) && token.utf8.count % 2 == 0 && token.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
        }
    }
}

/// A push that could not be sent, or got no answer from APNs.
public struct APNsClientError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidDeviceToken, payloadTooLarge, signing, transport, timedOut
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
    /// No answer within the request deadline; APNs may or may not have delivered it.
    public static let timedOut = APNsClientError(.timedOut, "no answer from APNs within the deadline")

    /// The payload exceeds Apple's limit for the push type; nothing was sent.
    public static func payloadTooLarge(bytes: Int, limit: Int) -> APNsClientError {
        APNsClientError(.payloadTooLarge, "payload is \(bytes) bytes; the limit is \(limit)")
    }

    /// The provider token could not be signed (bad key).
    public static func signing(_ detail: String) -> APNsClientError { APNsClientError(.signing, detail) }

    /// The connection failed (DNS, TCP, TLS, HTTP/2).
    public static func transport(_ detail: String) -> APNsClientError { APNsClientError(.transport, detail) }

    /// True when sending again later may succeed (no answer, or the connection failed); false for
    /// a request that can never be sent as it is.
    public var isRetryable: Bool { code == .transport || code == .timedOut }

    public var description: String { detail }
}
