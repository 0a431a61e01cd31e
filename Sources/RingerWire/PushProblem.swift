public import Foundation

/// Why the push service refused one of a device's tokens in a way the app's next registration can fix,
/// so the server keeps the token instead of deleting it.
///
/// APNs answers `BadDeviceToken` for a token of the other environment (a development build's token sent
/// to production) as well as for a malformed one, and `DeviceTokenNotForTopic` for a token registered
/// with the wrong bundle id (Apple: "Handling notification responses from APNs"). Neither proves the
/// token is dead, so Ringer marks the device, tells the operator, and clears the mark on the next
/// `PUT /v1/devices/{id}`.
public struct PushProblem: Codable, Hashable, Sendable {
    /// The provider's reason, e.g. `BadDeviceToken`.
    public var reason: String
    /// Which token was refused: `voip_token`, `apns_token` or `fcm_token`.
    public var token: String
    /// When the push service said so.
    public var at: Date

    /// Creates a record.
    public init(reason: String, token: String, at: Date) {
        self.reason = reason
        self.token = token
        self.at = at
    }
}
