import Foundation
import RingerWire
import StrictJSON

/// The ringing push's body (``VoIPPush/Body``) written with Jansson (``StrictJSON/JSONWriter``) instead of
/// Foundation's `JSONEncoder`: every call's VoIP push and FCM message carries one, and the general encoder (a
/// container and a snake_case key conversion per member) cost several times the push's own sending (issue 33). The
/// text is the encoder's byte for byte (RingingBodyJSONTests compares the two).
enum RingingBodyJSON {
    /// `{"ringer":{…}}`, the VoIP push's payload; nil when Jansson could not build it (out of memory).
    static func voipPush(_ body: VoIPPush.Body) -> [UInt8]? {
        JSONWriter.object([("ringer", value(body))]).bytes()
    }

    /// The body alone, FCM's `data.ringer`; nil when Jansson could not build it.
    static func body(_ body: VoIPPush.Body) -> [UInt8]? {
        value(body).bytes()
    }

    /// The body's members, as the encoder names them.
    private static func value(_ body: VoIPPush.Body) -> JSONWriter {
        func party(_ party: Party) -> JSONWriter {
            var members: [(String, JSONWriter)] = [("id", .string(party.id))]
            if let name = party.name { members.append(("name", .string(name))) }
            return .object(members)
        }
        var members: [(String, JSONWriter)] = [
            ("v", .integer(Int64(body.v))), ("type", .string(body.type.rawValue)), ("call_id", .string(body.callID)),
            ("caller", party(body.caller)), ("has_video", .bool(body.hasVideo)),
            ("sent_at", .integer(Int64(body.sentAt))), ("expires_at", .integer(Int64(body.expiresAt))),
        ]
        if let callee = body.calleeID { members.append(("callee_id", .string(callee))) }
        if let waiting = body.waiting { members.append(("waiting", .bool(waiting))) }
        if let group = body.group {
            members.append(
                (
                    "group",
                    .object([("count", .integer(Int64(group.count))), ("others", .array(group.others.map(party)))])
                )
            )
        }
        return .object(members)
    }
}
