package import Foundation
import RingerCore
package import RingerWire
package import StrictJSON

// A call's JSON written with Jansson (``StrictJSON/JSONWriter``) rather than `JSONEncoder`. A call placed over the API
// encoded its `Call` three times (the stored machine, the stored event, the answer), and the encoder's containers
// and per-key snake_case conversion were about 9 % of the call's server CPU (issue 33, decision 0010 §23).
//
// The members are the encoder's: RingerJSON's snake_case names (the types' coding keys), timestamps as RingerJSON
// writes them, a nil optional left out. Jansson sorts them as the encoder does, so the text is the encoder's byte for
// byte but for control characters, which it writes `\u001F` where the encoder writes `\u001f` (StrictJSON's
// JSONWriter). CallJSONWriterTests holds every type here to the encoder's text with every property set, and fails
// when a type gains a property this file does not write.

extension JSONWriter {
    /// A timestamp as RingerJSON writes it (`2026-11-30T12:00:00.123Z`).
    static func timestamp(_ date: Date) -> JSONWriter { .string(RingerJSON.formatTimestamp(date)) }

    /// The compact text; nil when Jansson could not allocate it.
    package var text: String? { bytes().map { String(decoding: $0, as: UTF8.self) } }
}

/// Builds an object's members, leaving nil optionals out as the encoder's `encodeIfPresent` does.
private struct Members {
    private(set) var list: [(String, JSONWriter)] = []

    init(_ members: [(String, JSONWriter)]) { list = members }

    mutating func add<T>(_ name: String, _ value: T?, _ write: (T) -> JSONWriter) {
        if let value { list.append((name, write(value))) }
    }

    var object: JSONWriter { .object(list) }
}

extension Party {
    /// The party as a call's `caller`, `callee` or a leg's `user`.
    package var jsonWriter: JSONWriter {
        var members = Members([("id", .string(id))])
        members.add("name", name, JSONWriter.string)
        return members.object
    }
}

extension CallLeg {
    /// One entry of a group call's `legs`.
    package var jsonWriter: JSONWriter {
        var members = Members([
            ("user", user.jsonWriter), ("state", .string(state.rawValue)), ("rung_at", .timestamp(rungAt)),
            ("expires_at", .timestamp(expiresAt)),
        ])
        members.add("ringing_at", ringingAt, JSONWriter.timestamp)
        members.add("accepted_at", acceptedAt, JSONWriter.timestamp)
        members.add("accepted_device_id", acceptedDeviceID, JSONWriter.string)
        members.add("ended_at", endedAt, JSONWriter.timestamp)
        members.add("ended_by", endedBy, JSONWriter.string)
        members.add("failure_reason", failureReason, JSONWriter.string)
        members.add("waiting", waiting, JSONWriter.bool)
        return members.object
    }
}

extension Call {
    /// The call's JSON as the API shows it (`components/schemas/Call`). Exactly the encoder's text only while
    /// ``pushes`` is nil (stored calls and events never carry them): each push's `latency_ms` is a double, which
    /// Jansson writes in 17 significant digits, and a whole one as `12.0` where the encoder writes `12`.
    package var jsonWriter: JSONWriter {
        var members = Members([
            ("call_id", .string(callID)), ("state", .string(state.rawValue)), ("caller", caller.jsonWriter),
            ("callee", callee.jsonWriter), ("has_video", .bool(hasVideo)), ("created_at", .timestamp(createdAt)),
            ("expires_at", .timestamp(expiresAt)),
        ])
        members.add("accepted_at", acceptedAt, JSONWriter.timestamp)
        members.add("accepted_device_id", acceptedDeviceID, JSONWriter.string)
        members.add("ended_at", endedAt, JSONWriter.timestamp)
        members.add("ended_by", endedBy, JSONWriter.string)
        members.add("end_reason", endReason) { .string($0.rawValue) }
        members.add("failure_reason", failureReason, JSONWriter.string)
        members.add("pushes", pushes) { .array($0.map { $0.recordWriter }) }
        members.add("callee_readiness", calleeReadiness) { .array($0.map { .string($0.rawValue) }) }
        members.add("legs", legs) { .array($0.map { $0.jsonWriter }) }
        members.add("answer_policy", answerPolicy) { .string($0.rawValue) }
        members.add("waiting", waiting, JSONWriter.bool)
        return members.object
    }
}

extension CallEvent {
    /// The event as a socket and the stored stream carry it.
    package var jsonWriter: JSONWriter {
        .object([("seq", .integer(seq)), ("type", .string(type.rawValue)), ("call", call.jsonWriter)])
    }
}

extension CalleeDevice {
    /// One entry of a stored machine's (or leg's) `callee_devices`.
    var jsonWriter: JSONWriter {
        .object([("id", .string(id)), ("platform", .string(platform.rawValue)), ("can_be_woken", .bool(canBeWoken))])
    }
}

extension LegRecord {
    /// One entry of a stored machine's `legs`.
    var jsonWriter: JSONWriter {
        var members = Members([
            ("user_id", .string(userID)), ("callee_devices", .array(calleeDevices.map { $0.jsonWriter })),
            ("ringing_device_ids", .array(ringingDeviceIDs.map(JSONWriter.string))), ("exclusive", .bool(exclusive)),
        ])
        members.add("declined_device_id", declinedDeviceID, JSONWriter.string)
        return members.object
    }
}

extension CallMachine {
    /// The machine as `calls.machine` stores it.
    var jsonWriter: JSONWriter {
        var members = Members([
            ("call", call.jsonWriter), ("callee_devices", .array(calleeDevices.map { $0.jsonWriter })),
            ("ringing_device_ids", .array(ringingDeviceIDs.map(JSONWriter.string))),
        ])
        members.add("declined_device_id", declinedDeviceID, JSONWriter.string)
        members.add("legs", legs) { .array($0.map { $0.jsonWriter }) }
        members.add("call_waiting", callWaiting, JSONWriter.bool)
        return members.object
    }
}
