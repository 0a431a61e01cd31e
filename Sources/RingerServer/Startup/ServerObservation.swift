public import Foundation
public import RingerWire

/// Something the server did, for timelines, tests and operators' metrics. Never carries a token.
public enum ServerObservation: Sendable {
    /// A call was stored; it rings, or ended at once (busy, failed).
    case callCreated(Call)
    /// A call changed state or an event was published for it.
    case callEvent(EventType, Call)
    /// A push provider answered a push (or no answer came: `status` nil).
    case pushSent(PushOutcome)
    /// A ring timeout was scheduled or fired.
    case ringTimeoutFired(callID: String)
}

/// The outcome of one push, as observed.
public struct PushOutcome: Sendable {
    /// The call.
    public var callID: String
    /// The device pushed to.
    public var deviceID: String
    /// `apns` or `fcm`.
    public var provider: PushProvider
    /// APNs' push type (`voip`, `alert`, `background`) or the FCM message's priority (`high`, `normal`).
    public var pushType: PushType
    /// The provider's HTTP status, or nil when no answer came.
    public var status: Int?
    /// The provider's reason or error code, or the transport error.
    public var reason: String?
    /// The request's `apns-id` (APNs); empty for FCM.
    public var apnsID: String
    /// The message name FCM answered with (FCM).
    public var messageName: String?
    /// Milliseconds from sending to the answer.
    public var latencyMs: Double
    /// When it was sent.
    public var sentAt: Date
}
