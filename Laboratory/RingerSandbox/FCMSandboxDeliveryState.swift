/// Where an accepted FCM message is on its way to the phone.
public enum FCMSandboxDeliveryState: Sendable, Hashable {
    /// Held by FCM: the phone is offline, or dozing and the message is (or was demoted to) NORMAL priority.
    case stored
    /// Handed to the phone; its receipt has not come back yet.
    case delivering
    /// Delivered; the phone's receipt, or nil when the device has no receiver (the sandbox only records).
    case delivered(FCMSandboxReceipt?)
    /// Never delivered: its `ttl` ran out first (with `ttl` 0, the phone could not take it at once).
    case expired
    /// Never delivered: a newer message with the same `collapse_key` replaced it while stored.
    case collapsed
    /// Never delivered: dropped with everything stored for the device when more than the stored-message limit
    /// piled up (Google: "Non-collapsible and collapsible messages"), or when the token was deleted.
    case discarded

    /// The name used by the control routes: `stored`, `delivering`, `delivered`, `expired`, `collapsed`,
    /// `discarded`.
    public var name: String {
        switch self {
        case .stored: "stored"
        case .delivering: "delivering"
        case .delivered: "delivered"
        case .expired: "expired"
        case .collapsed: "collapsed"
        case .discarded: "discarded"
        }
    }
}
