import Foundation
import RingerSandbox
import RingerServer
import RingerWire

/// Turns a scenario document into a ``Scenario``, strictly: unknown keys, wrong types, values out of
/// range and references to undeclared users, devices or calls are errors naming the JSON path.
/// The expectation half is in `ScenarioParser+Expectations.swift`. Not thread-safe; one per file.
struct ScenarioParser {
    /// The longest scenario, scenario seconds.
    static let maximumTime: TimeInterval = 3600
    /// The most server nodes a scenario may need (each is a `ringer serve` process on this machine).
    static let maximumNodes = 9
    /// Event types a scenario may name (RingerWire's ``EventType`` members).
    static let eventTypes: [EventType] = [
        .callIncoming, .callRinging, .callAccepted, .callDeclined, .callCancelled,
        .callAnsweredElsewhere, .callDeclinedElsewhere, .callUnanswered, .callEnded,
    ]
    /// Call states a scenario may name.
    static let states: [CallState] = [.ringing, .accepted, .declined, .cancelled, .unanswered, .busy, .ended, .failed]

    let file: String

    func scenario(from json: ScenarioJSON) throws -> Scenario {
        let top = try ScenarioObjectReader(json, file: file, path: "$")
        guard let name = try top.string("name") else { throw invalid("$", "missing required key \"name\"") }
        let description = try top.string("description")
        let ringTimeout = try top.seconds("ring_timeout", in: 1...600) ?? 45
        let callIdleTimeout = try top.seconds("call_idle_timeout", in: 10...3600) ?? 120
        let maxCallDuration = try top.seconds("max_call_duration", in: 60...604_800) ?? 14_400
        let nodes = try top.count("nodes") ?? 1
        guard (1...Self.maximumNodes).contains(nodes) else {
            throw top.error("nodes", "must be between 1 and \(Self.maximumNodes) server nodes, got \(nodes)")
        }
        let users = try self.users(top)
        let devices = try self.devices(top, users: users, nodes: nodes)
        let timeline = try self.timeline(top, users: users, devices: devices, nodes: nodes)
        let lastAction = timeline.last?.at ?? 0
        let runUntil = try top.seconds("run_until", in: 0...Self.maximumTime) ?? lastAction + 5
        guard runUntil >= lastAction else {
            throw top.error("run_until", "must not be before the last step (at \(lastAction) s)")
        }
        var scenario = Scenario(
            file: file, name: name, description: description, ringTimeout: ringTimeout,
            runUntil: runUntil, users: users, devices: devices, timeline: timeline,
            expect: ScenarioExpectation())
        scenario.callIdleTimeout = callIdleTimeout
        scenario.maxCallDuration = maxCallDuration
        scenario.nodes = nodes
        guard let expect = try top.object("expect") else { throw invalid("$", "missing required key \"expect\"") }
        scenario.expect = try expectation(expect, scenario: scenario)
        try top.finish()
        return scenario
    }

    func invalid(_ path: String, _ message: String) -> ScenarioFileError { .invalid(file, at: path, message) }

    // MARK: Users and devices

    private func users(_ top: ScenarioObjectReader) throws -> [Scenario.User] {
        guard let items = try top.array("users") else { throw invalid("$", "missing required key \"users\"") }
        guard !items.isEmpty else { throw top.error("users", "declare at least one user") }
        var users: [Scenario.User] = []
        for (value, path) in items {
            let reader = try ScenarioObjectReader(value, file: file, path: path)
            let id = try identifier(reader, "id")
            guard !users.contains(where: { $0.id == id }) else {
                throw reader.error("id", "user \"\(id)\" is declared twice")
            }
            let name = try reader.string("name")
            if let name, let problem = DisplayName.problem(name) { throw reader.error("name", problem) }
            try reader.finish()
            users.append(Scenario.User(id: id, name: name))
        }
        return users
    }

    private func devices(_ top: ScenarioObjectReader, users: [Scenario.User], nodes: Int) throws -> [ScenarioDevice] {
        guard let items = try top.array("devices") else { throw invalid("$", "missing required key \"devices\"") }
        var devices: [ScenarioDevice] = []
        for (value, path) in items {
            let reader = try ScenarioObjectReader(value, file: file, path: path)
            let id = try identifier(reader, "id")
            guard !devices.contains(where: { $0.id == id }) else {
                throw reader.error("id", "device \"\(id)\" is declared twice")
            }
            let user = try declaredUser(reader, "user", users: users, required: true)!
            let android = try reader.choice("platform", ["ios", "android"]) == "android"
            let phoneOn = try reader.choice("phone", ["on", "off"]) != "off"
            let states =
                android
                ? ["foreground", "background", "swiped_away", "force_stopped"]
                : ["foreground", "background", "killed"]
            if android, case .string("killed")? = reader.value("app") {
                throw reader.error(
                    "app",
                    "an Android app is \"swiped_away\" (an FCM message starts it) or "
                        + "\"force_stopped\" (nothing reaches it), not \"killed\"")
            }
            let app = try reader.choice("app", states)
            let stopped = android ? "swiped_away" : "killed"
            if !phoneOn, let app, app != stopped, app != "force_stopped" {
                throw reader.error("app", "a phone that is off runs no app: leave \"app\" out or use \"\(stopped)\"")
            }
            var device = ScenarioDevice(
                id: id, user: user, platform: android ? .android : .ios,
                app: .init(rawValue: app ?? (phoneOn ? "foreground" : stopped))!, phoneOn: phoneOn,
                behaviour: try behaviour(reader), loggedIn: try reader.bool("logged_in") ?? true,
                pushDelay: try reader.seconds("push_delay", in: 0...Self.maximumTime) ?? 0)
            device.node = try node(reader, nodes: nodes, required: false)
            if android {
                try androidSettings(reader, into: &device)
            } else {
                for key in Self.androidKeys where reader.has(key) {
                    throw reader.error(key, "only an Android phone (\"platform\": \"android\") has \"\(key)\"")
                }
            }
            try reader.finish()
            devices.append(device)
        }
        return devices
    }

    /// A `node` key: a node number below the scenario's `nodes`.
    /// - Throws: when it is missing but required, or not a node the scenario declares.
    func node(_ reader: ScenarioObjectReader, nodes: Int, required: Bool) throws -> Int? {
        guard let node = try reader.count("node") else {
            if required {
                throw invalid(reader.path, "missing required key \"node\" (a server node, 0 to \(nodes - 1))")
            }
            return nil
        }
        guard node < nodes else {
            throw reader.error(
                "node", "the scenario has \(nodes) node(s), 0 to \(nodes - 1) (raise \"nodes\" for more), got \(node)")
        }
        return node
    }

    /// Device keys only an Android phone has.
    static let androidKeys = ["dozing", "locked", "permissions", "fcm_faults", "call_ui"]

    /// The permissions object's keys: each Android permission's name in snake case.
    static let permissionKeys: [(key: String, permission: AndroidPermission)] = AndroidPermission.allCases.map {
        ($0.name.lowercased(), $0)
    }

    /// `dozing`, `locked`, `permissions` (`{"use_full_screen_intent": false, …}`), `fcm_faults` and `call_ui`.
    private func androidSettings(_ reader: ScenarioObjectReader, into device: inout ScenarioDevice) throws {
        device.dozing = try reader.bool("dozing") ?? false
        if let callUI = try reader.choice("call_ui", ScenarioDevice.AndroidCallUI.allCases.map(\.rawValue)) {
            device.callUI = ScenarioDevice.AndroidCallUI(rawValue: callUI)!
        }
        device.locked = try reader.bool("locked") ?? false
        if let permissions = try reader.object("permissions") {
            for (key, permission) in Self.permissionKeys {
                if try permissions.bool(key) == false { device.permissions.remove(permission) }
            }
            try permissions.finish()
        }
        device.fcmFaults =
            try reader.array("fcm_faults")?.map { value, path in
                let fault = try ScenarioObjectReader(value, file: file, path: path)
                let result = try fcmFault(fault)
                try fault.finish()
                return result
            } ?? []
    }

    /// Error codes a scenario may make FCM answer with (Google: FCM HTTP v1 `ErrorCode`).
    static let fcmCodes = [
        "UNREGISTERED", "INVALID_ARGUMENT", "SENDER_ID_MISMATCH", "QUOTA_EXCEEDED", "UNAVAILABLE",
        "INTERNAL", "THIRD_PARTY_AUTH_ERROR",
    ]

    /// `{"code": …, "retry_after": s, "count": n | "persistent": true}` (count 1 by default).
    func fcmFault(_ reader: ScenarioObjectReader) throws -> ScenarioDevice.FCMFault {
        guard let code = try reader.choice("code", Self.fcmCodes) else {
            throw invalid(reader.path, "missing required key \"code\" (an FCM error code)")
        }
        let retryAfter = try reader.count("retry_after")
        let persistent = try reader.bool("persistent") ?? false
        let count = try reader.count("count")
        if persistent, count != nil { throw reader.error("count", "use \"count\" or \"persistent\", not both") }
        if count == 0 { throw reader.error("count", "at least 1") }
        return ScenarioDevice.FCMFault(code: code, retryAfter: retryAfter, count: persistent ? nil : count ?? 1)
    }

    /// `"ignore"`, `{"answer_after": s}` or `{"decline_after": s}`.
    private func behaviour(_ device: ScenarioObjectReader) throws -> ScenarioDevice.Behaviour {
        guard let value = device.value("behaviour") else { return .ignore }
        if case .string("ignore") = value { return .ignore }
        guard case .object(let fields) = value, fields.count == 1 else {
            throw device.error(
                "behaviour", "expected \"ignore\", {\"answer_after\": seconds} or {\"decline_after\": seconds}")
        }
        let reader = try ScenarioObjectReader(value, file: file, path: device.path("behaviour"))
        let range = 0...Self.maximumTime
        if let seconds = try reader.seconds("answer_after", in: range) {
            try reader.finish()
            return .answer(after: seconds)
        }
        if let seconds = try reader.seconds("decline_after", in: range) {
            try reader.finish()
            return .decline(after: seconds)
        }
        try reader.finish()
        return .ignore
    }

    // MARK: Shared checks

    /// A required, valid user or device id.
    func identifier(_ reader: ScenarioObjectReader, _ key: String) throws -> String {
        guard let id = try reader.string(key) else { throw invalid(reader.path, "missing required key \"\(key)\"") }
        guard Identifier.isValid(id) else {
            throw reader.error(key, "\"\(id)\" is not a valid id (1 to 128 letters, digits and ._:@-)")
        }
        return id
    }

    /// A reference to a declared user.
    func declaredUser(
        _ reader: ScenarioObjectReader, _ key: String, users: [Scenario.User],
        required: Bool
    ) throws -> String? {
        guard reader.has(key) || required else { return nil }
        let id = try identifier(reader, key)
        guard users.contains(where: { $0.id == id }) else {
            throw reader.error(key, "no user \"\(id)\" is declared in \"users\"")
        }
        return id
    }

    /// `alreadyEnded` → `already_ended`: the file's spelling of RingerKit's camel-case names, as on the wire.
    static func snakeCase(_ name: String) -> String { RingerJSON.snakeCase(name) }

    /// A reference to a declared device.
    func declaredDevice(_ value: ScenarioJSON, path: String, devices: [ScenarioDevice]) throws -> String {
        guard case .string(let id) = value, devices.contains(where: { $0.id == id }) else {
            throw invalid(path, "\(value.shown) is not a device declared in \"devices\"")
        }
        return id
    }
}
