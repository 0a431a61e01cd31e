public import Foundation

/// The `apns-push-type` header (Apple: "Sending notification requests to APNs").
public struct APNsPushType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
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
    public init(pushType: APNsPushType, topic: String, priority: Int = 10, expiration: Date? = nil,
                apnsID: UUID = UUID(), collapseID: String? = nil, payload: [UInt8]) {
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.apnsID = apnsID
        self.collapseID = collapseID
        self.payload = payload
    }

    /// The request headers, lowercase names, without `authorization`.
    public var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("apns-push-type", pushType.rawValue),
            ("apns-topic", topic),
            ("apns-priority", String(priority)),
            ("apns-expiration", String(Int64(expiration?.timeIntervalSince1970.rounded(.down) ?? 0))),
            ("apns-id", apnsID.uuidString.lowercased()),
            ("content-type", "application/json"),
        ]
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return headers
    }
}
