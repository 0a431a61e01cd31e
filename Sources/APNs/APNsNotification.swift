public import Foundation
import HTTP2Client
import RingerSupport

/// The `apns-push-type` header (Apple: "Sending notification requests to APNs").
public struct APNsPushType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    /// Creates the type from its `apns-push-type` header value; any string is accepted, as Apple adds types.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A visible alert, badge or sound; topic is the bundle id.
    public static let alert = APNsPushType(rawValue: "alert")
    /// A silent background update (`content-available`); priority must be 5.
    public static let background = APNsPushType(rawValue: "background")
    /// A PushKit VoIP push; topic is `<bundle id>.voip`. The app must report a call for each one.
    public static let voip = APNsPushType(rawValue: "voip")

    /// The largest payload APNs accepts for this push type, in bytes: 5120 for VoIP, 4096 otherwise.
    public var maximumPayloadBytes: Int { self == .voip ? 5120 : 4096 }

    /// The topic for an app's bundle id: VoIP pushes go to `<bundle id>.voip`.
    public func topic(forBundleID bundleID: String) -> String {
        self == .voip ? bundleID + ".voip" : bundleID
    }
}

/// One notification request: headers and JSON payload for `POST /3/device/<token>`.
public struct APNsNotification: Sendable {
    /// The push type header.
    public var pushType: APNsPushType
    /// The `apns-topic` header.
    public var topic: String
    /// 10 sends at once (required for VoIP and alerts that wake the user); 5 lets APNs batch for power.
    public var priority: Int
    /// When APNs may stop trying to deliver, sent as `apns-expiration` in whole seconds since 1970.
    /// Nil means 0: deliver now or never.
    public var expiration: Date?
    /// The `apns-id` header, a UUID; APNs echoes it so logs on both sides match.
    public var apnsID: UUID
    /// The `apns-collapse-id` header (at most 64 bytes), if any.
    public var collapseID: String?
    /// The JSON payload bytes.
    public var payload: [UInt8]

    /// Creates a notification.
    /// - Parameters:
    ///   - pushType: the `apns-push-type`.
    ///   - topic: the `apns-topic` (`<bundle id>.voip` for VoIP).
    ///   - priority: 10 or 5.
    ///   - expiration: when APNs may give up; nil for 0 (now or never).
    ///   - apnsID: the `apns-id`; a new random one (``randomID()``) by default.
    ///   - collapseID: the `apns-collapse-id`, if any.
    ///   - payload: the JSON payload bytes.
    public init(
        pushType: APNsPushType, topic: String, priority: Int = 10, expiration: Date? = nil,
        apnsID: UUID = APNsNotification.randomID(), collapseID: String? = nil, payload: [UInt8]
    ) {
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.apnsID = apnsID
        self.collapseID = collapseID
        self.payload = payload
    }

    /// A new random (version 4, RFC 9562 §5.4) UUID for `apns-id`, from the kernel's CSPRNG (`UUID.random()`:
    /// one system call, where Foundation's `UUID()` on Linux makes three). Thread-safe.
    /// - Returns: the UUID.
    public static func randomID() -> UUID {
        UUID.random()
    }

    /// The request headers, lowercase names, without `authorization`.
    public var headers: [(name: String, value: String)] {
        requestHeaders(authorization: nil).map { ($0.name, $0.value) }
    }

    /// The request's header fields as the HTTP/2 client takes them, built once per push: `authorization`
    /// (`bearer <provider token>`) last when given.
    func requestHeaders(authorization: String?) -> [HTTP2Request.Header] {
        var headers = [
            HTTP2Request.Header("apns-push-type", pushType.rawValue),
            HTTP2Request.Header("apns-topic", topic),
            HTTP2Request.Header("apns-priority", String(priority)),
            HTTP2Request.Header(
                "apns-expiration", String(Int64(expiration?.timeIntervalSince1970.rounded(.down) ?? 0))),
            HTTP2Request.Header("apns-id", apnsID.lowercaseText),
            HTTP2Request.Header("content-type", "application/json"),
        ]
        headers.reserveCapacity(8)
        if let collapseID { headers.append(HTTP2Request.Header("apns-collapse-id", collapseID)) }
        if let authorization { headers.append(HTTP2Request.Header("authorization", authorization)) }
        return headers
    }
}
