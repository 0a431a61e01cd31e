/// The payload of an alert or background push about a call that changed (Apple's `apns-push-type` `alert` / `background`):
/// `{"aps":{…},"ringer":{"v":1,"type":"call.cancelled","call_id":"…"}}`.
///
/// A background push (`"content-available": 1`, priority 5) lets a running app stop ringing when
/// the call was answered or declined elsewhere or cancelled; a missed call is an alert push the
/// user sees. Neither is ever sent as a VoIP push (Apple: PushKit; a VoIP push must start a call).
public struct AlertOrBackgroundPush: Codable, Hashable, Sendable {
    /// Apple's dictionary.
    public var aps: APS
    /// The Ringer-specific body.
    public var ringer: Body

    /// Creates the payload.
    public init(aps: APS, ringer: Body) {
        self.aps = aps
        self.ringer = ringer
    }

    /// Apple's `aps` dictionary (Apple: "Generating a remote notification").
    public struct APS: Codable, Hashable, Sendable {
        /// The alert shown to the user, for a missed call.
        public var alert: Alert?
        /// The sound to play with the alert.
        public var sound: String?
        /// 1 for a background push that wakes the running app without showing anything.
        public var contentAvailable: Int?

        private enum CodingKeys: String, CodingKey {
            case alert, sound
            case contentAvailable = "content-available"
        }

        /// Creates the dictionary.
        public init(alert: Alert? = nil, sound: String? = nil, contentAvailable: Int? = nil) {
            self.alert = alert
            self.sound = sound
            self.contentAvailable = contentAvailable
        }
    }

    /// A visible alert.
    public struct Alert: Codable, Hashable, Sendable {
        /// The title line, e.g. "Missed call".
        public var title: String
        /// The text, e.g. the caller's name.
        public var body: String

        /// Creates an alert.
        public init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }

    /// What changed.
    public struct Body: Codable, Hashable, Sendable {
        /// Payload version; this is version 1.
        public var v: Int
        /// The event: `call.answered_elsewhere`, `call.declined_elsewhere`, `call.cancelled` or `call.unanswered`.
        public var type: EventType
        /// The call id.
        public var callID: String

        /// Creates the body.
        public init(v: Int = 1, type: EventType, callID: String) {
            self.v = v
            self.type = type
            self.callID = callID
        }

        /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
        /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
        private enum CodingKeys: String, CodingKey {
            case v, type
            case callID = "callId"
        }
    }
}
