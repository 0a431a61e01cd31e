/// The operating system of a registered device, which decides how it is woken.
public struct Platform: OpenStringEnum {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// iPhone/iPad: woken by a PushKit VoIP push through APNs.
    public static let ios: Platform = "ios"
    /// Android: woken by a high-priority FCM data message (FCM sending is not in this version yet:
    /// until then an Android device rings only while its app holds the event WebSocket).
    public static let android: Platform = "android"
}

/// Which APNs host a device token belongs to (Apple: "Sending notification requests to APNs").
///
/// A token issued by the development environment is rejected by production with `BadDeviceToken`,
/// so each device's environment must be stored with its tokens.
public struct APNsEnvironment: OpenStringEnum {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `api.sandbox.push.apple.com`: apps signed with a development profile.
    public static let sandbox: APNsEnvironment = "sandbox"
    /// `api.push.apple.com`: TestFlight and App Store builds.
    public static let production: APNsEnvironment = "production"
}
