public import Foundation

/// What an API key may do (docs/openapi.yaml `components/schemas/APIKeyScope`). The admin key holds every scope.
public struct APIKeyScope: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string decodes, and the server refuses one it does not know.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Place, cancel and end calls (`POST /v1/server/calls…`).
    public static let callsWrite: APIKeyScope = "calls:write"
    /// Read one call and list calls (`GET /v1/server/calls…`).
    public static let callsRead: APIKeyScope = "calls:read"
    /// Mint user tokens (`POST /v1/tokens`).
    public static let tokensWrite: APIKeyScope = "tokens:write"
    /// Manage webhook endpoints and their deliveries (`/v1/webhooks…`).
    public static let webhooksWrite: APIKeyScope = "webhooks:write"

    /// Every scope the server knows, in the order the docs list them.
    public static let known: [APIKeyScope] = [.callsWrite, .callsRead, .tokensWrite, .webhooksWrite]
}

/// `POST /v1/api-keys` (admin key): a key for the app's backend.
public struct CreateAPIKeyRequest: Codable, Sendable {
    /// What the key is for, shown in lists (1–64 characters).
    public var name: String
    /// What it may do: at least one, each one of ``APIKeyScope/known``.
    public var scopes: [APIKeyScope]

    /// Creates the request body.
    public init(name: String, scopes: [APIKeyScope]) {
        self.name = name
        self.scopes = scopes
    }
}

/// An API key as listed: never its secret.
public struct APIKeyInfo: Codable, Hashable, Sendable {
    /// The key's id, the part of the key after `rk_` and before the secret.
    public var keyID: String
    /// What the key is for.
    public var name: String
    /// What it may do, in ``APIKeyScope/known`` order.
    public var scopes: [APIKeyScope]
    /// When it was created.
    public var createdAt: Date
    /// When a request last used it (to the minute: written at most once a minute); nil when never.
    public var lastUsedAt: Date?

    /// Creates the record.
    public init(keyID: String, name: String, scopes: [APIKeyScope], createdAt: Date, lastUsedAt: Date? = nil) {
        self.keyID = keyID
        self.name = name
        self.scopes = scopes
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// The keys as the wire spells them (`key_id`, not `key_i_d`).
    private enum CodingKeys: String, CodingKey {
        case name, scopes, createdAt, lastUsedAt
        case keyID = "keyId"
    }
}

/// The answer to `POST /v1/api-keys`: the key, the only time the server shows it, with its record.
public struct CreatedAPIKey: Codable, Sendable {
    /// `rk_<key id>_<secret>`, for `Authorization: Bearer`.
    public var key: String
    /// The key's record, as `GET /v1/api-keys` lists it.
    public var info: APIKeyInfo

    /// Creates the answer.
    public init(key: String, info: APIKeyInfo) {
        self.key = key
        self.info = info
    }

    public init(from decoder: any Decoder) throws {
        key = try decoder.container(keyedBy: KeyCodingKey.self).decode(
            String.self, forKey: KeyCodingKey(stringValue: "key"))
        info = try APIKeyInfo(from: decoder)
    }

    /// One flat object: the record's fields and `key`.
    public func encode(to encoder: any Encoder) throws {
        try info.encode(to: encoder)
        var container = encoder.container(keyedBy: KeyCodingKey.self)
        try container.encode(key, forKey: KeyCodingKey(stringValue: "key"))
    }

    private struct KeyCodingKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// The answer to `GET /v1/api-keys`.
public struct APIKeyList: Codable, Sendable {
    /// Every key, oldest first.
    public var apiKeys: [APIKeyInfo]

    /// Creates the answer.
    public init(apiKeys: [APIKeyInfo]) { self.apiKeys = apiKeys }
}

/// `POST /v1/server/calls` (an API key with `calls:write`): the app's backend places a call on behalf of a user, with
/// everything a user's own `POST /v1/calls` takes (``CreateCallRequest``) and who the caller is.
public struct ServerCallRequest: Codable, Sendable {
    /// The user the call is from; created if the server has not seen them (a dashboard's user may have no app).
    public var callerID: String
    /// The caller's display name, shown on the callees' phones; the stored one when absent.
    public var callerName: String?
    /// The callee's user id: a 1:1 call.
    public var callee: String?
    /// The callees' user ids: a group call.
    public var callees: [String]?
    /// What an answer does in a group call.
    public var answerPolicy: AnswerPolicy?
    /// Whether to ask for video.
    public var hasVideo: Bool?
    /// Whether a busy callee is rung as a waiting call.
    public var callWaiting: Bool?

    /// Creates the body of a 1:1 call.
    public init(callerID: String, callerName: String? = nil, callee: String, hasVideo: Bool? = nil) {
        self.callerID = callerID
        self.callerName = callerName
        self.callee = callee
        self.hasVideo = hasVideo
    }

    /// The user's own request this one stands for.
    public var callRequest: CreateCallRequest {
        var request = CreateCallRequest(callee: callee ?? "", hasVideo: hasVideo, callWaiting: callWaiting)
        request.callee = callee
        request.callees = callees
        request.answerPolicy = answerPolicy
        return request
    }

    /// The keys as the wire spells them (`caller_id`, not `caller_i_d`).
    private enum CodingKeys: String, CodingKey {
        case callerName, callee, callees, answerPolicy, hasVideo, callWaiting
        case callerID = "callerId"
    }
}

/// The answer to `GET /v1/server/calls`: a page of calls, newest first.
public struct ServerCallList: Codable, Sendable {
    /// The calls of the page that match the query; a page may hold fewer than `limit` (even none) while
    /// ``nextCursor`` says more calls remain to be looked through.
    public var calls: [Call]
    /// Where the next page starts: pass it as `cursor`. Absent when no call is left.
    public var nextCursor: String?

    /// Creates the answer.
    public init(calls: [Call], nextCursor: String? = nil) {
        self.calls = calls
        self.nextCursor = nextCursor
    }
}
