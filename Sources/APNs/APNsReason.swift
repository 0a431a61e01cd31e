/// A reason string from an APNs error response body, `{"reason": "BadDeviceToken"}`
/// (Apple: "Handling notification responses from APNs", table "Response error strings").
///
/// Open: an unknown reason from a newer APNs decodes as itself rather than failing.
public struct APNsReason: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    /// Creates the reason; any string is accepted, as APNs may add reasons.
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Decodes the bare JSON string of `reason`.
    /// - Throws: `DecodingError` when the value is not a string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // 400
    /// 400: the collapse identifier exceeds 64 bytes.
    public static let badCollapseID = APNsReason(rawValue: "BadCollapseId")
    /// 400: the device token is invalid, or belongs to the other environment (sandbox vs production).
    public static let badDeviceToken = APNsReason(rawValue: "BadDeviceToken")
    /// 400: the `apns-expiration` value is invalid.
    public static let badExpirationDate = APNsReason(rawValue: "BadExpirationDate")
    /// 400: the `apns-id` value is not a UUID.
    public static let badMessageID = APNsReason(rawValue: "BadMessageId")
    /// 400: the `apns-priority` value is invalid.
    public static let badPriority = APNsReason(rawValue: "BadPriority")
    /// 400: the `apns-topic` value is invalid.
    public static let badTopic = APNsReason(rawValue: "BadTopic")
    /// 400: the device token does not match the topic.
    public static let deviceTokenNotForTopic = APNsReason(rawValue: "DeviceTokenNotForTopic")
    /// 400: a header was repeated.
    public static let duplicateHeaders = APNsReason(rawValue: "DuplicateHeaders")
    /// 400: the connection was idle too long.
    public static let idleTimeout = APNsReason(rawValue: "IdleTimeout")
    /// 400: the `apns-push-type` value is invalid (or does not match the topic's suffix).
    public static let invalidPushType = APNsReason(rawValue: "InvalidPushType")
    /// 400: the path has no device token.
    public static let missingDeviceToken = APNsReason(rawValue: "MissingDeviceToken")
    /// 400: `apns-topic` is required (always with token authentication) and missing.
    public static let missingTopic = APNsReason(rawValue: "MissingTopic")
    /// 400: the body is empty.
    public static let payloadEmpty = APNsReason(rawValue: "PayloadEmpty")
    /// 400: pushing to this topic is not allowed.
    public static let topicDisallowed = APNsReason(rawValue: "TopicDisallowed")
    // 403
    /// 403: the client certificate is invalid.
    public static let badCertificate = APNsReason(rawValue: "BadCertificate")
    /// 403: the client certificate is for the other environment.
    public static let badCertificateEnvironment = APNsReason(rawValue: "BadCertificateEnvironment")
    /// 403: the provider token's `iat` is older than one hour.
    public static let expiredProviderToken = APNsReason(rawValue: "ExpiredProviderToken")
    /// 403: the action is not allowed.
    public static let forbidden = APNsReason(rawValue: "Forbidden")
    /// 403: the provider token is not valid, or its signature does not verify.
    public static let invalidProviderToken = APNsReason(rawValue: "InvalidProviderToken")
    /// 403: no certificate and no provider token.
    public static let missingProviderToken = APNsReason(rawValue: "MissingProviderToken")
    /// 403: the key id in the provider token does not belong to the team.
    public static let unrelatedKeyIdInToken = APNsReason(rawValue: "UnrelatedKeyIdInToken")
    /// 403: the key's environment does not match the host.
    public static let badEnvironmentKeyInToken = APNsReason(rawValue: "BadEnvironmentKeyInToken")
    // 404, 405
    /// 404: the `:path` is invalid.
    public static let badPath = APNsReason(rawValue: "BadPath")
    /// 405: only POST is supported.
    public static let methodNotAllowed = APNsReason(rawValue: "MethodNotAllowed")
    // 410
    /// 410: the device token has expired.
    public static let expiredToken = APNsReason(rawValue: "ExpiredToken")
    /// 410: the device token is inactive for the topic; the body carries a `timestamp` (ms).
    public static let unregistered = APNsReason(rawValue: "Unregistered")
    // 413
    /// 413: the payload exceeds the limit (4096 bytes; 5120 for VoIP).
    public static let payloadTooLarge = APNsReason(rawValue: "PayloadTooLarge")
    // 429
    /// 429: the provider token was changed too often.
    public static let tooManyProviderTokenUpdates = APNsReason(rawValue: "TooManyProviderTokenUpdates")
    /// 429: too many requests to the same device token.
    public static let tooManyRequests = APNsReason(rawValue: "TooManyRequests")
    // 500, 503
    /// 500: APNs failed internally.
    public static let internalServerError = APNsReason(rawValue: "InternalServerError")
    /// 503: APNs is unavailable.
    public static let serviceUnavailable = APNsReason(rawValue: "ServiceUnavailable")
    /// 503: the APNs server is shutting down.
    public static let shutdown = APNsReason(rawValue: "Shutdown")

    /// The HTTP status Apple documents for this reason, or nil for an unknown reason.
    public var status: Int? {
        switch self {
        case .badCollapseID, .badDeviceToken, .badExpirationDate, .badMessageID, .badPriority, .badTopic,
            .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
            .missingTopic, .payloadEmpty, .topicDisallowed:
            400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
            .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyInToken:
            403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .expiredToken, .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: 429
        case .internalServerError: 500
        case .serviceUnavailable, .shutdown: 503
        default: nil
        }
    }
}
