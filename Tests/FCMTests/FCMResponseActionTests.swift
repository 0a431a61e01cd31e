import FCM
import Foundation
import Testing

/// Every FCM answer has one action (docs/fcm.md, "FCM answer → action"): a token is deleted only on proof it
/// is dead, configuration errors are never retried, and an unknown answer falls back on its status class.
@Suite struct FCMResponseActionTests {
    static func answer(
        _ status: Int, code: FCMErrorCode? = nil, status name: String? = nil, violations: [String] = [],
        reason: String? = nil, retryAfter: TimeInterval? = nil
    ) -> FCMResponse {
        FCMResponse(
            status: status,
            error: FCMErrorBody(
                code: status, status: name, fcmErrorCode: code,
                fieldViolations: violations.map { .init(field: $0, description: "bad") },
                errorInfoReason: reason),
            retryAfter: retryAfter)
    }

    @Test func acceptedAndNoAnswer() {
        #expect(FCMResponseAction.forResponse(FCMResponse(status: 200, name: "projects/p/messages/1")) == .accepted)
        #expect(FCMResponseAction.forResponse(nil) == .retry(after: nil))
    }

    @Test(arguments: [
        (answer(404, code: .unregistered, status: "NOT_FOUND"), FCMResponseAction.removeToken),
        (answer(400, code: .invalidArgument, status: "INVALID_ARGUMENT", violations: ["message.token"]), .removeToken),
        (
            answer(400, status: "INVALID_ARGUMENT", violations: ["message.data[0].value", "message.token"]),
            .removeToken
        ),
        (
            answer(400, code: .invalidArgument, status: "INVALID_ARGUMENT", violations: ["message.android.ttl"]),
            .invalidRequest
        ),
        (answer(400, code: .invalidArgument, status: "INVALID_ARGUMENT"), .invalidRequest),
        (answer(403, code: .senderIdMismatch, status: "PERMISSION_DENIED"), .configurationError),
        (answer(401, code: .thirdPartyAuthError, status: "UNAUTHENTICATED"), .configurationError),
        (answer(403, status: "PERMISSION_DENIED", reason: "SERVICE_DISABLED"), .configurationError),
        (answer(403, status: "PERMISSION_DENIED"), .configurationError),
        (answer(401, status: "UNAUTHENTICATED"), .configurationError),
        (answer(429, code: .quotaExceeded, status: "RESOURCE_EXHAUSTED", retryAfter: 30), .retry(after: 30)),
        (answer(429, code: .quotaExceeded, status: "RESOURCE_EXHAUSTED"), .retry(after: nil)),
        (answer(503, code: .unavailable, status: "UNAVAILABLE", retryAfter: 7), .retry(after: 7)),
        (answer(503, status: "UNAVAILABLE"), .retry(after: nil)),
        (answer(500, code: .internal, status: "INTERNAL"), .retry(after: nil)),
        (answer(502), .retry(after: nil)),
        (answer(504, code: .unknown("DEADLINE_EXCEEDED"), retryAfter: 3), .retry(after: 3)),
        (answer(404, status: "NOT_FOUND"), .invalidRequest),
        (answer(400, code: .unspecifiedError), .invalidRequest),
        (answer(409, code: .unknown("ABORTED")), .invalidRequest),
        (answer(413), .invalidRequest),
    ])
    func answerHasItsAction(_ response: FCMResponse, _ action: FCMResponseAction) {
        #expect(FCMResponseAction.forResponse(response) == action, "\(response)")
    }

    @Test func tokenIsDeletedOnlyOnProofItIsDead() {
        // A 404 without the UNREGISTERED detail (a wrong project path) and a 400 about another field never
        // delete a token that may still be valid.
        for response in [
            Self.answer(404, status: "NOT_FOUND"),
            Self.answer(400, code: .invalidArgument, violations: ["message.tokens"]),
            FCMResponse(status: 404), FCMResponse(status: 410),
        ] {
            #expect(FCMResponseAction.forResponse(response) != .removeToken, "\(response)")
        }
    }

    @Test(arguments: [
        (FCMClientError.timedOut(after: 5), FCMResponseAction.retry(after: nil)),
        (.transport("connection reset"), .retry(after: nil)),
        (.accessToken(.unreachable), .retry(after: nil)),
        (.accessToken(.timedOut), .retry(after: nil)),
        (.accessToken(.refused), .configurationError),
        (.accessToken(.malformedAnswer), .configurationError),
        (.accessToken(.signing), .configurationError),
        (.unknownProject("other"), .configurationError),
        (.deadlinePassed, .deadlinePassed),
        (.payloadTooLarge(bytes: 5000, limit: 4096), .invalidRequest),
        (.reservedDataKey("from"), .invalidRequest),
        (.invalidTTL, .invalidRequest),
        (.invalidRegistrationToken, .invalidRequest),
    ])
    func failureHasItsAction(_ error: FCMClientError, _ action: FCMResponseAction) {
        #expect(FCMResponseAction.forFailure(error) == action, "\(error)")
        #expect(error.isRetryable == action.isRetryable)
    }

    @Test func onlyRetryIsRetryable() {
        #expect(FCMResponseAction.retry(after: nil).isRetryable)
        #expect(FCMResponseAction.retry(after: 7).isRetryable)
        for action in [FCMResponseAction.accepted, .removeToken, .configurationError, .invalidRequest, .deadlinePassed]
        {
            #expect(!action.isRetryable)
        }
    }
}
