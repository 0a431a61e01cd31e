/// The stable `type` URIs of Ringer's problem+json errors. Apps branch on these.
public struct ProblemType: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string is accepted, so values added by a newer server still decode.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates the URI `https://ringer.dev/problems/<slug>`.
    public init(slug: String) { self.rawValue = "https://ringer.dev/problems/" + slug }

    /// 400: the body is not JSON, or a field is missing or of the wrong type.
    public static let malformedRequest = ProblemType(slug: "malformed-request")
    /// 422: the JSON is well formed but a value is not acceptable (bad token, unknown platform…).
    public static let invalidField = ProblemType(slug: "invalid-field")
    /// 401: no credentials, or an invalid or expired token.
    public static let unauthorized = ProblemType(slug: "unauthorized")
    /// 403: authenticated, but not allowed to do this (the wrong side of the call: a callee cancelling).
    public static let forbidden = ProblemType(slug: "forbidden")
    /// 403: an API key without the scope the route needs (RFC 6750 §3.1 `insufficient_scope`; decision 0009 §1).
    public static let insufficientScope = ProblemType(slug: "insufficient-scope")
    /// 404: no API key with this id (never made, or revoked).
    public static let apiKeyNotFound = ProblemType(slug: "api-key-not-found")
    /// 404: no webhook endpoint with this id.
    public static let webhookEndpointNotFound = ProblemType(slug: "webhook-endpoint-not-found")
    /// 404: the endpoint has no delivery with this id.
    public static let webhookDeliveryNotFound = ProblemType(slug: "webhook-delivery-not-found")
    /// 404: no push provider with this id.
    public static let pushProviderNotFound = ProblemType(slug: "push-provider-not-found")
    /// 409: the endpoint is disabled: enable it before redelivering to it.
    public static let webhookEndpointDisabled = ProblemType(slug: "webhook-endpoint-disabled")
    /// 409: the server keeps no secret without `--secrets-key`: webhook endpoints cannot be made or rotated.
    public static let secretsKeyRequired = ProblemType(slug: "secrets-key-required")
    /// 404: no such route.
    public static let notFound = ProblemType(slug: "not-found")
    /// 404: the callee user is unknown.
    public static let userNotFound = ProblemType(slug: "user-not-found")
    /// 404: the call does not exist or the user is not one of its participants.
    public static let callNotFound = ProblemType(slug: "call-not-found")
    /// 422: the device id is not registered to the acting user.
    public static let unknownDevice = ProblemType(slug: "unknown-device")
    /// 422: a user cannot call themselves.
    public static let selfCall = ProblemType(slug: "self-call")
    /// 405: the route exists but not with this method.
    public static let methodNotAllowed = ProblemType(slug: "method-not-allowed")
    /// 409: too late for this action; `call_state` says where the call is now.
    public static let callStateConflict = ProblemType(slug: "call-state-conflict")
    /// 409: another device of this user answered first.
    public static let answeredElsewhere = ProblemType(slug: "answered-elsewhere")
    /// 422: a group call's `callees` names a user twice; `callees` lists them.
    public static let duplicateCallee = ProblemType(slug: "duplicate-callee")
    /// 422: a group call would have more callees than the server's `--max-callees-per-call`.
    public static let tooManyCallees = ProblemType(slug: "too-many-callees")
    /// 409: a ring-more names a callee whose leg of this call already ended: their phone remembers the call as
    /// over and would not ring it again; `callees` lists them. Place a new call instead.
    public static let calleeAlreadyRung = ProblemType(slug: "callee-already-rung")
    /// 413: the request body is too large.
    public static let payloadTooLarge = ProblemType(slug: "payload-too-large")
    /// 408: the request body did not arrive within the server's request deadline.
    public static let requestTimeout = ProblemType(slug: "request-timeout")
    /// 431: the request's header fields are larger than the server accepts.
    public static let headersTooLarge = ProblemType(slug: "headers-too-large")
    /// 411: an HTTP/1.1 request sent its body with `Transfer-Encoding` and no `Content-Length`; send the length.
    public static let lengthRequired = ProblemType(slug: "length-required")
    /// 501: the HTTP method is not one the server implements (TRACE, QUERY...).
    public static let methodNotImplemented = ProblemType(slug: "method-not-implemented")
    /// 429: the user already holds as many event sockets as the server allows.
    public static let tooManySockets = ProblemType(slug: "too-many-sockets")
    /// 429: a rate limit refused the request (calls per caller, calls to one callee, device changes, failed
    /// authentications, unknown callees); `Retry-After` gives the seconds to wait and the detail names the limit.
    public static let rateLimited = ProblemType(slug: "rate-limited")
    /// 500: the server failed; nothing was changed.
    public static let internalError = ProblemType(slug: "internal-error")
    /// 503: a dependency (database) is unavailable.
    public static let unavailable = ProblemType(slug: "unavailable")
    /// 426: a plain HTTP request to the WebSocket event stream.
    public static let upgradeRequired = ProblemType(slug: "upgrade-required")
}
