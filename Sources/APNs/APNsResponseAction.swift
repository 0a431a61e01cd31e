/// What a push sender does with an APNs answer. One table for every reason Apple documents, so no
/// answer is handled by accident (Apple: "Handling notification responses from APNs", table
/// "Understand error codes"; docs/apns.md explains each row).
public enum APNsResponseAction: Hashable, Sendable {
    /// 200: APNs accepted the push (not a delivery receipt).
    case accepted
    /// 429 `TooManyRequests`, 500, 503, or no answer: retry with the same `apns-id` after an exponential
    /// backoff with jitter, while the push still matters (for a VoIP push: until the ring deadline).
    case retry
    /// 410 `Unregistered` / `ExpiredToken`: the token is dead since the answer's timestamp; delete it
    /// unless the app registered it again after that time (compare-and-delete).
    case removeToken
    /// 400 `BadDeviceToken` / `DeviceTokenNotForTopic`: also what a token of the other environment or
    /// bundle id gets, so not proof the token is dead. Keep it, mark the device, tell the operator;
    /// the app's next registration fixes it. Never retried.
    case flagDevice
    /// The server's APNs set-up is wrong (topic, certificate, key, team): every push to this topic will
    /// fail the same way. Fail fast, never retry, surface it to operators.
    case configurationError
    /// 429 `TooManyProviderTokenUpdates`: the provider token was minted too often. Stop minting, keep
    /// the current token for the back-off period and say so loudly; the push may be retried.
    case providerTokenThrottled
    /// 403 `ExpiredProviderToken` / `InvalidProviderToken`: mint one new provider token and retry once
    /// (``APNsClient/send(_:to:environment:)`` does this itself); a second refusal is a configuration error.
    case refreshProviderToken
    /// A request Ringer built wrongly (bad header, payload, path): a bug, not a device or set-up problem.
    /// Never retried; logged as an error.
    case invalidRequest

    /// The action for an APNs answer.
    /// - Parameters:
    ///   - status: the HTTP status, nil when no answer came (transport failure, timeout).
    ///   - reason: the body's reason, if any.
    /// - Returns: the action; an unknown reason falls back on its status class.
    public static func forResponse(status: Int?, reason: APNsReason?) -> APNsResponseAction {
        guard let status else { return .retry }
        if status == 200 { return .accepted }
        switch reason {
        case .badDeviceToken?, .deviceTokenNotForTopic?:
            return .flagDevice
        case .unregistered?, .expiredToken?:
            return .removeToken
        case .tooManyProviderTokenUpdates?:
            return .providerTokenThrottled
        case .expiredProviderToken?, .invalidProviderToken?:
            return .refreshProviderToken
        case .tooManyRequests?, .internalServerError?, .serviceUnavailable?, .shutdown?, .idleTimeout?:
            // IdleTimeout: APNs closed an idle connection; the push goes out again on a new one.
            return .retry
        case .badTopic?, .topicDisallowed?, .missingTopic?, .badCertificate?, .badCertificateEnvironment?,
            .forbidden?, .missingProviderToken?, .unrelatedKeyIdInToken?, .badEnvironmentKeyInToken?:
            return .configurationError
        case .badCollapseID?, .badExpirationDate?, .badMessageID?, .badPriority?, .duplicateHeaders?,
            .invalidPushType?, .missingDeviceToken?, .payloadEmpty?, .payloadTooLarge?, .badPath?,
            .methodNotAllowed?:
            return .invalidRequest
        default:
            switch status {
            case 410: return .removeToken
            case 429, 500...599: return .retry
            case 403: return .configurationError
            default: return .invalidRequest
            }
        }
    }

    /// True when the same push may succeed if sent again later.
    public var isRetryable: Bool { self == .retry || self == .providerTokenThrottled }
}
