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
        /// The ring deadline, ms since 1970: a push read after it is stale and must not ring.
        public var expiresAt: Int64

        /// Creates the body.
        public init(
            v: Int = 1, type: EventType = .callIncoming, callID: String, caller: Party, calleeID: String? = nil,
            hasVideo: Bool, sentAt: Int64, expiresAt: Int64
        ) {
            self.v = v
            self.type = type
            self.callID = callID
            self.caller = caller
            self.calleeID = calleeID
            self.hasVideo = hasVideo
            self.sentAt = sentAt
            self.expiresAt = expiresAt
        }

        /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
        /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
        private enum CodingKeys: String, CodingKey {
            case v, type, caller, hasVideo, sentAt, expiresAt
            case callID = "callId"
            case calleeID = "calleeId"
        }
    }
}
