/// An FCM error code (Google: "FCM HTTP v1 `ErrorCode`"), read from the `FcmError` entry of
/// `error.details`, else from `error.status` (``FCMResponse/errorCode``).
///
/// Open: a code Google adds later, or a canonical status that is not an FCM code (`UNAUTHENTICATED`,
/// `PERMISSION_DENIED`, `NOT_FOUND`, ...), is ``unknown(_:)`` with its text, never a decoding failure.
public enum FCMErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// `UNSPECIFIED_ERROR`: no more information.
    case unspecifiedError
    /// `INVALID_ARGUMENT` (400): the request is malformed; `BadRequest` field violations say where.
    case invalidArgument
    /// `UNREGISTERED` (404, status `NOT_FOUND`): the token is no longer valid (app uninstalled, token
    /// expired or rotated).
    case unregistered
    /// `SENDER_ID_MISMATCH` (403, `PERMISSION_DENIED`): the token belongs to another Firebase project.
    case senderIdMismatch
    /// `QUOTA_EXCEEDED` (429, `RESOURCE_EXHAUSTED`): a sending limit was hit (project, device, topic).
    case quotaExceeded
    /// `UNAVAILABLE` (503): FCM is overloaded.
    case unavailable
    /// `INTERNAL` (500): FCM failed internally.
    case `internal`
    /// `THIRD_PARTY_AUTH_ERROR` (401, `UNAUTHENTICATED`): the APNs certificate or web-push key in Firebase is
    /// wrong (for an Android token, a project set-up problem).
    case thirdPartyAuthError
    /// Anything else, as Google wrote it.
    case unknown(String)

    /// Reads Google's text.
    /// - Parameter rawValue: e.g. `UNREGISTERED`.
    public init(rawValue: String) {
        switch rawValue {
        case "UNSPECIFIED_ERROR": self = .unspecifiedError
        case "INVALID_ARGUMENT": self = .invalidArgument
        case "UNREGISTERED": self = .unregistered
        case "SENDER_ID_MISMATCH": self = .senderIdMismatch
        case "QUOTA_EXCEEDED": self = .quotaExceeded
        case "UNAVAILABLE": self = .unavailable
        case "INTERNAL": self = .internal
        case "THIRD_PARTY_AUTH_ERROR": self = .thirdPartyAuthError
        default: self = .unknown(rawValue)
        }
    }

    /// Google's text, e.g. `UNREGISTERED`.
    public var rawValue: String {
        switch self {
        case .unspecifiedError: "UNSPECIFIED_ERROR"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .unregistered: "UNREGISTERED"
        case .senderIdMismatch: "SENDER_ID_MISMATCH"
        case .quotaExceeded: "QUOTA_EXCEEDED"
        case .unavailable: "UNAVAILABLE"
        case .internal: "INTERNAL"
        case .thirdPartyAuthError: "THIRD_PARTY_AUTH_ERROR"
        case .unknown(let text): text
        }
    }

    /// The HTTP status Google documents for the code; nil for `UNSPECIFIED_ERROR` and unknown codes.
    public var documentedStatus: Int? {
        switch self {
        case .invalidArgument: 400
        case .unregistered: 404
        case .senderIdMismatch: 403
        case .quotaExceeded: 429
        case .unavailable: 503
        case .internal: 500
        case .thirdPartyAuthError: 401
        case .unspecifiedError, .unknown: nil
        }
    }

    /// Google's text, as ``rawValue``.
    public var description: String { rawValue }
}
