import RingerWire

extension Device {
    /// The token that wakes this device to ring while its app is not running, and which of its tokens that is:
    /// a PushKit VoIP token on iOS, which APNs takes only with the `<bundle_id>.voip` topic, so the bundle id too
    /// (Apple: PushKit, "Responding to VoIP notifications from PushKit"); the FCM registration token on Android,
    /// for a high-priority data message (Google: "Set and manage Android message priority"). An ordinary APNs
    /// token cannot ring: only a VoIP push lets an app report a call while it is not running.
    ///
    /// The one rule for "can this device be woken": what the call machine is told (`CalleeDevice.canBeWoken`,
    /// so a call to devices none of which can be woken fails at once), and the token the ringing push is built
    /// for. A server without that provider's credentials still counts the device (its calls ring sockets only).
    /// - Returns: nil for a device that rings only while its app holds the event socket.
    var ringingToken: (kind: PushTokenKind, value: String)? {
        switch platform {
        case .ios: bundleID != nil ? voipToken.map { (.voip, $0) } : nil
        case .android: fcmToken.map { (.fcm, $0) }
        default: nil
        }
    }

    /// True when the device has a ``ringingToken``.
    var canBeWoken: Bool { ringingToken != nil }
}
