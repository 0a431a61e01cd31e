public import Foundation

/// What a push sender does with an FCM answer, or with a message that got none. One table for every
/// code Google documents, so no answer is handled by accident (docs/fcm.md has each row with its source).
///
/// Sources: Google "FCM HTTP v1 `ErrorCode`" (the meaning of each code), "Best practices for FCM
/// registration token management" (which answers prove a token dead), "FCM HTTP v1 API: error handling"
/// (429 honours `Retry-After`; 500/503 exponential backoff), RFC 9110 §10.2.3 (`Retry-After`).
public enum FCMResponseAction: Hashable, Sendable {
    /// 200: FCM accepted the message (not a delivery receipt).
    case accepted
    /// `QUOTA_EXCEEDED` (429), `UNAVAILABLE` (503), `INTERNAL` (500), any other 429/5xx, or no answer: send
    /// again after `after` seconds when FCM gave `Retry-After`, else after an exponential backoff with jitter,
    /// while the message still matters (for the ringing message: until the ring deadline). Google's default
    /// for a 429 without `Retry-After` is 60 s, which outlasts most rings.
    case retry(after: TimeInterval?)
    /// `UNREGISTERED` (404), or `INVALID_ARGUMENT` whose field violation names `message.token`: the token is
    /// dead. Delete it unless the app registered it again after the message was sent (compare-and-delete).
    case removeToken
    /// The server's FCM set-up is wrong: `SENDER_ID_MISMATCH` (the token is another project's),
    /// `THIRD_PARTY_AUTH_ERROR`, 403 `PERMISSION_DENIED` (e.g. `SERVICE_DISABLED`: the FCM API is off for
    /// the project), a 401 that persisted after ``FCMClient`` refreshed the access token once, a refused
    /// grant, an unknown project. Every message of that project fails the same way: never retried,
    /// reported once in `/healthz`.
    case configurationError
    /// A request Ringer built wrongly: `INVALID_ARGUMENT` that names no token field, any other 4xx, or a
    /// message refused before sending (payload over 4096 bytes, reserved key, TTL, token format). A bug,
    /// logged as one; never retried, never a reason to delete a token.
    case invalidRequest
    /// The message's deadline passed before it could be sent: nothing was sent, and nothing is wrong.
    case deadlinePassed

    /// The action for an answer, or for none.
    /// - Parameter response: FCM's answer; nil when none came (transport failure, timeout).
    /// - Returns: the action; an unknown code falls back on its status class.
    public static func forResponse(_ response: FCMResponse?) -> FCMResponseAction {
        guard let response else { return .retry(after: nil) }
        if response.status == 200 { return .accepted }
        switch response.errorCode {
        case .unregistered?:
            return .removeToken
        case .invalidArgument?:
            return response.namesTheToken ? .removeToken : .invalidRequest
        case .senderIdMismatch?, .thirdPartyAuthError?:
            return .configurationError
        case .quotaExceeded?, .unavailable?, .internal?:
            return .retry(after: response.retryAfter)
        default:
            // UNSPECIFIED_ERROR, statuses that are not FCM codes (UNAUTHENTICATED, PERMISSION_DENIED,
            // NOT_FOUND), codes Google adds later, and answers without a code: by status, so an unknown
            // answer is never retried forever and never deletes a token.
            switch response.status {
            case 429, 500...599: return .retry(after: response.retryAfter)
            case 401, 403: return .configurationError
            default: return .invalidRequest
            }
        }
    }

    /// The action for a message that got no answer or was never sent.
    /// - Parameter error: what ``FCMClient/send(_:to:projectID:deadline:)`` threw.
    /// - Returns: `retry` for a timeout, a failed connection or an unreachable token endpoint;
    ///   `configurationError` for a refused or malformed grant and an unknown project; `deadlinePassed`;
    ///   `invalidRequest` for a message refused before sending.
    public static func forFailure(_ error: FCMClientError) -> FCMResponseAction {
        if error.isRetryable { return .retry(after: nil) }
        if error.isDeadlinePassed { return .deadlinePassed }
        if error.isConfigurationError { return .configurationError }
        return .invalidRequest
    }

    /// True when the same message may succeed if sent again later.
    public var isRetryable: Bool {
        if case .retry = self { return true }
        return false
    }
}
