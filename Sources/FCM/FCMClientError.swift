public import Foundation

/// A message that was not sent, or got no answer from FCM. Messages never contain registration tokens,
/// access tokens or key material (a reserved data key's name is quoted: keys are Ringer's own words).
///
/// ``FCMResponseAction/forFailure(_:)`` says what each one means for the push; ``isRetryable`` is its short form.
public struct FCMClientError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case invalidRegistrationToken, payloadTooLarge, reservedDataKey, invalidTTL, unknownProject
        case deadlinePassed, timedOut, transport, accessToken, invalidConfiguration
    }

    private let code: Code
    /// Details for operators.
    public let detail: String
    /// For ``accessToken(_:)``: why no access token could be had.
    public let accessTokenError: FCMAccessTokenError?

    private init(_ code: Code, _ detail: String, accessTokenError: FCMAccessTokenError? = nil) {
        self.code = code
        self.detail = detail
        self.accessTokenError = accessTokenError
    }

    /// The registration token is empty, longer than 4096 bytes or has a character outside
    /// ``FCMClient/isPlausibleRegistrationToken(_:)``; nothing was sent.
    public static let invalidRegistrationToken = FCMClientError(
        .invalidRegistrationToken, "the registration token is not an FCM token (1...4096 of A-Z a-z 0-9 - _ : .)")
    /// `android.ttl` is negative or over 28 days; nothing was sent.
    public static let invalidTTL = FCMClientError(.invalidTTL, "android.ttl must be 0...2419200 seconds")
    /// The caller's deadline passed before the message could be sent; nothing was sent.
    public static let deadlinePassed = FCMClientError(
        .deadlinePassed, "the message's deadline passed before it was sent")

    /// The data payload exceeds FCM's limit (counted as ``FCMMessage/dataPayloadBytes``); nothing was sent.
    /// - Parameters:
    ///   - bytes: the payload's size in bytes.
    ///   - limit: FCM's limit, 4096.
    public static func payloadTooLarge(bytes: Int, limit: Int) -> FCMClientError {
        FCMClientError(
            .payloadTooLarge, "the data payload is \(bytes) bytes (keys and values, UTF-8); FCM's limit is \(limit)")
    }

    /// A data key FCM reserves (``FCMMessage/reservedDataKeys``); nothing was sent.
    /// - Parameter key: the key.
    public static func reservedDataKey(_ key: String) -> FCMClientError {
        FCMClientError(.reservedDataKey, "data key \"\(key.prefix(64))\" is reserved by FCM")
    }

    /// No service account of this client has the project; nothing was sent.
    /// - Parameter projectID: the project asked for.
    public static func unknownProject(_ projectID: String) -> FCMClientError {
        FCMClientError(.unknownProject, "no FCM service account for project \"\(projectID.prefix(128))\"")
    }

    /// No answer within the request deadline; FCM may or may not have accepted the message.
    /// - Parameter seconds: the deadline the request had.
    public static func timedOut(after seconds: TimeInterval) -> FCMClientError {
        FCMClientError(
            .timedOut,
            "no answer from FCM within \(String(format: "%.1f", seconds)) s; the message may or may not have been accepted"
        )
    }

    /// The connection failed (DNS, TCP, TLS, HTTP/2), after the one resend.
    public static func transport(_ detail: String) -> FCMClientError { FCMClientError(.transport, detail) }

    /// No access token: the grant was refused, the token endpoint was unreachable, or its answer was malformed.
    /// - Parameter error: why; its ``FCMAccessTokenError/isRetryable`` carries over.
    public static func accessToken(_ error: FCMAccessTokenError) -> FCMClientError {
        FCMClientError(.accessToken, "no FCM access token: \(error.detail)", accessTokenError: error)
    }

    /// The client's configuration is unusable (no account, a repeated project, a bad base URL, an
    /// unreadable CA file); thrown by ``FCMClient/init(configuration:)``.
    public static func invalidConfiguration(_ detail: String) -> FCMClientError {
        FCMClientError(.invalidConfiguration, detail)
    }

    /// Kinds for comparisons (`error == .timedOut`): equality ignores the detail.
    public static let payloadTooLarge = FCMClientError.payloadTooLarge(bytes: 0, limit: 0)
    /// The reserved-key kind, for comparisons.
    public static let reservedDataKey = FCMClientError.reservedDataKey("")
    /// The unknown-project kind, for comparisons.
    public static let unknownProject = FCMClientError.unknownProject("")
    /// The timed-out kind, for comparisons.
    public static let timedOut = FCMClientError.timedOut(after: 0)
    /// The transport kind, for comparisons.
    public static let transport = FCMClientError.transport("")
    /// The access-token kind, for comparisons (whatever the token error was).
    public static let accessToken = FCMClientError(.accessToken, "no FCM access token")
    /// The configuration kind, for comparisons.
    public static let invalidConfiguration = FCMClientError.invalidConfiguration("")

    /// True when the message was not sent because Ringer's own request cannot be sent as it is (token
    /// format, payload size, reserved key, TTL): a bug or a bad registration, never worth a retry.
    public var isInvalidMessage: Bool {
        [.invalidRegistrationToken, .payloadTooLarge, .reservedDataKey, .invalidTTL].contains(code)
    }

    /// True for ``deadlinePassed``.
    public var isDeadlinePassed: Bool { code == .deadlinePassed }

    /// True when the server's FCM set-up is at fault: a refused or malformed grant, an unknown project,
    /// an unusable configuration.
    public var isConfigurationError: Bool {
        switch code {
        case .unknownProject, .invalidConfiguration: true
        case .accessToken: accessTokenError?.isRetryable == false
        default: false
        }
    }

    /// True when sending again later may succeed: no answer, a failed connection, an unreachable token endpoint.
    public var isRetryable: Bool {
        switch code {
        case .timedOut, .transport: true
        case .accessToken: accessTokenError?.isRetryable == true
        default: false
        }
    }

    /// True for ``timedOut(after:)``.
    public var isTimeout: Bool { code == .timedOut }

    /// Equal when the kinds are equal; details are ignored.
    public static func == (lhs: FCMClientError, rhs: FCMClientError) -> Bool { lhs.code == rhs.code }

    /// Hashes the kind only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// ``detail``: safe to log.
    public var description: String { detail }
}
