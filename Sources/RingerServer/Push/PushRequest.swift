import Foundation
import RingerWire

/// One push to one device about one call, before a provider is chosen: what ``PushDispatcher`` decides
/// and a ``PushSender`` turns into an APNs notification or an FCM message.
struct PushRequest: Sendable {
    /// What the push is for: the ringing push, or one of the two update pushes (``CallEffect/pushUpdate(_:to:)``).
    /// Each provider's sender picks its message type and priority from it.
    enum Purpose: Sendable, Hashable {
        /// The ringing push: wake the device and ring (a PushKit VoIP push, a high-priority FCM data message).
        case ring
        /// An update push that stops a ringing device: the call was cancelled, or answered or declined on another
        /// device (`call.cancelled`, `call.answered_elsewhere`, `call.declined_elsewhere`).
        case stopRinging(EventType)
        /// An update push that tells the user they missed the call (`call.unanswered`): something the system
        /// shows by itself.
        case missedCall

        /// The update push an event calls for; nil for an event no push tells of.
        init?(updateFor type: EventType) {
            switch type {
            case .callUnanswered: self = .missedCall
            case .callAnsweredElsewhere, .callDeclinedElsewhere, .callCancelled: self = .stopRinging(type)
            default: return nil
            }
        }

        /// The event the push carries in its `ringer` body.
        var eventType: EventType {
            switch self {
            case .ring: .callIncoming
            case .stopRinging(let type): type
            case .missedCall: .callUnanswered
            }
        }
    }

    /// What the push is for.
    var purpose: Purpose
    /// The call after the change that caused the push.
    var call: Call
    /// The device to reach.
    var device: Device
    /// True when the device may be ringing for the call: it was sent the ringing push, or it acknowledged
    /// `ringing` (`POST /v1/calls/{id}/ringing`). A push that stops the ringing then ends something the user
    /// sees, and must reach a dozing phone at once.
    var deviceMayBeRinging = false
    /// When the push was decided, on the server's clock (the payload's `sent_at`).
    var createdAt: Date
    /// When trying stops mattering, on the server's clock: the ring deadline for ringing and stopping
    /// (at least 30 s ahead, so a late stop still gets a few tries), a day for a missed call.
    var deadline: Date

    /// The user a recorded outcome names (``PushAttempt/userID``): the device's owner in a group call, where two
    /// callees may name their phones alike; nil for a 1:1 call, whose records stay as they always were.
    var recordedUserID: String? { call.isGroup ? device.userID : nil }

    /// How long a missed-call alert stays worth delivering, seconds: a phone that was off all day still
    /// learns of the call when it comes back.
    static let missedCallLifetime: TimeInterval = 24 * 3600

    /// When the provider may drop the push undelivered (`apns-expiration`, FCM's `ttl`): the ring deadline, after
    /// which ringing or stopping a ring means nothing, or a day for a missed call.
    var providerExpiration: Date { purpose == .missedCall ? deadline : call.expiresAt }

    /// The missed-call notification the system shows: "Missed call" and the caller's name (or id).
    var missedCallAlert: (title: String, body: String) { ("Missed call", call.caller.name ?? call.caller.id) }

    /// Creates a request with the deadline its purpose calls for.
    /// - Parameters:
    ///   - purpose: what the push is for.
    ///   - call: the call.
    ///   - device: the device to reach.
    ///   - now: the server's time.
    init(_ purpose: Purpose, call: Call, device: Device, now: Date) {
        self.purpose = purpose
        self.call = call
        self.device = device
        createdAt = now
        switch purpose {
        case .ring: deadline = call.expiresAt
        case .stopRinging: deadline = max(call.expiresAt, now.addingTimeInterval(30))
        case .missedCall: deadline = now.addingTimeInterval(Self.missedCallLifetime)
        }
    }
}
