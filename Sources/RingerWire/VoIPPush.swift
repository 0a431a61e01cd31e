import Foundation

/// The payload of a VoIP push (docs/openapi.yaml `components/schemas/VoIPPush`):
/// `{"ringer":{"v":1,"type":"call.incoming","call_id":…,"caller":{…},"callee_id":"bob","has_video":false,"sent_at":…,"expires_at":…}}`.
///
/// Times are milliseconds since 1970. The app must report a call to CallKit for every VoIP push,
/// even one it cannot parse (Apple: PushKit "On iOS 13 and later, you must report the call to CallKit").
public struct VoIPPush: Codable, Hashable, Sendable {
    /// The Ringer-specific body, under the `ringer` key so the app's own keys never clash.
    public var ringer: Body

    /// Creates the payload.
    public init(ringer: Body) { self.ringer = ringer }

    /// The fields of a Ringer VoIP push.
    public struct Body: Codable, Hashable, Sendable {
        /// Payload version; this is version 1.
        public var v: Int
        /// Always ``EventType/callIncoming`` for a VoIP push.
        public var type: EventType
        /// The call id, a lowercase UUID; also the CallKit UUID.
        public var callID: String
        /// Who is calling.
        public var caller: Party
        /// The user being called. A phone whose logged-in user changed since the push was sent (a token
        /// re-registered to someone else while the push was in flight) must not ring for it. Optional:
        /// absent in payloads from servers before it was added.
        public var calleeID: String?
        /// Whether the caller asked for video.
        public var hasVideo: Bool
        /// When the server sent the push, ms since 1970.
        public var sentAt: Int64
        /// The ring deadline, ms since 1970: a push read after it is stale and must not ring. In a group call, the
        /// recipient's own leg's deadline.
        public var expiresAt: Int64
        /// Present for a group call only: how many were rung and some of the others, so the phone can show "Alice
        /// and 2 others" (decision 0007 §6). Absent from 1:1 pushes, whose bytes are unchanged.
        public var group: Group?
        /// True when the recipient is in another answered call: this one rings as a waiting call (decision 0008 §3).
        /// Absent otherwise, so other pushes' bytes are unchanged.
        public var waiting: Bool?

        /// Creates the body.
        public init(
            v: Int = 1, type: EventType = .callIncoming, callID: String, caller: Party, calleeID: String? = nil,
            hasVideo: Bool, sentAt: Int64, expiresAt: Int64, group: Group? = nil, waiting: Bool? = nil
        ) {
            self.v = v
            self.type = type
            self.callID = callID
            self.caller = caller
            self.calleeID = calleeID
            self.hasVideo = hasVideo
            self.sentAt = sentAt
            self.expiresAt = expiresAt
            self.group = group
            self.waiting = waiting
        }

        /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
        /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
        private enum CodingKeys: String, CodingKey {
            case v, type, caller, hasVideo, sentAt, expiresAt, group, waiting
            case callID = "callId"
            case calleeID = "calleeId"
        }
    }

    /// The `group` of a group call's ringing push: `{"count":3,"others":[{"id":"carol","name":"Carol"}]}`.
    public struct Group: Codable, Hashable, Sendable {
        /// The callees rung in the call, the recipient included (so "Alice and `count - 1` others" is exact even
        /// when ``others`` was cut short to fit the payload).
        public var count: Int
        /// Other callees in the order rung, as many as fit the budget (``VoIPPush/Body/groupBodyBudgetBytes``),
        /// at most ``VoIPPush/Body/maximumNamedOthers``; possibly none.
        public var others: [Party]

        /// Creates the group summary.
        public init(count: Int, others: [Party]) {
            self.count = count
            self.others = others
        }
    }
}

extension VoIPPush.Body {
    /// The most bytes a body with a ``group`` may encode to: 1 KB under FCM's 4,096-byte `data` limit (keys and
    /// values counted, and `ringer` is 6 of them) and 2 KB under APNs' 5,120 bytes for a VoIP payload, so
    /// neither provider refuses it and later fields have room (decision 0007 §6).
    public static let groupBodyBudgetBytes = 3072
    /// The most other callees a push names: a phone's call screen shows a name and a count, not a list.
    public static let maximumNamedOthers = 8

    /// Sets ``group`` for a call with `count` callees, naming the `others` in order while the encoded body
    /// (``RingerJSON``) stays within ``groupBodyBudgetBytes``, at most ``maximumNamedOthers``.
    ///
    /// With ids of 128 bytes and names of 320 escaped bytes, the largest the server accepts, four others always
    /// fit; with everyday names, eight do.
    /// - Parameters:
    ///   - count: the call's callees, the recipient included.
    ///   - others: the other callees, in the order rung.
    public mutating func setGroup(count: Int, others: [Party]) {
        group = VoIPPush.Group(count: count, others: [])
        var size = Self.encodedSize(self)
        var named: [Party] = []
        for party in others.prefix(Self.maximumNamedOthers) {
            // One more element of an encoded array adds its own bytes and, after the first, a comma.
            let added = Self.encodedSize(party) + (named.isEmpty ? 0 : 1)
            guard added <= Self.groupBodyBudgetBytes - size else { break }
            size += added
            named.append(party)
        }
        group = VoIPPush.Group(count: count, others: named)
    }

    /// Bytes of `value` as ``RingerJSON`` encodes it; `Int.max` if it cannot be encoded, so nothing more is added.
    private static func encodedSize(_ value: some Encodable) -> Int {
        (try? RingerJSON.encode(value))?.count ?? .max
    }
}
