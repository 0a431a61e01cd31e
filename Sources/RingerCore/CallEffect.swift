public import Foundation
public import RingerWire

/// Who receives a published event.
public enum EventRecipient: Hashable, Sendable {
    /// Every device (WebSocket) of the user.
    case user(String)
    /// Every device of the user except one: the device that acted ("answered elsewhere" reaches the others).
    case userExceptDevice(String, deviceID: String)

    /// The receiving user.
    public var userID: String {
        switch self {
        case .user(let user), .userExceptDevice(let user, _): user
        }
    }

    /// The device left out, if any.
    public var exceptDeviceID: String? {
        switch self {
        case .user: nil
        case .userExceptDevice(_, let device): device
        }
    }
}

/// A side effect the owner of a ``CallMachine`` must carry out after a transition, in order.
///
/// The machine never does I/O: the server persists the new state, then executes these.
public enum CallEffect: Hashable, Sendable {
    /// Append an event to the recipients' streams and deliver it to connected WebSockets.
    case publish(EventType, to: EventRecipient)
    /// Wake one callee device to ring: a PushKit VoIP push on iOS, a high-priority FCM data message on
    /// Android. Only ever emitted for a new incoming call.
    case pushIncomingCall(deviceID: String)
    /// An update push: tell the recipients' devices by push that the call changed, either to stop the ringing
    /// (answered or declined elsewhere, cancelled: an APNs background push, an FCM data message) or of a missed
    /// call (an alert, an FCM notification). Never a VoIP push: one that starts no call gets the app killed by iOS.
    case pushUpdate(EventType, to: EventRecipient)
    /// Store the ring deadline; at that time feed ``CallInput/ringTimeout``.
    case scheduleRingTimeout(at: Date)
    /// The ring deadline no longer matters.
    case cancelRingTimeout
    /// The call was accepted at this time: watch it, and feed ``CallInput/connectionLost`` when neither
    /// party is heard from for the idle limit, ``CallInput/maximumDurationReached`` at the maximum duration
    /// (``AcceptedCallWatch`` decides when).
    case watchAcceptedCall(acceptedAt: Date)
    /// The accepted call is over: stop watching it.
    case stopWatchingCall
    /// Wake one device of a group call's callee to ring (``pushIncomingCall(deviceID:)`` for a leg: device ids are
    /// per user). The push is built from that callee's view of the call (``CallMachine/view(for:)``).
    case pushLegIncoming(userID: String, deviceID: String)
    /// A callee of a group call joined at this time: watch their leg, and feed ``CallInput/legConnectionLost(userID:)``
    /// when their app is not heard from for the idle limit.
    case watchLeg(userID: String, acceptedAt: Date)
    /// The callee's leg is over: stop watching it.
    case stopWatchingLeg(userID: String)
}

/// A device of the callee known when the call was placed.
public struct CalleeDevice: Codable, Hashable, Sendable {
    /// The device id.
    public var id: String
    /// The platform, which decides how the device is woken.
    public var platform: Platform
    /// True when the device has a push token that wakes it for a call (a PushKit VoIP token on iOS, an FCM
    /// registration token on Android).
    public var canBeWoken: Bool

    /// Creates a callee device.
    public init(id: String, platform: Platform, canBeWoken: Bool) {
        self.id = id
        self.platform = platform
        self.canBeWoken = canBeWoken
    }
}
