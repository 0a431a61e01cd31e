/// Which of a device's push tokens a push went to: the registration field (and store column) it lives in.
///
/// Tokens of different kinds are never compared with each other: a provider's answer about its own token
/// (APNs 410, FCM `UNREGISTERED`) must never touch an equal string in another column, which may belong to
/// another user's device.
public enum PushTokenKind: String, Codable, Hashable, Sendable, CaseIterable {
    /// The PushKit VoIP token (`voip_token`).
    case voip = "voip_token"
    /// The ordinary APNs device token (`apns_token`).
    case apns = "apns_token"
    /// The FCM registration token (`fcm_token`).
    case fcm = "fcm_token"
}
