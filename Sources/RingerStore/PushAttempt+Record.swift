import RingerWire
import StrictJSON

extension PushAttempt {
    /// The text stored in `push_attempts.record`, written with Jansson (``StrictJSON/JSONWriter``) rather than
    /// `JSONEncoder`: one is stored for every push, and the encoder cost about 2.4 % of a call's CPU (issue 33). The
    /// members are the encoder's (RingerJSON's snake_case names, timestamps as RingerJSON writes them, absent fields
    /// left out), and RingerJSON's decoder reads the text back as the same attempt (PushAttemptRecordTests); only
    /// `latency_ms` may be written with more digits than the encoder's. Nil when Jansson could not write it.
    var recordText: String? { recordWriter.text }

    /// The attempt's members, as stored and as a callee's `GET /v1/calls/{id}` shows them in `pushes`.
    var recordWriter: JSONWriter {
        var members: [(String, JSONWriter)] = [
            ("call_id", .string(callID)), ("device_id", .string(deviceID)), ("provider", .string(provider.rawValue)),
            ("push_type", .string(pushType.rawValue)), ("latency_ms", .double(latencyMs)),
            ("attempts", .integer(Int64(attempts))), ("sent_at", .timestamp(sentAt)),
        ]
        if let userID { members.append(("user_id", .string(userID))) }
        if let status { members.append(("status", .integer(Int64(status)))) }
        if let reason { members.append(("reason", .string(reason))) }
        if let apnsID { members.append(("apns_id", .string(apnsID))) }
        if let messageName { members.append(("message_name", .string(messageName))) }
        if let readiness { members.append(("readiness", .array(readiness.map { .string($0.rawValue) }))) }
        return .object(members)
    }
}
