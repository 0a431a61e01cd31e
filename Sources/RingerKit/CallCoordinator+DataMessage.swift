import Foundation
public import RingerWire

extension CallCoordinator {
    /// What became of an FCM data message.
    public enum DataMessageOutcome: Sendable, Equatable {
        /// A `call.incoming` message, handled as a VoIP push is but without PushKit's report-every-push rule:
        /// only `.ringing` reached the call UI. `callID` is nil when the body named none.
        case call(callID: String?, PushDisposition)
        /// A data message about a call that changed: `call.cancelled`, `call.answered_elsewhere`, `call.declined_elsewhere` or
        /// `call.unanswered` ended the call it names here, as the matching event would.
        case update(callID: String, EventType)
        /// Not a Ringer message (no `ringer` key, or its value is not a JSON object with a `type`), or a type
        /// this version does not act on. Nothing changed.
        case ignored
    }

    /// Event types an FCM data message about a call may carry (docs/fcm.md; the bodies of ``AlertOrBackgroundPush``).
    private static let updateTypes: Set<EventType> = [
        .callCancelled, .callAnsweredElsewhere, .callDeclinedElsewhere,
        .callUnanswered,
    ]

    /// Handles the `data` map of an FCM message (Android: `FirebaseMessagingService.onMessageReceived`,
    /// `RemoteMessage.getData()`). `data["ringer"]` is a JSON object in a string, because FCM data values
    /// must be strings (Google: FCM HTTP v1 `Message.data`): the VoIP push's `ringer` body for
    /// `call.incoming`, or a ``AlertOrBackgroundPush/Body`` for the others.
    ///
    /// Unlike ``handleVoIPPush(_:)`` nothing is reported for a message that cannot ring (stale, for another
    /// user, unreadable, a call already over): Android has no PushKit rule, and a call that appears and
    /// ends at once would only flash on screen.
    /// - Parameter data: the message's data map; keys other than `ringer` are ignored (the app's own).
    /// - Returns: what became of the message.
    @discardableResult
    public func handleDataMessage(_ data: [String: String]) -> DataMessageOutcome {
        guard let ringer = data["ringer"],
            let object = (try? JSONSerialization.jsonObject(with: Data(ringer.utf8))) as? [String: Any],
            let type = object["type"] as? String
        else { return .ignored }
        // The body is wrapped as a push payload, byte for byte, so the push paths read it unchanged.
        if type == EventType.callIncoming.rawValue {
            let callID = (object["call_id"] as? String).flatMap(UUID.init(uuidString:)).map {
                $0.uuidString.lowercased()
            }
            let disposition = handleIncomingPush(Data(#"{"ringer":\#(ringer)}"#.utf8), reportsEveryPush: false)
            return .call(callID: callID, disposition)
        }
        guard Self.updateTypes.contains(EventType(rawValue: type)), let callID = object["call_id"] as? String,
            let handled = handleNotificationPush(Data(#"{"aps":{},"ringer":\#(ringer)}"#.utf8))
        else { return .ignored }
        return .update(callID: callID.lowercased(), handled)
    }
}
