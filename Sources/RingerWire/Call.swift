public import Foundation

/// A party of a call as shown to the other side: the user id and, when known, a display name.
public struct Party: Codable, Hashable, Sendable {
    /// The user id (the `sub` of the user token).
    public var id: String
    /// The display name, from the user token's `name` claim.
    public var name: String?

    /// Creates a party.
    public init(id: String, name: String? = nil) {
        self.id = id
        self.name = name
    }
}

/// A call as the API returns it (docs/openapi.yaml `components/schemas/Call`).
///
/// The `callID` is a lowercase UUID; apps use it as the CallKit call UUID so that one server call is
/// one call on screen, however many times it arrives.
public struct Call: Codable, Hashable, Sendable {
    /// Lowercase UUID string.
    public var callID: String
    /// The current state; see ``CallState``.
    public var state: CallState
    /// Who placed the call.
    public var caller: Party
    /// Who is being called.
    public var callee: Party
    /// Whether the caller asked for video.
    public var hasVideo: Bool
    /// When the server created the call.
    public var createdAt: Date
    /// The ring deadline: after it an unanswered call ends `unanswered` and pushes for it are stale.
    public var expiresAt: Date
    /// When a callee device answered, if one did.
    public var acceptedAt: Date?
    /// The device that answered, if one did.
    public var acceptedDeviceID: String?
    /// When the call reached a final state.
    public var endedAt: Date?
    /// The user whose action ended the call (nil for a timeout, a failure, or an end by the server).
    public var endedBy: String?
    /// Why the server ended an accepted call itself (``SystemEndReason``); nil when a participant hung up
    /// and in every other state.
    public var endReason: SystemEndReason?
    /// Set on a `failed` call, in words an app can show: "bob cannot be reached", the same whatever the cause
    /// (the cause is in the server's log, not told to the caller).
    public var failureReason: String?
    /// The outcome of every push sent for the call, per device, oldest first: only in
    /// `GET /v1/calls/{id}` read by the callee, whose devices they describe (nil for the caller, in events and lists).
    public var pushes: [PushAttempt]?
    /// What would stop the callee's phones ringing, as they reported it: the sorted union of the readiness
    /// problems of the devices the call was pushed to or rang on. Only in `GET /v1/calls/{id}`, for either
    /// side, and only when not empty; it names no device, so the caller learns why "bob's phone may not
    /// ring" without learning which devices bob has.
    public var calleeReadiness: [ReadinessProblem]?
    /// A group call's legs, one per callee in the order rung (decision 0007); nil for a 1:1 call, whose JSON has
    /// no `legs` key. A callee reads ``state`` and the times above as its own leg's; the caller reads the call's.
    public var legs: [CallLeg]?
    /// What an answer does in a group call; nil for a 1:1 call.
    public var answerPolicy: AnswerPolicy?
    /// True when the callee was already in an answered call when this one rang them, and was rung anyway (call
    /// waiting: `--call-waiting on`, or the request's `call_waiting`): their phone shows it as a second call. A group
    /// call's callee reads their own leg's. Absent otherwise (docs/decisions/0008 §3).
    public var waiting: Bool?

    /// Whether this is a group call (placed with `callees`, or rung more): it has legs.
    public var isGroup: Bool { legs != nil }

    /// The leg of `user`, if the call is a group call and `user` is one of its callees.
    public func leg(of user: String) -> CallLeg? { legs?.first { $0.user.id == user } }

    /// Creates a call record.
    public init(
        callID: String, state: CallState, caller: Party, callee: Party, hasVideo: Bool,
        createdAt: Date, expiresAt: Date, acceptedAt: Date? = nil, acceptedDeviceID: String? = nil,
        endedAt: Date? = nil, endedBy: String? = nil, endReason: SystemEndReason? = nil,
        failureReason: String? = nil, legs: [CallLeg]? = nil, answerPolicy: AnswerPolicy? = nil
    ) {
        self.callID = callID
        self.state = state
        self.caller = caller
        self.callee = callee
        self.hasVideo = hasVideo
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.acceptedAt = acceptedAt
        self.acceptedDeviceID = acceptedDeviceID
        self.endedAt = endedAt
        self.endedBy = endedBy
        self.endReason = endReason
        self.failureReason = failureReason
        self.legs = legs
        self.answerPolicy = answerPolicy
    }

    /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
    /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
    private enum CodingKeys: String, CodingKey {
        case state, caller, callee, hasVideo, createdAt, expiresAt, acceptedAt, endedAt, endedBy, endReason,
            failureReason, pushes, calleeReadiness, legs, answerPolicy, waiting
        case callID = "callId"
        case acceptedDeviceID = "acceptedDeviceId"
    }
}
