/// Which APNs host a device token belongs to (Apple: "Sending notification requests to APNs"): the one
/// representation of the environment, for registrations, the stored device, the APNs client's choice of host
/// and `/healthz`.
///
/// A token issued by the development environment is rejected by production with `BadDeviceToken`,
/// so each device's environment must be stored with its tokens. Open like the other wire enums, so a
/// client still decodes a value it does not know; the server accepts only the two below.
public struct APNsEnvironment: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string is accepted (a registration is refused unless it is one of the below).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `api.sandbox.push.apple.com`: apps signed with a development profile.
    public static let sandbox: APNsEnvironment = "sandbox"
    /// `api.push.apple.com`: TestFlight and App Store builds.
    public static let production: APNsEnvironment = "production"
}
