/// The push service a push went through, as push records and `/healthz` name it.
///
/// An open value set like the other wire enums: a client built against an older RingerWire still decodes a
/// record of a provider added later.
public struct PushProvider: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string is accepted (the server only sends the ones below).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Apple Push Notification service (iOS devices): the HTTP/2 provider API.
    public static let apns: PushProvider = "apns"
    /// Firebase Cloud Messaging HTTP v1 (Android devices).
    public static let fcm: PushProvider = "fcm"
}
