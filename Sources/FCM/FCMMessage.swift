public import Foundation
import StrictJSON

/// One FCM HTTP v1 message to one registration token: the `message` of `POST
/// /v1/projects/{project}/messages:send` (Google: "REST Resource: projects.messages", `AndroidConfig`).
///
/// Ringer sends data messages: ``data`` reaches the app's `FirebaseMessagingService.onMessageReceived`
/// even when the app was swiped away, as long as ``priority`` is `HIGH` for a dozing phone (Google:
/// "Set and manage Android message priority"). A ``notification`` block is shown by the system without the
/// app running (the missed-call message); the ringing message never carries one (docs/fcm.md, "Which priority each message gets").
///
/// ``requestBody(token:validateOnly:)`` checks what FCM would refuse before anything is sent: the data
/// payload size (``dataPayloadBytes`` ≤ ``FCM/maximumDataPayloadBytes``), reserved data keys and the TTL range.
public struct FCMMessage: Sendable, Hashable {
    /// `android.priority` (Google: `AndroidMessagePriority`).
    public enum Priority: String, Sendable, Hashable {
        /// Delivered at once, waking a dozing phone; Android demotes apps whose high-priority messages show
        /// nothing visible.
        case high = "HIGH"
        /// Delivered when the phone is awake or at its next Doze maintenance window.
        case normal = "NORMAL"
    }

    /// A `notification` block the system shows by itself (Google: `Notification`).
    public struct Notification: Sendable, Hashable {
        /// The title, or nil for none.
        public var title: String?
        /// The text, or nil for none.
        public var body: String?

        /// Creates a notification block.
        public init(title: String? = nil, body: String? = nil) {
            self.title = title
            self.body = body
        }
    }

    /// Data keys FCM refuses with `INVALID_ARGUMENT` (Google: `Message.data`): these exact words, and any
    /// key starting with ``reservedDataKeyPrefixes``. Compared case-sensitively, as Google states them.
    public static let reservedDataKeys: Set<String> = ["from", "notification", "message_type"]
    /// Prefixes FCM reserves for its own data keys.
    public static let reservedDataKeyPrefixes = ["google", "gcm"]

    /// The `data` map: string keys to string values (FCM accepts nothing else), handed to the app as is.
    public var data: [String: String]
    /// A system-shown notification, or nil for a data-only message.
    public var notification: Notification?
    /// `android.priority`.
    public var priority: Priority
    /// `android.ttl`: how long FCM keeps the message for a phone that cannot take it now; nil leaves FCM's
    /// default (4 weeks). Zero means "now or never". Ringer sends whole seconds (``ttl(forSecondsLeft:)``).
    public var ttl: Duration?
    /// `android.collapse_key`: a newer message with the same key replaces an undelivered older one.
    public var collapseKey: String?
    /// `android.restricted_package_name`: only an app with this package name may receive it.
    public var restrictedPackageName: String?

    /// Creates a message.
    /// - Parameters:
    ///   - data: string keys and values.
    ///   - notification: a system-shown notification; nil for data-only.
    ///   - priority: `HIGH` (ringing) or `NORMAL`.
    ///   - ttl: `android.ttl`, 0…28 days; nil for FCM's default.
    ///   - collapseKey: `android.collapse_key`, or nil.
    ///   - restrictedPackageName: `android.restricted_package_name`, or nil.
    public init(
        data: [String: String], notification: Notification? = nil, priority: Priority = .high,
        ttl: Duration? = nil, collapseKey: String? = nil, restrictedPackageName: String? = nil
    ) {
        self.data = data
        self.notification = notification
        self.priority = priority
        self.ttl = ttl
        self.collapseKey = collapseKey
        self.restrictedPackageName = restrictedPackageName
    }

    /// The data payload as FCM counts it against its limit: the UTF-8 bytes of every key and every value.
    public var dataPayloadBytes: Int {
        data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    /// The ringing TTL: the seconds left to ring, rounded up, at least 1 s (0 s would mean "now or never" to
    /// FCM, and a phone in a brief network gap would miss the call), at most 28 days. Recompute it for every
    /// retry, so a phone that comes back after the ring deadline never rings.
    /// - Parameter secondsLeft: seconds until the ring deadline; not finite or below 1 gives 1 s.
    /// - Returns: a whole number of seconds.
    public static func ttl(forSecondsLeft secondsLeft: TimeInterval) -> Duration {
        guard secondsLeft.isFinite, secondsLeft > 1 else { return .seconds(1) }
        return .seconds(min(Int64(secondsLeft.rounded(.up)), FCM.maximumTTLSeconds))
    }

    /// A duration in the JSON form of `google.protobuf.Duration`: seconds, then up to 9 fractional digits
    /// with trailing zeros dropped, then `s` (`45s`, `3.5s`, `0.000000001s`). Ringer's own TTLs are whole
    /// seconds, so they read `45s`.
    /// - Parameter duration: a non-negative duration.
    /// - Returns: the string, e.g. `45s`.
    public static func durationString(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = attoseconds / 1_000_000_000
        guard nanoseconds != 0 else { return "\(seconds)s" }
        var fraction = String(nanoseconds)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(seconds).\(fraction)s"
    }

    /// Checks what FCM would refuse, before sending.
    /// - Throws: ``FCMClientError``: `payloadTooLarge` when ``dataPayloadBytes`` exceeds 4096, `reservedDataKey`
    ///   for a key FCM reserves, `invalidTTL` for a TTL outside 0…28 days.
    public func validate() throws(FCMClientError) {
        let bytes = dataPayloadBytes
        guard bytes <= FCM.maximumDataPayloadBytes else {
            throw .payloadTooLarge(bytes: bytes, limit: FCM.maximumDataPayloadBytes)
        }
        for key in data.keys.sorted()
        where Self.reservedDataKeys.contains(key)
            || Self.reservedDataKeyPrefixes.contains(where: { key.hasPrefix($0) })
        {
            throw .reservedDataKey(key)
        }
        if let ttl {
            guard ttl >= .zero, ttl <= .seconds(FCM.maximumTTLSeconds) else { throw .invalidTTL }
        }
    }

    /// The `messages:send` body: `{"message":{"token":…,"data":{…},"notification":{…},"android":{"priority":…,
    /// "ttl":…,"collapse_key":…,"restricted_package_name":…}},"validate_only":…}`, keys sorted, absent
    /// fields left out. Written with Jansson (``StrictJSON/JSONWriter``), not `JSONEncoder`: the body is built for
    /// every send (its `ttl` changes), every call's ringing message among them (issue 33).
    /// - Parameters:
    ///   - token: the registration token (the only target; never a topic or condition).
    ///   - validateOnly: ask FCM to check the message without delivering it.
    /// - Returns: the JSON bytes.
    /// - Throws: what ``validate()`` throws; ``FCMClientError/transport(_:)`` when the body cannot be written (out of
    ///   memory).
    public func requestBody(token: String, validateOnly: Bool = false) throws(FCMClientError) -> [UInt8] {
        try validate()
        var fields: [(String, JSONWriter)] = [("token", .string(token))]
        if !data.isEmpty { fields.append(("data", .object(data.map { ($0.key, .string($0.value)) }))) }
        if let notification {
            var shown: [(String, JSONWriter)] = []
            if let title = notification.title { shown.append(("title", .string(title))) }
            if let body = notification.body { shown.append(("body", .string(body))) }
            fields.append(("notification", .object(shown)))
        }
        var android: [(String, JSONWriter)] = [("priority", .string(priority.rawValue))]
        if let ttl { android.append(("ttl", .string(Self.durationString(ttl)))) }
        if let collapseKey { android.append(("collapse_key", .string(collapseKey))) }
        if let restrictedPackageName { android.append(("restricted_package_name", .string(restrictedPackageName))) }
        fields.append(("android", .object(android)))
        var root: [(String, JSONWriter)] = [("message", .object(fields))]
        if validateOnly { root.append(("validate_only", .bool(true))) }
        guard let bytes = JSONWriter.object(root).bytes() else {
            throw .transport("the message body could not be written (out of memory)")
        }
        return bytes
    }
}
