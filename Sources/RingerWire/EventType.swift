/// The type of a call event delivered on the WebSocket (docs/openapi.yaml `components/schemas/EventType`).
///
/// Only ``callIncoming`` may ever travel as a VoIP push: iOS kills an app that receives a VoIP push
/// and does not report a new incoming call (Apple: PushKit, `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)`).
public struct EventType: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string is accepted, so values added by a newer server still decode.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A call is ringing this user; show the incoming call UI.
    public static let callIncoming: EventType = "call.incoming"
    /// A callee device is showing the call (sent to the caller once).
    public static let callRinging: EventType = "call.ringing"
    /// The callee answered; sent to the caller.
    public static let callAccepted: EventType = "call.accepted"
    /// The callee declined; sent to the caller.
    public static let callDeclined: EventType = "call.declined"
    /// The caller cancelled before an answer; sent to the callee's devices.
    public static let callCancelled: EventType = "call.cancelled"
    /// Another device of the same user answered; stop ringing here.
    public static let callAnsweredElsewhere: EventType = "call.answered_elsewhere"
    /// Another device of the same user declined; stop ringing here.
    public static let callDeclinedElsewhere: EventType = "call.declined_elsewhere"
    /// Nobody answered before the ring deadline; sent to both parties.
    public static let callUnanswered: EventType = "call.unanswered"
    /// An accepted call was hung up or ended by the server (``Call/endReason``; sent to both parties), or a new call ended at once as busy or
    /// failed (sent to the caller).
    public static let callEnded: EventType = "call.ended"
    /// A group call changed in a way no other type names for this recipient: a leg rang, was answered, declined,
    /// rang out or left while the call goes on, or more callees were rung (decision 0007 §4). Carries the whole call
    /// with its `legs`; never sent for a 1:1 call and never pushed. Apps update the participants and keep the call's
    /// phase.
    public static let callUpdated: EventType = "call.updated"
    /// Not a call event: the stream is live; carries the seq to resume from (``StreamReady``).
    public static let streamReady: EventType = "stream.ready"
}
