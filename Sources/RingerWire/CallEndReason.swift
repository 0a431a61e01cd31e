/// Why a call ended on one device, in the terms of CallKit's `CXCallEndedReason`
/// (Apple: `CXProvider.reportCall(with:endedAt:reason:)`) and Android's `DisconnectCause`.
///
/// The SDK reports exactly one of these per call and device when the native call UI must close
/// for a reason other than the local user's own action.
public struct CallEndReason: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string is accepted, so values added by a newer server still decode.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `CXCallEndedReason.failed`: the call could not be set up (bad push, server error, expired).
    public static let failed: CallEndReason = "failed"
    /// `CXCallEndedReason.remoteEnded`: the other party hung up, cancelled, declined or was busy.
    public static let remoteEnded: CallEndReason = "remote_ended"
    /// `CXCallEndedReason.unanswered`: nobody answered before the ring deadline.
    public static let unanswered: CallEndReason = "unanswered"
    /// `CXCallEndedReason.answeredElsewhere`: another device of this user answered.
    public static let answeredElsewhere: CallEndReason = "answered_elsewhere"
    /// `CXCallEndedReason.declinedElsewhere`: another device of this user declined.
    public static let declinedElsewhere: CallEndReason = "declined_elsewhere"
    /// The user answered, but the answer never reached the server before the ring deadline (no network the
    /// whole time): the call was missed because of the network. CallKit shows it as `CXCallEndedReason.failed`,
    /// Telecom as `DisconnectCause.ERROR`; the app can say why from this reason. Never sent by the server.
    public static let answerNotDelivered: CallEndReason = "answer_not_delivered"
}
