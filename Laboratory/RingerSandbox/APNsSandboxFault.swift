public import Foundation

/// A misbehaviour the APNs sandbox applies to push requests (`POST /3/device/<token>`), so a client can be
/// tested against what APNs does on a bad day. Control routes (`/sandbox/…`) are never affected.
///
/// A fault matches one device token or every push, and is used up after ``count`` matching requests
/// (nil: until cleared). When several faults match, the oldest one applies. A plain value.
public struct APNsSandboxFault: Sendable, Hashable, Codable {
    /// What the sandbox does with a matching push.
    public enum Behavior: Sendable, Hashable {
        /// Answer at once with this status and `{"reason": …}` (no body when `reason` is nil), without
        /// checking or accepting the push. E.g. `.answer(status: 503, reason: "ServiceUnavailable")`.
        case answer(status: Int, reason: String?)
        /// Wait this many seconds, then handle the push as usual. If the stream or connection goes away
        /// meanwhile the push is dropped unprocessed, as a server that never got to it would.
        case delay(seconds: TimeInterval)
        /// Never answer; the push is not accepted. The stream stays open until the client resets it or
        /// the connection closes.
        case neverAnswer
    }

    /// What happens to a matching push.
    public var behavior: Behavior
    /// The device token (hex, any case) it applies to; nil for every push.
    public var deviceToken: String?
    /// How many matching pushes it still affects; nil until cleared.
    public var count: Int?

    /// Creates a fault.
    /// - Parameters:
    ///   - behavior: what happens to a matching push.
    ///   - deviceToken: the token it applies to; nil for every push.
    ///   - count: how many pushes it affects (default 1: one-shot); nil until cleared. Values below 1 count as 1.
    public init(_ behavior: Behavior, deviceToken: String? = nil, count: Int? = 1) {
        self.behavior = behavior
        self.deviceToken = deviceToken?.lowercased()
        self.count = count.map { max($0, 1) }
    }

    /// True when the fault applies to a push for `token` (lowercase hex).
    func matches(token: String) -> Bool {
        deviceToken == nil || deviceToken == token
    }

    // MARK: Codable: the JSON of `POST /sandbox/faults` (docs in SandboxControl).

    private enum CodingKeys: String, CodingKey {
        case kind, status, reason, seconds, token, count, persistent
    }

    /// Decodes `{"kind": "answer"|"delay"|"never_answer", "status", "reason", "seconds", "token", "count",
    /// "persistent"}`; `count` defaults to 1, `"persistent": true` lasts until cleared.
    /// - Throws: `DecodingError` for an unknown kind, a status outside 200…599 or a negative delay.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        switch kind {
        case "answer":
            let status = try container.decode(Int.self, forKey: .status)
            guard (200...599).contains(status) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .status, in: container, debugDescription: "status must be 200...599")
            }
            behavior = .answer(status: status, reason: try container.decodeIfPresent(String.self, forKey: .reason))
        case "delay":
            let seconds = try container.decode(Double.self, forKey: .seconds)
            guard seconds >= 0, seconds.isFinite else {
                throw DecodingError.dataCorruptedError(
                    forKey: .seconds, in: container, debugDescription: "seconds must be >= 0")
            }
            behavior = .delay(seconds: seconds)
        case "never_answer":
            behavior = .neverAnswer
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container,
                debugDescription: "kind must be answer, delay or never_answer")
        }
        deviceToken = try container.decodeIfPresent(String.self, forKey: .token)?.lowercased()
        let persistent = try container.decodeIfPresent(Bool.self, forKey: .persistent) ?? false
        count = persistent ? nil : max(try container.decodeIfPresent(Int.self, forKey: .count) ?? 1, 1)
    }

    /// Encodes the same shape `init(from:)` reads.
    /// - Throws: `EncodingError` from the encoder.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch behavior {
        case .answer(let status, let reason):
            try container.encode("answer", forKey: .kind)
            try container.encode(status, forKey: .status)
            try container.encodeIfPresent(reason, forKey: .reason)
        case .delay(let seconds):
            try container.encode("delay", forKey: .kind)
            try container.encode(seconds, forKey: .seconds)
        case .neverAnswer:
            try container.encode("never_answer", forKey: .kind)
        }
        try container.encodeIfPresent(deviceToken, forKey: .token)
        if let count {
            try container.encode(count, forKey: .count)
        } else {
            try container.encode(true, forKey: .persistent)
        }
    }
}

/// A misbehaviour of the sandbox's HTTP/2 connections, applied by its ``HTTP2Server``'s hooks.
public enum APNsSandboxConnectionFault: Sendable, Hashable {
    /// Each connection sends GOAWAY (NO_ERROR) once it has served `afterStreams` requests, naming the last
    /// one as last-stream-id (RFC 9113 §6.8); later streams on it are refused and never processed. Wears off
    /// after `connections` connections did so (nil: lasts until cleared).
    case goAway(afterStreams: Int, connections: Int? = 1)
    /// Advertises SETTINGS_MAX_CONCURRENT_STREAMS = `limit` (0 or more) to open and new connections, until
    /// cleared (the default is 1000).
    case maxConcurrentStreams(Int)
    /// Cuts a connection (TCP close, no GOAWAY) when its request number `afterStreams + 1` arrives; that
    /// request is never processed, and requests still being handled get no answer. Wears off after
    /// `connections` connections were cut (nil: lasts until cleared).
    case close(afterStreams: Int, connections: Int? = 1)
    /// Cuts every open connection now (TCP close, no GOAWAY); the sandbox keeps accepting new ones.
    case closeNow
}
