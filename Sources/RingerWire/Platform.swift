/// The operating system of a registered device, which decides how it is woken.
public struct Platform: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string is accepted (a registration is refused unless it is one of the below).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// iPhone/iPad: woken by a PushKit VoIP push through APNs.
    public static let ios: Platform = "ios"
    /// Android: woken by a high-priority FCM HTTP v1 data message (docs/fcm.md).
    public static let android: Platform = "android"
}
