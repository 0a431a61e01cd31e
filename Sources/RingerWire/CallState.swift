/// The state of a call as the server records it (docs/openapi.yaml `components/schemas/CallState`; docs/call-lifecycle.md).
///
/// `ringing` and `accepted` are live; every other state is final and never changes again.
public struct CallState: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string is accepted, so values added by a newer server still decode.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The callee's devices are being rung; nobody has answered yet.
    public static let ringing: CallState = "ringing"
    /// One callee device answered; media is flowing between the two parties.
    public static let accepted: CallState = "accepted"
    /// A callee device declined before anyone answered.
    public static let declined: CallState = "declined"
    /// The caller gave up before anyone answered.
    public static let cancelled: CallState = "cancelled"
    /// Nobody answered before the ring deadline (`--ring-timeout`, 45 s by default).
    public static let unanswered: CallState = "unanswered"
    /// The callee was already in an accepted call.
    public static let busy: CallState = "busy"
    /// An accepted call is over: either party hung up, or the server ended it (``Call/endReason``: the apps
    /// went silent, or the maximum duration passed).
    public static let ended: CallState = "ended"
    /// The call could not ring at all (for example the callee has no reachable device).
    public static let failed: CallState = "failed"

    /// Every state this version knows, in the order of the call's life.
    public static let known: [CallState] = [
        .ringing, .accepted, .declined, .cancelled, .unanswered, .busy, .ended, .failed,
    ]

    /// True for `ringing` and `accepted`; false for every final state, including unknown ones.
    public var isLive: Bool { self == .ringing || self == .accepted }
}
