import Foundation

/// An answer FCM gives instead of accepting a message: an HTTP status and Google's error body, a
/// `google.rpc.Status` (Google: FCM HTTP v1 "Error codes", `google.rpc.Status`, `google.rpc.BadRequest`,
/// `google.rpc.ErrorInfo`):
///
/// ```json
/// {"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND",
///            "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}}
/// ```
///
/// FCM's own refusals carry the `FcmError` entry; refusals made before FCM sees the message (bad
/// credentials, a JSON body that does not fit the schema, a disabled API, missing IAM permission) carry only
/// `status`, and maybe a `BadRequest` or an `ErrorInfo` entry. Where Google publishes no wording for
/// `message`, the sandbox's is close to what FCM answers in practice; clients must not parse it. A plain value.
public struct FCMSandboxRejection: Error, Sendable, Hashable {
    /// One entry of a `google.rpc.BadRequest` detail: the request field at fault and why.
    public struct FieldViolation: Sendable, Hashable, Codable {
        /// The field path, e.g. `message.token` or `message.android.ttl`; empty for the body as a whole.
        public var field: String
        /// Why the field is wrong.
        public var description: String

        /// Creates a field violation.
        public init(field: String, description: String) {
            self.field = field
            self.description = description
        }
    }

    /// A `google.rpc.ErrorInfo` detail: a machine-readable reason for a refusal outside FCM itself.
    public struct ErrorInfo: Sendable, Hashable {
        /// E.g. `SERVICE_DISABLED`, `ACCESS_TOKEN_SCOPE_INSUFFICIENT`, `IAM_PERMISSION_DENIED`.
        public var reason: String
        /// The service that decided, e.g. `googleapis.com`.
        public var domain: String
        /// Extra facts, e.g. `["service": "fcm.googleapis.com"]`.
        public var metadata: [String: String]

        /// Creates an error-info detail.
        public init(reason: String, domain: String = "googleapis.com", metadata: [String: String] = [:]) {
            self.reason = reason
            self.domain = domain
            self.metadata = metadata
        }
    }

    /// The HTTP status, e.g. 404.
    public var httpStatus: Int
    /// The `google.rpc.Code` name, e.g. `NOT_FOUND`, `INVALID_ARGUMENT`, `UNAUTHENTICATED`.
    public var status: String
    /// The human-readable `message`.
    public var message: String
    /// The `FcmError` detail's `errorCode` (Google: FCM HTTP v1 `ErrorCode`), e.g. `UNREGISTERED`; nil when
    /// the body has no `FcmError` entry.
    public var errorCode: String?
    /// `BadRequest` field violations; empty for none (then no `BadRequest` entry is sent).
    public var fieldViolations: [FieldViolation]
    /// An `ErrorInfo` detail, if any.
    public var errorInfo: ErrorInfo?

    /// Creates a rejection.
    /// - Parameters:
    ///   - httpStatus: The HTTP status (400…599).
    ///   - status: The `google.rpc.Code` name.
    ///   - message: The `message` text.
    ///   - errorCode: The `FcmError` code, or nil for none.
    ///   - fieldViolations: `BadRequest` entries.
    ///   - errorInfo: An `ErrorInfo` entry.
    public init(
        httpStatus: Int, status: String, message: String, errorCode: String? = nil,
        fieldViolations: [FieldViolation] = [], errorInfo: ErrorInfo? = nil
    ) {
        self.httpStatus = httpStatus
        self.status = status
        self.message = message
        self.errorCode = errorCode
        self.fieldViolations = fieldViolations
        self.errorInfo = errorInfo
    }

    /// The name a fault names this answer by: the `FcmError` code, else the `ErrorInfo` reason, else `status`.
    public var code: String { errorCode ?? errorInfo?.reason ?? status }

    // MARK: FCM's error codes (Google: FCM HTTP v1 `ErrorCode`, with the HTTP status FCM pairs it with)

    /// 404 `UNREGISTERED`: the token was valid once and is gone (app uninstalled, token deleted or expired).
    public static let unregistered = FCMSandboxRejection(
        httpStatus: 404, status: "NOT_FOUND",
        message: "Requested entity was not found.",
        errorCode: "UNREGISTERED")
    /// 403 `SENDER_ID_MISMATCH`: the token belongs to another Firebase project than the request path's.
    public static let senderIDMismatch = FCMSandboxRejection(
        httpStatus: 403, status: "PERMISSION_DENIED",
        message: "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH")
    /// 429 `QUOTA_EXCEEDED`: too many messages (for the project, the device or a topic); FCM may add
    /// `Retry-After`.
    public static let quotaExceeded = FCMSandboxRejection(
        httpStatus: 429, status: "RESOURCE_EXHAUSTED",
        message: "Quota exceeded for sending messages.",
        errorCode: "QUOTA_EXCEEDED")
    /// 503 `UNAVAILABLE`: FCM is overloaded; retry with backoff (or after `Retry-After`).
    public static let unavailable = FCMSandboxRejection(
        httpStatus: 503, status: "UNAVAILABLE",
        message: "The service is currently unavailable.",
        errorCode: "UNAVAILABLE")
    /// 500 `INTERNAL`: an unknown error inside FCM; retry with backoff.
    public static let `internal` = FCMSandboxRejection(
        httpStatus: 500, status: "INTERNAL",
        message: "Internal error encountered.", errorCode: "INTERNAL")
    /// 401 `THIRD_PARTY_AUTH_ERROR`: the APNs certificate or web-push key of the Firebase project is wrong.
    public static let thirdPartyAuthError = FCMSandboxRejection(
        httpStatus: 401, status: "UNAUTHENTICATED",
        message: "Auth error from APNS or Web Push Service",
        errorCode: "THIRD_PARTY_AUTH_ERROR")

    /// 400 `INVALID_ARGUMENT` from FCM's checks, with a field violation when one field is to blame.
    /// - Parameters:
    ///   - message: The `message` text.
    ///   - field: The field at fault, e.g. `message.token`; nil for none.
    ///   - description: The violation's description (defaults to `message`).
    /// - Returns: The rejection, with the `FcmError` entry `INVALID_ARGUMENT`.
    public static func invalidArgument(
        _ message: String = "Request contains an invalid argument.", field: String? = nil,
        description: String? = nil
    ) -> FCMSandboxRejection {
        FCMSandboxRejection(
            httpStatus: 400, status: "INVALID_ARGUMENT", message: message, errorCode: "INVALID_ARGUMENT",
            fieldViolations: field.map { [FieldViolation(field: $0, description: description ?? message)] } ?? [])
    }

    /// 400 `INVALID_ARGUMENT` naming `message.token`: the token is not one FCM ever issued. Only this answer
    /// tells a sender to drop the token.
    public static let invalidRegistrationToken = invalidArgument(
        "The registration token is not a valid FCM registration token", field: "message.token",
        description: "Invalid registration token")

    /// 400 `INVALID_ARGUMENT` from the JSON parser in front of FCM (Google's API front end): the body does
    /// not fit the `SendMessageRequest` schema. No `FcmError` entry, one `BadRequest` violation.
    /// - Parameters:
    ///   - message: e.g. `Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), "abc"`.
    ///   - field: The field at fault, e.g. `message.android.ttl`.
    /// - Returns: The rejection.
    public static func invalidJSON(_ message: String, field: String) -> FCMSandboxRejection {
        FCMSandboxRejection(
            httpStatus: 400, status: "INVALID_ARGUMENT", message: message,
            fieldViolations: [FieldViolation(field: field, description: message)])
    }

    // MARK: Refusals before FCM (no FcmError entry)

    /// 401 `UNAUTHENTICATED` for an access token that is unknown, malformed or expired.
    public static let unauthenticated = FCMSandboxRejection(
        httpStatus: 401, status: "UNAUTHENTICATED",
        message: "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or "
            + "other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
    )

    /// 401 `UNAUTHENTICATED` for a request without `authorization: Bearer …`.
    public static let missingCredentials = FCMSandboxRejection(
        httpStatus: 401, status: "UNAUTHENTICATED",
        message: "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie "
            + "or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
    )

    /// 403 `PERMISSION_DENIED` for an access token granted without a scope that covers FCM
    /// (`firebase.messaging` or `cloud-platform`).
    public static let insufficientScopes = FCMSandboxRejection(
        httpStatus: 403, status: "PERMISSION_DENIED", message: "Request had insufficient authentication scopes.",
        errorInfo: ErrorInfo(
            reason: "ACCESS_TOKEN_SCOPE_INSUFFICIENT",
            metadata: [
                "service": "fcm.googleapis.com",
                "method": "google.firebase.fcm.v1.FcmService.SendMessage",
            ]))

    /// 403 `PERMISSION_DENIED` for a service account with no access to the project of the request path.
    /// - Parameter project: The project id of the path.
    /// - Returns: The rejection, with an `ErrorInfo` entry `IAM_PERMISSION_DENIED`.
    public static func permissionDenied(project: String) -> FCMSandboxRejection {
        FCMSandboxRejection(
            httpStatus: 403, status: "PERMISSION_DENIED",
            message: "Permission 'cloudmessaging.messages.create' denied on resource "
                + "'//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).",
            errorInfo: ErrorInfo(
                reason: "IAM_PERMISSION_DENIED", domain: "iam.googleapis.com",
                metadata: [
                    "permission": "cloudmessaging.messages.create",
                    "resource": "projects/\(project)",
                ]))
    }

    /// 403 `PERMISSION_DENIED` for a project whose Firebase Cloud Messaging API is disabled.
    /// - Parameter project: The project id of the path.
    /// - Returns: The rejection, with an `ErrorInfo` entry `SERVICE_DISABLED`.
    public static func serviceDisabled(project: String) -> FCMSandboxRejection {
        FCMSandboxRejection(
            httpStatus: 403, status: "PERMISSION_DENIED",
            message: "Firebase Cloud Messaging API has not been used in project \(project) before or it is disabled. "
                + "Enable it by visiting https://console.developers.google.com/apis/api/fcm.googleapis.com/overview?project="
                + "\(project) then retry. If you enabled this API recently, wait a few minutes for the action to "
                + "propagate to our systems and retry.",
            errorInfo: ErrorInfo(
                reason: "SERVICE_DISABLED",
                metadata: ["consumer": "projects/\(project)", "service": "fcm.googleapis.com"]))
    }

    /// 404 `NOT_FOUND` without an `FcmError` entry, for a path or method the API does not have.
    public static let noSuchMethod = FCMSandboxRejection(
        httpStatus: 404, status: "NOT_FOUND",
        message: "The requested URL was not found on this server.")

    /// The answers a fault may name, by ``code``: the FCM error codes, plus `UNAUTHENTICATED` (a rejected
    /// access token) and `SERVICE_DISABLED` (a disabled API; its project is shown as `project`).
    /// - Parameter code: e.g. `QUOTA_EXCEEDED`.
    /// - Returns: nil for a name the sandbox does not know.
    public init?(code: String) {
        switch code {
        case "INVALID_ARGUMENT": self = .invalidArgument()
        case "UNREGISTERED": self = .unregistered
        case "SENDER_ID_MISMATCH": self = .senderIDMismatch
        case "QUOTA_EXCEEDED": self = .quotaExceeded
        case "UNAVAILABLE": self = .unavailable
        case "INTERNAL": self = .internal
        case "THIRD_PARTY_AUTH_ERROR": self = .thirdPartyAuthError
        case "UNAUTHENTICATED": self = .unauthenticated
        case "SERVICE_DISABLED": self = .serviceDisabled(project: "project")
        default: return nil
        }
    }

    /// The JSON body: `{"error": {"code", "message", "status", "details": [...]}}`, `details` only when there
    /// are entries (the `FcmError` first, then `BadRequest`, then `ErrorInfo`).
    public var body: [UInt8] {
        var details: [[String: Any]] = []
        if let errorCode {
            details.append(["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": errorCode])
        }
        if !fieldViolations.isEmpty {
            details.append([
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": fieldViolations.map { violation -> [String: String] in
                    // The JSON parser's complaints about the body as a whole name no field.
                    violation.field.isEmpty
                        ? ["description": violation.description]
                        : ["field": violation.field, "description": violation.description]
                },
            ])
        }
        if let errorInfo {
            details.append([
                "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": errorInfo.reason,
                "domain": errorInfo.domain, "metadata": errorInfo.metadata,
            ])
        }
        var error: [String: Any] = ["code": httpStatus, "message": message, "status": status]
        if !details.isEmpty { error["details"] = details }
        let data =
            (try? JSONSerialization.data(
                withJSONObject: ["error": error],
                options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return Array(data)
    }
}
