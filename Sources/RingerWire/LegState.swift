/// The state of one callee's leg of a group call (docs/openapi.yaml `components/schemas/LegState`;
/// docs/call-lifecycle.md "Group calls"; decision 0007).
///
/// `ringing` and `accepted` are live; every other state is final and never changes again. A 1:1 call has no legs:
/// its callee's state is the call's own ``CallState``.
public struct LegState: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string is accepted, so values added by a newer server still decode.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The callee's devices are being rung for this leg.
    public static let ringing: LegState = "ringing"
    /// One of the callee's devices answered; the callee is in the call.
    public static let accepted: LegState = "accepted"
    /// One of the callee's devices declined.
    public static let declined: LegState = "declined"
    /// The callee was already in an accepted call when rung; nothing rang.
    public static let busy: LegState = "busy"
    /// Nothing of the callee's could be rung (no device that can be woken, no open socket); the leg's
    /// `failure_reason` says so in words an app can show.
    public static let failed: LegState = "failed"
    /// The leg rang to its own deadline with no answer.
    public static let unanswered: LegState = "unanswered"
    /// The leg stopped ringing because of someone else: the caller cancelled or ended the call, the call ended,
    /// or (under ``AnswerPolicy/firstAnswer``) another callee answered first.
    public static let cancelled: LegState = "cancelled"
    /// The callee was in the call and is no longer: they hung up, the caller ended the call, or the server
    /// ended it or stopped hearing from the callee's app.
    public static let left: LegState = "left"

    /// True for `ringing` and `accepted`; false for every final state, including unknown ones.
    public var isLive: Bool { self == .ringing || self == .accepted }
}

/// What an answer does in a group call, chosen when the call is placed (docs/openapi.yaml
/// `components/schemas/AnswerPolicy`; decision 0007 §3). The two differ only while the call rings.
public struct AnswerPolicy: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string is accepted, so values added by a newer server still decode.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The default: the first callee to accept gets the call and every other ringing callee stops at once
    /// (`call.answered_elsewhere`), as a household, an on-call team or a desk expects.
    public static let firstAnswer: AnswerPolicy = "first_answer"
    /// Every callee may accept until their own ring deadline; the call is up while the caller and at least one
    /// callee are in it, and each callee may leave without ending it for the others.
    public static let allMayJoin: AnswerPolicy = "all_may_join"

    /// The policies this server knows; a request naming another is refused.
    public static let known: [AnswerPolicy] = [.firstAnswer, .allMayJoin]
}
