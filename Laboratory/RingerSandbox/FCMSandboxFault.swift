public import Foundation

/// A misbehaviour the FCM sandbox applies to requests, so a client can be tested against what FCM and
/// Google's token endpoint do on a bad day. Control routes (`/sandbox/…`) are never affected.
///
/// A fault applies to `messages:send` (optionally only for one registration token) or to the token
/// endpoint, and is used up after ``count`` matching requests (nil: until cleared). When several match, the
/// oldest applies. A plain value.
public struct FCMSandboxFault: Sendable, Hashable, Codable {
    /// What the sandbox does with a matching request.
    public enum Behavior: Sendable, Hashable {
        /// Answer at once with this rejection (its HTTP status and Google's body), and `Retry-After: <seconds>`
        /// when `retryAfter` is set, without checking or accepting the request.
        case answer(FCMSandboxRejection, retryAfter: Int? = nil)
        /// Wait this many seconds, then handle the request as usual (dropped unprocessed if the client or
        /// connection goes away meanwhile, on the HTTP/2 port).
        case delay(seconds: TimeInterval)
        /// Never answer. The request is held until the client gives up, its connection closes or the sandbox
        /// stops (on the HTTP/1.1 port, libwebsockets closes the connection after ``FCMSandbox/Configuration/http1RequestTimeout``).
        case neverAnswer
        /// Cut the request's connection without an answer (TCP close, no GOAWAY): on the HTTP/2 port the
        /// connection it came on, with any other requests on it; on the HTTP/1.1 port its connection (over
        /// libwebsockets' HTTP/2, its stream).
        case closeConnection
    }

    /// Which requests a fault may match.
    public enum Endpoint: String, Sendable, Hashable, Codable {
        /// `POST /v1/projects/{project}/messages:send`.
        case send
        /// `POST /token` (the OAuth 2.0 token endpoint).
        case token
    }

    /// What happens to a matching request.
    public var behavior: Behavior
    /// The endpoint it applies to.
    public var endpoint: Endpoint
    /// The registration token it applies to (`message.token` of a send); nil for every request of the endpoint.
    public var registrationToken: String?
    /// How many matching requests it still affects; nil until cleared.
    public var count: Int?

    /// Creates a fault.
    /// - Parameters:
    ///   - behavior: what happens to a matching request.
    ///   - endpoint: `messages:send` (default) or the token endpoint. An answer on the token endpoint carries
    ///     the same `google.rpc.Status` body (Google documents no body for its token endpoint's 5xx).
    ///   - registrationToken: only sends to this token; nil for all. Ignored for the token endpoint.
    ///   - count: how many requests it affects (default 1); nil until cleared. Values below 1 count as 1.
    public init(_ behavior: Behavior, endpoint: Endpoint = .send, registrationToken: String? = nil, count: Int? = 1) {
        self.behavior = behavior
        self.endpoint = endpoint
        self.registrationToken = endpoint == .send ? registrationToken : nil
        self.count = count.map { max($0, 1) }
    }

    /// True when the fault applies to a request of `endpoint` (for a send, to `token`, its `message.token`).
    func matches(endpoint: Endpoint, token: String?) -> Bool {
        self.endpoint == endpoint && (registrationToken == nil || registrationToken == token)
    }

    // MARK: Codable: the JSON of `POST /sandbox/faults` (docs in FCMSandboxControl)

    private enum CodingKeys: String, CodingKey {
        case kind, code
        case retryAfter = "retry_after"
        case field, description, seconds, endpoint, token, count, persistent
    }

    /// Decodes `{"kind": "answer"|"delay"|"never_answer"|"close", "code", "retry_after", "field", "description",
    /// "seconds", "endpoint": "send"|"token", "token", "count", "persistent"}`. `code` is a name
    /// ``FCMSandboxRejection/init(code:)`` knows; `field` (with optional `description`) adds a `BadRequest`
    /// violation to an `INVALID_ARGUMENT`. `count` defaults to 1; `"persistent": true` lasts until cleared.
    /// - Throws: `DecodingError` for an unknown kind or code, a negative delay or `retry_after`, a `field` on
    ///   another code.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .kind) {
        case "answer":
            let code = try container.decode(String.self, forKey: .code)
            guard var rejection = FCMSandboxRejection(code: code) else {
                throw DecodingError.dataCorruptedError(forKey: .code, in: container, debugDescription: "unknown code")
            }
            if let field = try container.decodeIfPresent(String.self, forKey: .field) {
                guard code == "INVALID_ARGUMENT" else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .field, in: container,
                        debugDescription: "only INVALID_ARGUMENT names a field")
                }
                let description = try container.decodeIfPresent(String.self, forKey: .description)
                rejection =
                    field == "message.token" && description == nil
                    ? .invalidRegistrationToken
                    : .invalidArgument(field: field, description: description)
            }
            let retryAfter = try container.decodeIfPresent(Int.self, forKey: .retryAfter)
            if let retryAfter, retryAfter < 0 {
                throw DecodingError.dataCorruptedError(
                    forKey: .retryAfter, in: container, debugDescription: "retry_after must be >= 0")
            }
            behavior = .answer(rejection, retryAfter: retryAfter)
        case "delay":
            let seconds = try container.decode(Double.self, forKey: .seconds)
            guard seconds >= 0, seconds.isFinite else {
                throw DecodingError.dataCorruptedError(
                    forKey: .seconds, in: container, debugDescription: "seconds must be >= 0")
            }
            behavior = .delay(seconds: seconds)
        case "never_answer":
            behavior = .neverAnswer
        case "close":
            behavior = .closeConnection
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container,
                debugDescription: "kind must be answer, delay, never_answer or close")
        }
        endpoint = try container.decodeIfPresent(Endpoint.self, forKey: .endpoint) ?? .send
        registrationToken = endpoint == .send ? try container.decodeIfPresent(String.self, forKey: .token) : nil
        let persistent = try container.decodeIfPresent(Bool.self, forKey: .persistent) ?? false
        count = persistent ? nil : max(try container.decodeIfPresent(Int.self, forKey: .count) ?? 1, 1)
    }

    /// Encodes the shape `init(from:)` reads (an answer by its ``FCMSandboxRejection/code``, and its field
    /// violation if any).
    /// - Throws: `EncodingError` from the encoder.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch behavior {
        case .answer(let rejection, let retryAfter):
            try container.encode("answer", forKey: .kind)
            try container.encode(rejection.code, forKey: .code)
            if let violation = rejection.fieldViolations.first {
                try container.encode(violation.field, forKey: .field)
                try container.encode(violation.description, forKey: .description)
            }
            try container.encodeIfPresent(retryAfter, forKey: .retryAfter)
        case .delay(let seconds):
            try container.encode("delay", forKey: .kind)
            try container.encode(seconds, forKey: .seconds)
        case .neverAnswer:
            try container.encode("never_answer", forKey: .kind)
        case .closeConnection:
            try container.encode("close", forKey: .kind)
        }
        try container.encode(endpoint, forKey: .endpoint)
        try container.encodeIfPresent(registrationToken, forKey: .token)
        if let count {
            try container.encode(count, forKey: .count)
        } else {
            try container.encode(true, forKey: .persistent)
        }
    }
}
