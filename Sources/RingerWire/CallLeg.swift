public import Foundation

/// One callee's part of a group call (docs/openapi.yaml `components/schemas/CallLeg`; decision 0007 §1).
///
/// Every leg of a call is in ``Call/legs``, in the order its callee was rung. Times are on the server's clock.
public struct CallLeg: Codable, Hashable, Sendable {
    /// The callee, with the display name the server knows.
    public var user: Party
    /// Where the leg is; see ``LegState``.
    public var state: LegState
    /// When the callee was rung (the call's creation, or the ring-more that added them).
    public var rungAt: Date
    /// The leg's own ring deadline: a leg still ringing then ends `unanswered`, and pushes for it are stale.
    public var expiresAt: Date
    /// When one of the callee's devices first acknowledged `ringing`.
    public var ringingAt: Date?
    /// When the callee answered.
    public var acceptedAt: Date?
    /// The callee's device that answered.
    public var acceptedDeviceID: String?
    /// When the leg reached a final state.
    public var endedAt: Date?
    /// The user whose action ended the leg: the callee (declined, left), the caller (cancelled, ended), or, under
    /// ``AnswerPolicy/firstAnswer``, the callee who answered first. Nil for a timeout or an end by the server.
    public var endedBy: String?
    /// On a `failed` leg, in words an app can show ("carol cannot be reached"), the cause left in the server's log.
    public var failureReason: String?
    /// True when this callee was in another answered call when the leg rang, and was rung anyway (call waiting);
    /// absent otherwise.
    public var waiting: Bool?

    /// Creates a leg.
    public init(
        user: Party, state: LegState, rungAt: Date, expiresAt: Date, ringingAt: Date? = nil,
        acceptedAt: Date? = nil, acceptedDeviceID: String? = nil, endedAt: Date? = nil, endedBy: String? = nil,
        failureReason: String? = nil
    ) {
        self.user = user
        self.state = state
        self.rungAt = rungAt
        self.expiresAt = expiresAt
        self.ringingAt = ringingAt
        self.acceptedAt = acceptedAt
        self.acceptedDeviceID = acceptedDeviceID
        self.endedAt = endedAt
        self.endedBy = endedBy
        self.failureReason = failureReason
    }

    /// The keys as the wire spells them: Foundation's snake_case conversion reads `accepted_device_id` as
    /// `acceptedDeviceId`, never `acceptedDeviceID`.
    private enum CodingKeys: String, CodingKey {
        case user, state, rungAt, expiresAt, ringingAt, acceptedAt, endedAt, endedBy, failureReason, waiting
        case acceptedDeviceID = "acceptedDeviceId"
    }
}
