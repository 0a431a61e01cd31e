public import Foundation
import RingerHTTP

/// What FCM answered to one `messages:send` (Google: "REST Resource: projects.messages"; error bodies per
/// "FCM HTTP v1 API: error handling").
///
/// Any answer yields a response: a body that is not JSON, or JSON without an error code, leaves
/// ``error`` nil and the action is decided by ``status`` alone (``FCMResponseAction``).
public struct FCMResponse: Sendable, Hashable {
    /// The HTTP status; 200 means FCM accepted the message (not a delivery receipt).
    public var status: Int
    /// On success, the message's name: `projects/{project}/messages/{message_id}`.
    public var name: String?
    /// On failure, Google's error body, when the answer carried one.
    public var error: FCMErrorBody?
    /// `Retry-After` in seconds (429, 503), from delta-seconds or an HTTP-date; nil when absent or unreadable.
    public var retryAfter: TimeInterval?

    /// Creates a response (tests, fakes).
    public init(status: Int, name: String? = nil, error: FCMErrorBody? = nil, retryAfter: TimeInterval? = nil) {
        self.status = status
        self.name = name
        self.error = error
        self.retryAfter = retryAfter
    }

    /// Parses an answer.
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - retryAfter: the `Retry-After` header's value, if any.
    ///   - body: the body bytes; anything unreadable is ignored.
    ///   - now: what an HTTP-date `Retry-After` is measured from.
    public init(status: Int, retryAfter: String?, body: [UInt8], now: Date = Date()) {
        self.status = status
        self.retryAfter = RetryAfter.seconds(retryAfter, now: now)
        if status == 200 {
            let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
            name = object?["name"] as? String
        } else {
            error = FCMErrorBody(body: body)
        }
    }

    /// True when FCM accepted the message.
    public var isAccepted: Bool { status == 200 }

    /// The FCM error code: the `FcmError` detail's, else `error.status` read as one; nil on success or
    /// without an error body.
    public var errorCode: FCMErrorCode? { error?.errorCode }

    /// True when a `BadRequest` field violation names the registration token (`message.token`): FCM says
    /// this token is not a token (Google: "Best practices for FCM registration token management").
    public var namesTheToken: Bool {
        error?.fieldViolations.contains { $0.field == "message.token" } ?? false
    }

    /// A short reason for logs, push outcomes and `/healthz`: the `FcmError` code, else the `ErrorInfo`
    /// reason (`SERVICE_DISABLED`), else `error.status` (`UNAUTHENTICATED`), else `HTTP <status>`.
    public var reason: String {
        error?.fcmErrorCode?.rawValue ?? error?.errorInfoReason ?? error?.status ?? "HTTP \(status)"
    }
}
