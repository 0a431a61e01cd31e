import Foundation
import RingerKit
import RingerSandbox
import RingerWire

/// The `timeline` half of the parser: steps in time order, each naming declared devices, users and
/// calls placed by an earlier step.
extension ScenarioParser {
    /// Actions only an Android phone can take.
    private static let androidActions = ["force_stop", "doze", "wake", "lock", "unlock", "fcm_fault", "revoke_token"]
    /// Actions only an iPhone can take: CallKit's call screen has Mute and a keypad; a self-managed Android call has
    /// no system call screen (the app's own mutes it and plays its tones).
    private static let iPhoneActions = ["mute", "unmute", "keypad", "call_back"]
    /// A call among other calls, on either phone: a cellular (SIM) call, the user's hold and resume.
    private static let callControlActions = ["cellular_call", "cellular_call_ends", "hold", "resume"]
    private static let deviceActions =
        [
            "call", "ring_more", "cancel", "hang_up", "answer", "decline", "background", "foreground",
            "kill_app", "phone_off", "phone_on", "network_down", "network_up",
        ] + androidActions + iPhoneActions + callControlActions
    private static let otherActions = ["restart_server", "kill_node", "start_node", "check"]

    func timeline(
        _ top: ScenarioObjectReader, users: [Scenario.User],
        devices: [ScenarioDevice], nodes: Int
    ) throws -> [ScenarioAction] {
        guard let items = try top.array("timeline") else { throw invalid("$", "missing required key \"timeline\"") }
        var actions: [ScenarioAction] = []
        var calls: [String] = []
        for (value, path) in items {
            let reader = try ScenarioObjectReader(value, file: file, path: path)
            guard let at = try reader.seconds("at", in: 0...Self.maximumTime) else {
                throw invalid(path, "missing required key \"at\" (scenario seconds)")
            }
            if let previous = actions.last, at < previous.at {
                throw reader.error("at", "steps must be in time order; the step before is at \(previous.at) s")
            }
            guard let name = try reader.choice("action", Self.deviceActions + Self.otherActions) else {
                throw invalid(path, "missing required key \"action\"")
            }
            let action = try step(
                name, at: at, reader: reader, users: users, devices: devices, nodes: nodes, calls: &calls)
            try reader.finish()
            actions.append(action)
        }
        return actions
    }

    private func step(
        _ name: String, at: TimeInterval, reader: ScenarioObjectReader, users: [Scenario.User],
        devices: [ScenarioDevice], nodes: Int, calls: inout [String]
    ) throws -> ScenarioAction {
        var device: ScenarioDevice?
        if Self.deviceActions.contains(name) {
            guard let value = reader.value("device") else {
                throw invalid(reader.path, "missing required key \"device\" (the device whose user acts)")
            }
            let id = try declaredDevice(value, path: reader.path("device"), devices: devices)
            device = devices.first { $0.id == id }
            if Self.androidActions.contains(name), device?.platform != .android {
                throw reader.error("device", "\"\(name)\" is an Android action; \(id) is an iPhone")
            }
            if Self.iPhoneActions.contains(name), device?.platform == .android {
                throw reader.error("device", "\"\(name)\" is an iPhone action; \(id) is an Android phone")
            }
        }
        let kind: ScenarioAction.Kind
        switch name {
        case "call":
            let (caller, label) = try newCall(reader, device: device, calls: calls, default: "call")
            if reader.has("callees") {
                // A group call (decision 0007): the iPhone app places it through RingerKit's startGroupCall.
                guard caller.platform == .ios else {
                    throw reader.error("callees", "group calls are placed from an iPhone in scenarios")
                }
                if reader.has("callee") { throw reader.error("callee", "give callee or callees, not both") }
                let callees = try declaredUsers(reader, "callees", users: users)
                guard !callees.contains(caller.user) else {
                    throw reader.error("callees", "\(caller.user) cannot call themselves")
                }
                let policy = try reader.choice("answer_policy", AnswerPolicy.known.map(\.rawValue)) ?? "first_answer"
                calls.append(label)
                kind = .groupCall(callees: callees, policy: AnswerPolicy(rawValue: policy), label: label)
            } else {
                let callee = try declaredUser(reader, "callee", users: users, required: true)!
                guard callee != caller.user else { throw reader.error("callee", "\(callee) cannot call themselves") }
                calls.append(label)
                kind = .call(callee: callee, label: label, callWaiting: try reader.bool("call_waiting"))
            }
        case "call_back":
            let label = try newCall(reader, device: device, calls: calls, default: "call_back").label
            calls.append(label)
            kind = .callBack(label: label)
        case "ring_more":
            kind = .ringMore(
                callees: try declaredUsers(reader, "callees", users: users), label: try placedCall(reader, calls))
        case "cancel": kind = .cancel(label: try placedCall(reader, calls))
        case "hang_up": kind = .hangUp(label: try placedCall(reader, calls))
        case "answer": kind = .answer(label: try placedCall(reader, calls))
        case "decline": kind = .decline(label: try placedCall(reader, calls))
        case "background": kind = .background
        case "foreground": kind = .foreground
        case "kill_app": kind = .killApp
        case "phone_off": kind = .phoneOff
        case "phone_on": kind = .phoneOn
        case "network_down": kind = .networkDown
        case "network_up": kind = .networkUp
        case "force_stop": kind = .forceStop
        case "doze": kind = .doze
        case "wake": kind = .wake
        case "lock": kind = .lock
        case "unlock": kind = .unlock
        case "fcm_fault": kind = .fcmFault(try fcmFault(reader))
        case "revoke_token": kind = .revokeToken
        case "cellular_call":
            guard
                let answer = try reader.choice(
                    "answer", SimulatedCallKit.CellularAnswer.allCases.map(\.rawValue))
            else {
                throw invalid(
                    reader.path, "missing required key \"answer\" (hold_and_accept, end_and_accept or decline)")
            }
            kind = .cellularCall(answer: SimulatedCallKit.CellularAnswer(rawValue: answer)!)
        case "cellular_call_ends": kind = .cellularCallEnds
        case "hold", "resume": kind = .hold(label: try placedCall(reader, calls), held: name == "hold")
        case "mute", "unmute": kind = .mute(label: try placedCall(reader, calls), muted: name == "mute")
        case "keypad":
            let label = try placedCall(reader, calls)
            guard let digits = try reader.string("digits"),
                digits.count <= 64, !digits.isEmpty, digits.allSatisfy(PhoneCallMachine.dtmfDigits.contains)
            else {
                throw reader.error("digits", "expected 1 to 64 keypad keys (0-9, *, #, A-D)")
            }
            kind = .keypad(label: label, digits: digits)
        case "restart_server":
            kind = .restartServer(downFor: try reader.seconds("down_for", in: 0...Self.maximumTime) ?? 1)
        case "kill_node": kind = .killNode(try node(reader, nodes: nodes, required: true)!)
        case "start_node": kind = .startNode(try node(reader, nodes: nodes, required: true)!)
        default:
            let label = try placedCall(reader, calls)
            guard let state = try reader.choice("state", Self.states.map(\.rawValue)) else {
                throw invalid(reader.path, "missing required key \"state\" (the call state expected at this time)")
            }
            kind = .check(label: label, state: CallState(rawValue: state))
        }
        return ScenarioAction(at: at, device: device?.id, kind: kind)
    }

    /// A step that places a call: its device, whose app must be logged in, and the new call's name (`call`, else
    /// `fallback`), which no earlier step used.
    /// - Throws: when the device's app is logged out or the name is taken.
    private func newCall(
        _ reader: ScenarioObjectReader, device: ScenarioDevice?, calls: [String], default fallback: String
    ) throws -> (caller: ScenarioDevice, label: String) {
        guard let caller = device, caller.loggedIn else {
            throw reader.error("device", "the app of a device that is not logged in cannot place calls")
        }
        let label = try reader.string("call") ?? fallback
        guard !calls.contains(label) else {
            throw reader.error("call", "a call named \"\(label)\" was already placed; name this one differently")
        }
        return (caller, label)
    }

    /// A non-empty list of distinct declared users (`callees`).
    private func declaredUsers(_ reader: ScenarioObjectReader, _ key: String, users: [Scenario.User]) throws -> [String]
    {
        guard let items = try reader.array(key), !items.isEmpty else {
            throw reader.error(key, "expected a non-empty list of declared users")
        }
        var ids: [String] = []
        for (value, path) in items {
            guard case .string(let id) = value, users.contains(where: { $0.id == id }) else {
                throw invalid(path, "\(value.shown) is not a user declared in \"users\"")
            }
            guard !ids.contains(id) else { throw invalid(path, "\(id) is named twice") }
            ids.append(id)
        }
        return ids
    }

    /// The `call` key of a step acting on a call: the label of a call an earlier step placed
    /// (`"call"` when absent, the default label of a `call` step).
    private func placedCall(_ reader: ScenarioObjectReader, _ calls: [String]) throws -> String {
        let label = try reader.string("call") ?? "call"
        guard calls.contains(label) else {
            let placed =
                calls.isEmpty ? "no call is placed before this step" : "placed so far: \(calls.joined(separator: ", "))"
            throw reader.has("call")
                ? reader.error("call", "no earlier step places a call named \"\(label)\" (\(placed))")
                : invalid(reader.path, "this step acts on a call: name it with \"call\" (\(placed))")
        }
        return label
    }
}
