import Foundation
import RingerKit
import RingerWire
import Testing

/// Runs the language-neutral test vectors of the phone's call machine (TestVectors/phone-call/*.json, format in
/// docs/test-vectors.md) against ``PhoneCallMachine``: every other implementation of the same brain (the
/// Android SDK) runs the same files.
@Suite struct PhoneCallVectorTests {
    /// A vector that cannot be read: its file and what is wrong.
    struct VectorError: Error, CustomStringConvertible {
        var description: String
    }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("TestVectors/phone-call")

    static var files: [String] { jsonFiles(in: folder) }

    /// The `*.json` file names of a vector folder, sorted (none when the folder is missing: `thereAreVectors` fails).
    static func jsonFiles(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".json") }
            .sorted()
    }

    /// A vector file read as a JSON object.
    /// - Throws: `VectorError` when it is not one; the file system's error when it cannot be read.
    static func vector(_ file: String, in folder: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: folder.appendingPathComponent(file))
        return try object(try JSONSerialization.jsonObject(with: data), "the file")
    }

    @Test func thereAreVectors() {
        #expect(Self.files.count >= 20, "\(Self.folder.path)")
    }

    @Test(arguments: files)
    func vectorHolds(_ file: String) throws {
        let vector = try Self.vector(file, in: Self.folder)
        try Self.only(["description", "initial", "steps", "final"], in: vector, "the file")
        _ = try Self.string(vector["description"], "description")
        let initial = try Self.object(vector["initial"], "initial")
        try Self.only(["device_id", "clock_offset_ms"], in: initial, "initial")
        var machine = PhoneCallMachine(
            deviceID: try Self.string(initial["device_id"], "initial.device_id"),
            clockOffset: try Self.optionalMillis(initial["clock_offset_ms"]).map { $0 / 1000 })
        let steps = try Self.array(vector["steps"], "steps")
        for (index, raw) in steps.enumerated() {
            let step = try Self.object(raw, "steps[\(index)]")
            try Self.only(["at_ms", "input", "effects"], in: step, "steps[\(index)]")
            let at = Date(timeIntervalSince1970: try Self.millis(step["at_ms"], "steps[\(index)].at_ms") / 1000)
            let rawInput = try Self.object(step["input"], "steps[\(index)].input")
            if rawInput["type"] as? String == "relaunched" {
                // A new process: a machine built from what the old one asked to keep, then told it launched.
                try Self.only(["type"], in: rawInput, "steps[\(index)].input")
                machine = PhoneCallMachine(
                    deviceID: machine.deviceID, clockOffset: machine.clockOffset, memory: machine.memory)
            }
            let input = try Self.input(rawInput)
            let effects = machine.handle(input, at: at).map(Self.json)
            let expected = try Self.array(step["effects"], "steps[\(index)].effects").map(Self.canonical)
            #expect(effects == expected, "\(file) step \(index)")
        }
        let final = try Self.object(vector["final"], "final")
        try Self.only(["calls", "clock_offset_ms"], in: final, "final")
        for (callID, raw) in try Self.object(final["calls"], "final.calls") {
            let call = try Self.object(raw, "final.calls.\(callID)")
            try Self.only(
                ["phase", "end_reason", "held", "muted", "waiting"], in: call, "final.calls.\(callID)",
                required: ["phase", "end_reason"])
            let actual = machine.calls[callID]
            #expect(actual?.phase.rawValue == call["phase"] as? String, "\(file): phase of \(callID)")
            #expect(actual?.endReason?.rawValue == call["end_reason"] as? String, "\(file): end reason of \(callID)")
            if call.keys.contains("held") {
                #expect(actual?.held == (try Self.bool(call["held"], "final.held")), "\(file): held of \(callID)")
            }
            if call.keys.contains("waiting") {
                #expect(
                    actual?.waiting == (try Self.bool(call["waiting"], "final.waiting")),
                    "\(file): waiting of \(callID)")
            }
            if call.keys.contains("muted") {
                #expect(actual?.muted == (try Self.bool(call["muted"], "final.muted")), "\(file): muted of \(callID)")
            }
        }
        if final.keys.contains("clock_offset_ms") {
            #expect(
                machine.clockOffset.map { ($0 * 1000).rounded() }
                    == (try Self.optionalMillis(final["clock_offset_ms"])),
                "\(file): clock offset")
        }
    }

    // MARK: Reading

    /// Refuses a key the format does not have, and a missing required one: a misspelt field would otherwise
    /// read as absent and a vector could pass without testing what it says.
    static func only(
        _ keys: Set<String>, in object: [String: Any], _ what: String,
        required: Set<String> = []
    ) throws {
        let unknown = Set(object.keys).subtracting(keys)
        guard unknown.isEmpty else { throw VectorError(description: "\(what) has unknown keys \(unknown.sorted())") }
        let missing = required.subtracting(object.keys)
        guard missing.isEmpty else { throw VectorError(description: "\(what) lacks \(missing.sorted())") }
    }

    /// Refuses a value outside the wire vocabulary: the wire enums are open (any string decodes), so a typo such
    /// as `call.canceled` would be an event the machine ignores, and a vector expecting nothing would pass.
    static func known(_ value: String, in names: Set<String>, _ what: String) throws -> String {
        guard names.contains(value) else {
            throw VectorError(description: "\(what) \(value) is not one of \(names.sorted())")
        }
        return value
    }

    static let eventTypes: Set<String> = Set(
        [
            EventType.callIncoming, .callRinging, .callAccepted, .callDeclined, .callCancelled,
            .callAnsweredElsewhere, .callDeclinedElsewhere, .callUnanswered, .callEnded, .callUpdated,
            .streamReady,
        ].map(\.rawValue))
    static let callStates: Set<String> = Set(
        [
            CallState.ringing, .accepted, .declined, .cancelled, .unanswered, .busy, .ended,
            .failed,
        ].map(\.rawValue))
    static let legStates: Set<String> = Set(
        [LegState.ringing, .accepted, .declined, .busy, .failed, .unanswered, .cancelled, .left].map(\.rawValue))
    static let systemEndReasons: Set<String> = [
        SystemEndReason.connectionLost.rawValue, SystemEndReason.maximumDuration.rawValue,
        SystemEndReason.endedByBackend.rawValue,
    ]

    /// The fields each input type has (docs/test-vectors.md "Inputs"); all are required but `callee_id` and `group`.
    static let inputFields: [String: Set<String>] = [
        "incoming_push": [
            "call_id", "caller", "callee_id", "has_video", "sent_at_ms", "expires_at_ms", "account",
            "reports_every_push", "group", "waiting",
        ],
        "unreadable_push": ["reports_every_push"], "event": ["event", "call"], "update_push": ["event", "call_id"],
        "report_finished": ["call_id", "accepted"], "answer": ["call_id"], "answer_confirmed": ["call_id"],
        "answer_refused": ["call_id", "problem"], "ringing_refused": ["call_id", "problem"], "end": ["call_id"],
        "end_all": [],
        "outgoing_placed": ["call"], "call_read": ["call"], "keepalive_refused": ["call_id", "call"],
        "deadline_reached": ["call_id"], "account_changed": ["account"], "server_time": ["server_time_ms"],
        "phone_clock_changed": [],
        "relaunched": [], "hang_up_refused": ["call_id", "kind", "problem"],
        "set_held": ["call_id", "held", "by"], "set_muted": ["call_id", "muted", "by"],
        "play_dtmf": ["call_id", "digits", "by"],
    ]

    static func bool(_ value: Any?, _ what: String) throws -> Bool {
        guard let bool = value as? Bool, !(value is NSNull) else {
            throw VectorError(description: "\(what) is not a boolean")
        }
        return bool
    }

    static func object(_ value: Any?, _ what: String) throws -> [String: Any] {
        guard let object = value as? [String: Any] else { throw VectorError(description: "\(what) is not an object") }
        return object
    }

    static func array(_ value: Any?, _ what: String) throws -> [Any] {
        guard let array = value as? [Any] else { throw VectorError(description: "\(what) is not an array") }
        return array
    }

    static func string(_ value: Any?, _ what: String) throws -> String {
        guard let string = value as? String else { throw VectorError(description: "\(what) is not a string") }
        return string
    }

    static func millis(_ value: Any?, _ what: String) throws -> Double {
        guard let number = value as? NSNumber else { throw VectorError(description: "\(what) is not a number") }
        return number.doubleValue
    }

    static func optionalMillis(_ value: Any?) throws -> Double? {
        value is NSNull || value == nil ? nil : try millis(value, "a time")
    }

    static func date(_ value: Any?, _ what: String) throws -> Date {
        Date(timeIntervalSince1970: try millis(value, what) / 1000)
    }

    static func account(_ value: Any?) throws -> PhoneAccount {
        let account = try object(value, "account")
        try only(["state", "user_id"], in: account, "account")
        switch try string(account["state"], "account.state") {
        case "launching": return .launching
        case "logged_out": return .loggedOut
        case "logged_in": return .loggedIn(userID: account["user_id"] as? String)
        case let other: throw VectorError(description: "unknown account state \(other)")
        }
    }

    /// A group's `{count, others: [ids]}` (a push's `group`, or a report's).
    static func group(_ value: Any?) throws -> VoIPPush.Group? {
        guard let value, !(value is NSNull) else { return nil }
        let group = try object(value, "group")
        try only(["count", "others"], in: group, "group")
        return VoIPPush.Group(
            count: Int(try millis(group["count"], "group.count")),
            others: try array(group["others"], "group.others").map { Party(id: try string($0, "group.others[]")) })
    }

    static func groupJSON(_ group: VoIPPush.Group) -> [String: Any] {
        ["count": group.count, "others": group.others.map(\.id)]
    }

    /// A call's `legs`: `[{user, state, accepted_device_id?}]`, each leg's times the call's own.
    static func legs(_ value: Any?, createdAt: Date, expiresAt: Date) throws -> [CallLeg]? {
        guard let value, !(value is NSNull) else { return nil }
        return try array(value, "call.legs").map { item in
            let leg = try object(item, "call.legs[]")
            try only(["user", "state", "accepted_device_id"], in: leg, "call.legs[]", required: ["user", "state"])
            return CallLeg(
                user: Party(id: try string(leg["user"], "leg.user")),
                state: LegState(rawValue: try known(try string(leg["state"], "leg.state"), in: legStates, "leg.state")),
                rungAt: createdAt, expiresAt: expiresAt, acceptedDeviceID: leg["accepted_device_id"] as? String)
        }
    }

    static func legsJSON(_ legs: [CallLeg]) -> [[String: Any]] {
        legs.map { leg in
            var object: [String: Any] = ["user": leg.user.id, "state": leg.state.rawValue]
            if let device = leg.acceptedDeviceID { object["accepted_device_id"] = device }
            return object
        }
    }

    static func call(_ value: Any?) throws -> Call {
        let call = try object(value, "call")
        try only(
            [
                "call_id", "state", "caller", "callee", "created_at_ms", "expires_at_ms", "accepted_device_id",
                "end_reason", "legs", "waiting",
            ],
            in: call, "call", required: ["call_id", "state", "caller", "callee", "created_at_ms", "expires_at_ms"])
        var result = Call(
            callID: try string(call["call_id"], "call.call_id"),
            state: CallState(
                rawValue: try known(try string(call["state"], "call.state"), in: callStates, "call.state")),
            caller: Party(id: try string(call["caller"], "call.caller")),
            callee: Party(id: try string(call["callee"], "call.callee")), hasVideo: false,
            createdAt: try date(call["created_at_ms"], "call.created_at_ms"),
            expiresAt: try date(call["expires_at_ms"], "call.expires_at_ms"))
        result.acceptedDeviceID = call["accepted_device_id"] as? String
        result.endReason = try (call["end_reason"] as? String).map {
            SystemEndReason(rawValue: try known($0, in: systemEndReasons, "call.end_reason"))
        }
        result.legs = try legs(call["legs"], createdAt: result.createdAt, expiresAt: result.expiresAt)
        if result.legs != nil { result.answerPolicy = .firstAnswer }
        if call.keys.contains("waiting") { result.waiting = try bool(call["waiting"], "call.waiting") }
        return result
    }

    static func problem(_ value: Any?) throws -> Problem? {
        guard let value, !(value is NSNull) else { return nil }
        let problem = try object(value, "problem")
        try only(["type", "status", "call_state"], in: problem, "problem")
        return Problem(
            type: try string(problem["type"], "problem.type"), title: "vector",
            status: Int(try millis(problem["status"], "problem.status")),
            callState: try (problem["call_state"] as? String).map {
                CallState(rawValue: try known($0, in: callStates, "problem.call_state"))
            })
    }

    static func input(_ input: [String: Any]) throws -> PhoneCallInput {
        let callID = { try string(input["call_id"], "input.call_id") }
        let event = {
            EventType(rawValue: try known(try string(input["event"], "input.event"), in: eventTypes, "input.event"))
        }
        let source = {
            ControlSource(rawValue: try known(try string(input["by"], "input.by"), in: ["system", "app"], "input.by"))!
        }
        let type = try string(input["type"], "input.type")
        guard let fields = inputFields[type] else { throw VectorError(description: "unknown input type \(type)") }
        try only(
            fields.union(["type"]), in: input, "input \(type)",
            required: fields.subtracting(["callee_id", "group", "waiting"]))
        switch type {
        case "incoming_push":
            guard let uuid = UUID(uuidString: try callID()) else {
                throw VectorError(description: "call_id is no UUID")
            }
            let push = IncomingPush(
                uuid: uuid, caller: Party(id: try string(input["caller"], "input.caller")),
                calleeID: input["callee_id"] as? String, hasVideo: try bool(input["has_video"], "input.has_video"),
                sentAt: try date(input["sent_at_ms"], "input.sent_at_ms"),
                expiresAt: try date(input["expires_at_ms"], "input.expires_at_ms"), group: try group(input["group"]),
                waiting: try input["waiting"].map { try bool($0, "input.waiting") } ?? false)
            return .incomingPush(
                push, account: try account(input["account"]),
                reportsEveryPush: try bool(input["reports_every_push"], "input.reports_every_push"))
        case "unreadable_push":
            return .unreadablePush(reportsEveryPush: try bool(input["reports_every_push"], "input.reports_every_push"))
        case "event":
            return .event(try event(), try call(input["call"]))
        case "update_push": return .updatePush(try event(), callID: try callID())
        case "report_finished":
            return .reportFinished(callID: try callID(), accepted: try bool(input["accepted"], "input.accepted"))
        case "answer": return .answer(callID: try callID())
        case "answer_confirmed": return .answerConfirmed(callID: try callID())
        case "answer_refused":
            guard let problem = try problem(input["problem"]) else {
                throw VectorError(description: "answer_refused needs a problem")
            }
            return .answerRefused(callID: try callID(), problem: problem)
        case "ringing_refused":
            guard let problem = try problem(input["problem"]) else {
                throw VectorError(description: "ringing_refused needs a problem")
            }
            return .ringingRefused(callID: try callID(), problem: problem)
        case "hang_up_refused":
            guard let problem = try problem(input["problem"]) else {
                throw VectorError(description: "hang_up_refused needs a problem")
            }
            let kind = try known(
                try string(input["kind"], "input.kind"), in: ["decline", "cancel", "end"], "input.kind")
            return .hangUpRefused(callID: try callID(), PendingCallAction.Kind(rawValue: kind)!, problem: problem)
        case "end": return .end(callID: try callID())
        case "end_all": return .endAll
        case "outgoing_placed": return .outgoingPlaced(try call(input["call"]))
        case "call_read": return .callRead(try call(input["call"]))
        case "keepalive_refused":
            let read = input["call"].flatMap { $0 is NSNull ? nil : $0 }
            return .keepaliveRefused(callID: try callID(), call: try read.map(call))
        case "deadline_reached": return .deadlineReached(callID: try callID())
        case "account_changed": return .accountChanged(try account(input["account"]))
        case "server_time": return .serverTime(try date(input["server_time_ms"], "input.server_time_ms"))
        case "phone_clock_changed": return .phoneClockChanged
        case "relaunched": return .launched
        case "set_held":
            return .setHeld(callID: try callID(), held: try bool(input["held"], "input.held"), by: try source())
        case "set_muted":
            return .setMuted(callID: try callID(), muted: try bool(input["muted"], "input.muted"), by: try source())
        case "play_dtmf":
            return .playDTMF(
                callID: try callID(), digits: try string(input["digits"], "input.digits"), by: try source())
        case let other: throw VectorError(description: "unknown input type \(other)")
        }
    }

    // MARK: Writing effects as the vectors spell them

    static func id(_ uuid: UUID) -> String { uuid.uuidString.lowercased() }
    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    static func json(_ effect: PhoneCallEffect) -> String {
        let object: [String: Any] =
            switch effect {
            case .reportIncoming(let callID, let report):
                report.group.map { ["type": "report_incoming", "call_id": callID, "group": groupJSON($0)] }
                    ?? ["type": "report_incoming", "call_id": callID]
            case .reportDuplicate(let report): ["type": "report_duplicate", "call_id": id(report.id)]
            case .reportAndEnd(let uuid, _, let reason):
                ["type": "report_and_end", "call_id": uuid.map(id) ?? NSNull(), "reason": reason.rawValue]
            case .reportEnded(let uuid, let reason):
                ["type": "report_ended", "call_id": id(uuid), "reason": reason.rawValue]
            case .reportOutgoingConnected(let uuid): ["type": "report_outgoing_connected", "call_id": id(uuid)]
            case .reportAnswering(let uuid): ["type": "report_answering", "call_id": id(uuid)]
            case .reportAnswered(let uuid): ["type": "report_answered", "call_id": id(uuid)]
            case .completeAnswer(let callID, let fulfilled):
                ["type": "complete_answer", "call_id": callID, "fulfilled": fulfilled]
            case .pushHandled(let callID, let disposition):
                ["type": "push_handled", "call_id": callID ?? NSNull(), "disposition": snakeCase(disposition.rawValue)]
            case .ringing(let callID): ["type": "ringing", "call_id": callID]
            case .answered(let callID): ["type": "answered", "call_id": callID]
            case .ended(let callID, let reason):
                ["type": "ended", "call_id": callID, "reason": reason?.rawValue ?? NSNull()]
            case .sendRinging(let callID): ["type": "send_ringing", "call_id": callID]
            case .sendAccept(let callID): ["type": "send_accept", "call_id": callID]
            case .sendHangUp(let callID, let kind): ["type": "send_hang_up", "call_id": callID, "kind": kind.rawValue]
            case .armDeadline(let callID, let at): ["type": "arm_deadline", "call_id": callID, "at_ms": millis(at)]
            case .startKeepalive(let callID): ["type": "start_keepalive", "call_id": callID]
            case .fetchMedia(let callID): ["type": "fetch_media", "call_id": callID]
            case .saveClockOffset(let offset):
                ["type": "save_clock_offset", "offset_ms": Int64((offset * 1000).rounded())]
            case .requestHeld(let callID, let held): ["type": "request_held", "call_id": callID, "held": held]
            case .requestMuted(let callID, let muted): ["type": "request_muted", "call_id": callID, "muted": muted]
            case .heldChanged(let callID, let held): ["type": "held_changed", "call_id": callID, "held": held]
            case .mutedChanged(let callID, let muted): ["type": "muted_changed", "call_id": callID, "muted": muted]
            case .requestDTMF(let callID, let digits): ["type": "request_dtmf", "call_id": callID, "digits": digits]
            case .dtmf(let callID, let digits): ["type": "dtmf", "call_id": callID, "digits": digits]
            case .participantsChanged(let callID, let legs):
                ["type": "participants_changed", "call_id": callID, "legs": legsJSON(legs)]
            }
        return canonical(object)
    }

    /// `alreadyEnded` as the vectors spell it: `already_ended`.
    static func snakeCase(_ name: String) -> String {
        name.reduce(into: "") { result, character in
            result += character.isUppercase ? "_" + character.lowercased() : String(character)
        }
    }

    /// One spelling per JSON value (sorted keys), so effects compare as text.
    static func canonical(_ value: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
