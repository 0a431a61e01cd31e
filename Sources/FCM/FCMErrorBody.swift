import Foundation

/// The `error` object of an FCM error answer: a `google.rpc.Status` in its JSON form (Google: "FCM HTTP v1
/// API: error handling"; "Cloud APIs: Errors").
///
/// `{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[
/// {"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}`.
/// Read leniently: a field of the wrong type is left out, never a reason to lose the rest.
public struct FCMErrorBody: Sendable, Hashable {
    /// One `BadRequest.fieldViolations` entry: which request field FCM refused, and why.
    public struct FieldViolation: Sendable, Hashable {
        /// The field's path in the request, e.g. `message.token`, `message.data[0].value`.
        public var field: String
        /// Google's explanation, e.g. `Invalid registration token`.
        public var description: String

        /// Creates a violation.
        public init(field: String, description: String) {
            self.field = field
            self.description = description
        }
    }

    /// `@type` of the detail that carries the FCM error code.
    public static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    /// `@type` of the detail that lists field violations.
    public static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"
    /// `@type` of the detail that names a reason such as `SERVICE_DISABLED`.
    public static let errorInfoType = "type.googleapis.com/google.rpc.ErrorInfo"

    /// `error.code`: the HTTP status again (Google's JSON mapping).
    public var code: Int?
    /// `error.status`: the canonical status name, e.g. `NOT_FOUND`, `UNAUTHENTICATED`, `PERMISSION_DENIED`.
    public var status: String?
    /// `error.message`: Google's text for people. It may quote parts of the request (a field's value), so it
    /// is for logs of Ringer's own data, not for secrets: Ringer never sends secrets in a message.
    public var message: String?
    /// The `errorCode` of the first `FcmError` detail; nil when there is none (a 401 for a bad access token,
    /// a 403 for a disabled API).
    public var fcmErrorCode: FCMErrorCode?
    /// Every `BadRequest` detail's field violations, in order.
    public var fieldViolations: [FieldViolation]
    /// The `reason` of the first `ErrorInfo` detail, e.g. `SERVICE_DISABLED`.
    public var errorInfoReason: String?

    /// Creates an error body.
    public init(
        code: Int? = nil, status: String? = nil, message: String? = nil, fcmErrorCode: FCMErrorCode? = nil,
        fieldViolations: [FieldViolation] = [], errorInfoReason: String? = nil
    ) {
        self.code = code
        self.status = status
        self.message = message
        self.fcmErrorCode = fcmErrorCode
        self.fieldViolations = fieldViolations
        self.errorInfoReason = errorInfoReason
    }

    /// Reads the `error` member of an answer body.
    /// - Parameter body: the whole answer body.
    /// - Returns: nil when the body is not a JSON object with an `error` object.
    init?(body: [UInt8]) {
        guard !body.isEmpty,
            let root = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let error = root["error"] as? [String: Any]
        else {
            return nil
        }
        code = (error["code"] as? NSNumber)?.intValue
        status = Self.nonEmpty(error["status"])
        message = Self.nonEmpty(error["message"])
        fieldViolations = []
        for detail in error["details"] as? [[String: Any]] ?? [] {
            switch detail["@type"] as? String {
            case Self.fcmErrorType?:
                if fcmErrorCode == nil, let text = Self.nonEmpty(detail["errorCode"]) {
                    fcmErrorCode = FCMErrorCode(rawValue: text)
                }
            case Self.badRequestType?:
                for violation in detail["fieldViolations"] as? [[String: Any]] ?? [] {
                    guard let field = violation["field"] as? String else { continue }
                    fieldViolations.append(
                        FieldViolation(
                            field: field,
                            description: violation["description"] as? String ?? ""))
                }
            case Self.errorInfoType?:
                if errorInfoReason == nil { errorInfoReason = Self.nonEmpty(detail["reason"]) }
            default:
                continue
            }
        }
    }

    /// The FCM error code: the `FcmError` detail's, else `error.status` read as one (so `INVALID_ARGUMENT`,
    /// `UNAVAILABLE`, `INTERNAL` are found without a detail; other statuses become ``FCMErrorCode/unknown(_:)``).
    public var errorCode: FCMErrorCode? {
        fcmErrorCode ?? status.map(FCMErrorCode.init(rawValue:))
    }

    private static func nonEmpty(_ value: Any?) -> String? {
        guard let text = value as? String, !text.isEmpty else { return nil }
        return text
    }
}
