import CJansson
import Foundation
import RingerWire

/// The ringing push's body (``VoIPPush/Body``) written with Jansson (Debian's libjansson, already linked for
/// StrictJSON) instead of Foundation's `JSONEncoder`: every call's VoIP push and FCM message carries one, and the
/// general encoder (a container and a snake_case key conversion per member) cost several times the push's own
/// sending (issue 33). The text is the encoder's byte for byte: the same members, no whitespace, members sorted by
/// name, `/` not escaped, UTF-8 as it is (RingingBodyJSONTests compares the two).
enum RingingBodyJSON {
    /// `{"ringer":{…}}`, the VoIP push's payload; nil when Jansson could not build it (out of memory).
    static func voipPush(_ body: VoIPPush.Body) -> [UInt8]? {
        guard let ringer = object(body) else { return nil }
        let root = json_object()
        defer { json_decref(root) }
        // Jansson takes `ringer` whether it succeeds or not (and refuses a nil root).
        guard json_object_set_new(root, "ringer", ringer) == 0, let root else { return nil }
        return dump(root)
    }

    /// The body alone, FCM's `data.ringer`; nil when Jansson could not build it.
    static func body(_ body: VoIPPush.Body) -> [UInt8]? {
        guard let object = object(body) else { return nil }
        defer { json_decref(object) }
        return dump(object)
    }

    /// The body's object, owned by the caller; nil (nothing leaked) when a piece could not be made.
    private static func object(_ body: VoIPPush.Body) -> UnsafeMutablePointer<json_t>? {
        var complete = true
        // Jansson takes `value` whether it succeeds or not, and refuses a nil value or a nil object: a piece that
        // could not be made fails the whole body, and nothing leaks.
        func set(_ object: UnsafeMutablePointer<json_t>?, _ name: String, _ value: UnsafeMutablePointer<json_t>?) {
            if json_object_set_new(object, name, value) != 0 { complete = false }
        }
        func party(_ party: Party) -> UnsafeMutablePointer<json_t>? {
            let object = json_object()
            set(object, "id", string(party.id))
            if let name = party.name { set(object, "name", string(name)) }
            return object
        }
        let object = json_object()
        set(object, "v", json_integer(json_int_t(body.v)))
        set(object, "type", string(body.type.rawValue))
        set(object, "call_id", string(body.callID))
        set(object, "caller", party(body.caller))
        set(object, "has_video", body.hasVideo ? json_true() : json_false())
        set(object, "sent_at", json_integer(json_int_t(body.sentAt)))
        set(object, "expires_at", json_integer(json_int_t(body.expiresAt)))
        if let callee = body.calleeID { set(object, "callee_id", string(callee)) }
        if let waiting = body.waiting { set(object, "waiting", waiting ? json_true() : json_false()) }
        if let group = body.group {
            let summary = json_object()
            let others = json_array()
            for other in group.others {
                if json_array_append_new(others, party(other)) != 0 { complete = false }
            }
            set(summary, "count", json_integer(json_int_t(group.count)))
            set(summary, "others", others)
            set(object, "group", summary)
        }
        guard complete, let object else {
            json_decref(object)
            return nil
        }
        return object
    }

    /// A JSON string of `text`'s bytes (a Swift string is valid UTF-8, so Jansson need not check it again).
    private static func string(_ text: String) -> UnsafeMutablePointer<json_t>? {
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { characters in
                guard let start = characters.baseAddress else { return json_string("") }
                return json_stringn_nocheck(start, characters.count)
            }
        }
    }

    private static func dump(_ value: UnsafeMutablePointer<json_t>) -> [UInt8]? {
        guard let text = json_dumps(value, CJANSSON_COMPACT_SORTED) else { return nil }
        defer { free(text) }
        return Array(UnsafeRawBufferPointer(start: text, count: strlen(text)))
    }
}
