import APNs
import Testing

/// Every reason Apple documents has one action (docs/apns.md), and unknown reasons fall back on
/// their status class instead of being retried forever or deleting tokens.
@Suite struct APNsResponseActionTests {
    @Test func acceptedAndNoAnswer() {
        #expect(APNsResponseAction.forResponse(status: 200, reason: nil) == .accepted)
        #expect(APNsResponseAction.forResponse(status: nil, reason: nil) == .retry)
    }

    @Test(arguments: [
        (400, "BadDeviceToken", APNsResponseAction.flagDevice),
        (400, "DeviceTokenNotForTopic", .flagDevice),
        (410, "Unregistered", .removeToken),
        (410, "ExpiredToken", .removeToken),
        (429, "TooManyRequests", .retry),
        (500, "InternalServerError", .retry),
        (503, "ServiceUnavailable", .retry),
        (503, "Shutdown", .retry),
        (400, "IdleTimeout", .retry),
        (429, "TooManyProviderTokenUpdates", .providerTokenThrottled),
        (403, "ExpiredProviderToken", .refreshProviderToken),
        (403, "InvalidProviderToken", .refreshProviderToken),
        (400, "BadTopic", .configurationError),
        (400, "TopicDisallowed", .configurationError),
        (400, "MissingTopic", .configurationError),
        (403, "BadCertificate", .configurationError),
        (403, "BadCertificateEnvironment", .configurationError),
        (403, "Forbidden", .configurationError),
        (403, "MissingProviderToken", .configurationError),
        (403, "UnrelatedKeyIdInToken", .configurationError),
        (403, "BadEnvironmentKeyInToken", .configurationError),
        (400, "BadCollapseId", .invalidRequest),
        (400, "BadExpirationDate", .invalidRequest),
        (400, "BadMessageId", .invalidRequest),
        (400, "BadPriority", .invalidRequest),
        (400, "DuplicateHeaders", .invalidRequest),
        (400, "InvalidPushType", .invalidRequest),
        (400, "MissingDeviceToken", .invalidRequest),
        (400, "PayloadEmpty", .invalidRequest),
        (413, "PayloadTooLarge", .invalidRequest),
        (404, "BadPath", .invalidRequest),
        (405, "MethodNotAllowed", .invalidRequest),
    ])
    func documentedReason(status: Int, reason: String, action: APNsResponseAction) {
        #expect(APNsResponseAction.forResponse(status: status, reason: APNsReason(rawValue: reason)) == action)
        // The table agrees with the status Apple documents for the reason.
        #expect(APNsReason(rawValue: reason).status == status)
    }

    @Test func unknownReasonsFallBackOnTheirStatus() {
        let novel = APNsReason(rawValue: "SomethingNew")
        #expect(APNsResponseAction.forResponse(status: 410, reason: novel) == .removeToken)
        #expect(APNsResponseAction.forResponse(status: 429, reason: novel) == .retry)
        #expect(APNsResponseAction.forResponse(status: 502, reason: nil) == .retry)
        #expect(APNsResponseAction.forResponse(status: 403, reason: novel) == .configurationError)
        #expect(APNsResponseAction.forResponse(status: 400, reason: nil) == .invalidRequest)
    }

    @Test func onlyRetryAndThrottlingAreRetryable() {
        let all: [APNsResponseAction] = [
            .accepted, .retry, .removeToken, .flagDevice, .configurationError,
            .providerTokenThrottled, .refreshProviderToken, .invalidRequest,
        ]
        #expect(all.filter(\.isRetryable) == [.retry, .providerTokenThrottled])
    }
}
