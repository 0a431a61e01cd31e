import Foundation
import RingerKit
import RingerSandbox
import RingerWire

/// The `expect` half of the parser.
extension ScenarioParser {
    func expectation(_ reader: ScenarioObjectReader, scenario: Scenario) throws -> ScenarioExpectation {
        var expect = ScenarioExpectation()
        if let calls = try reader.object("calls") {
            for (label, value) in calls.entries() {
                guard scenario.callLabels.contains(label) else {
                    throw calls.error(
                        label,
                        "no step places a call named \"\(label)\" (placed: "
                            + "\(scenario.callLabels.joined(separator: ", ")))")
                }
                let call = try ScenarioObjectReader(value, file: file, path: calls.path(label))
                expect.calls[label] = try callExpectation(call, scenario: scenario, allowAlternatives: true)
            }
        }
        if let devices = try reader.object("devices") {
            for (id, value) in devices.entries() {
                _ = try declaredDevice(.string(id), path: devices.path(id), devices: scenario.devices)
                let device = try ScenarioObjectReader(value, file: file, path: devices.path(id))
                expect.devices[id] = try deviceExpectation(device)
            }
        }
        expect.appsKilled = try reader.count("apps_killed") ?? 0
        try reader.finish()
        return expect
    }

    private func callExpectation(
        _ reader: ScenarioObjectReader, scenario: Scenario,
        allowAlternatives: Bool
    ) throws -> ScenarioExpectation.Call {
        var call = ScenarioExpectation.Call()
        call.state = try reader.choice("state", Self.states.map(\.rawValue)).map(CallState.init(rawValue:))
        if let value = reader.value("ended_by") {
            if value == .null {
                call.endedBy = .some(nil)
            } else {
                call.endedBy = .some(try declaredUser(reader, "ended_by", users: scenario.users, required: true))
            }
        }
        if let value = reader.value("failure_reason") {
            if value == .null {
                call.failureReason = .some(nil)
            } else {
                call.failureReason = .some(try reader.string("failure_reason"))
            }
        }
        if let value = reader.value("end_reason") {
            call.endReason =
                value == .null
                ? .some(nil)
                : .some(
                    try reader.choice("end_reason", [SystemEndReason.connectionLost, .maximumDuration].map(\.rawValue))
                        .map(SystemEndReason.init(rawValue:)))
        }
        if let value = reader.value("accepted_device") {
            let path = reader.path("accepted_device")
            if value == .null {
                call.acceptedDevice = [nil]
            } else if case .array(let items) = value, !items.isEmpty {
                call.acceptedDevice = try items.enumerated().map { index, item in
                    try declaredDevice(item, path: "\(path)[\(index)]", devices: scenario.devices)
                }
            } else {
                call.acceptedDevice = [try declaredDevice(value, path: path, devices: scenario.devices)]
            }
        }
        call.waiting = try reader.bool("waiting")
        if let devices = try reader.object("devices") {
            for (id, value) in devices.entries() {
                _ = try declaredDevice(.string(id), path: devices.path(id), devices: scenario.devices)
                let device = try ScenarioObjectReader(value, file: file, path: devices.path(id))
                call.devices[id] = try callDeviceExpectation(device, scenario.devices.first { $0.id == id }!)
            }
        }
        if let legs = try reader.object("legs") {
            var expected: [String: LegState] = [:]
            let states = [LegState.ringing, .accepted, .declined, .busy, .failed, .unanswered, .cancelled, .left]
            for (user, _) in legs.entries() {
                guard scenario.users.contains(where: { $0.id == user }) else {
                    throw legs.error(user, "no user \"\(user)\" is declared in \"users\"")
                }
                guard let state = try legs.choice(user, states.map(\.rawValue)) else { continue }
                expected[user] = LegState(rawValue: state)
            }
            try legs.finish()
            call.legs = expected
        }
        if allowAlternatives, let items = try reader.array("one_of") {
            guard items.count >= 2 else { throw reader.error("one_of", "list at least two alternatives") }
            call.oneOf = try items.map { value, path in
                try callExpectation(
                    try ScenarioObjectReader(value, file: file, path: path), scenario: scenario,
                    allowAlternatives: false)
            }
        }
        try reader.finish()
        return call
    }

    /// Call-device keys only an Android phone has.
    private static let androidCallKeys = ["shown", "disconnect_cause", "ring_message"]

    private func callDeviceExpectation(
        _ reader: ScenarioObjectReader,
        _ declared: ScenarioDevice
    ) throws -> ScenarioExpectation.CallDevice {
        var device = ScenarioExpectation.CallDevice()
        if declared.platform != .android, let key = Self.androidCallKeys.first(where: reader.has) {
            throw reader.error(key, "only an Android phone has \"\(key)\"; \(declared.id) is an iPhone")
        }
        device.delivered = try reader.bool("delivered")
        device.stoppedWithin = try reader.seconds("stopped_within", in: 0...Self.maximumTime)
        if let value = reader.value("shown") {
            device.shown =
                value == .null ? .some(nil) : .some(try reader.choice("shown", ["in_app", "full_screen", "heads_up"]))
        }
        if let value = reader.value("ring_message") {
            let fates = ["delivered", "not_delivered", "expired", "stored", "collapsed", "discarded"]
            device.ringMessage = value == .null ? .some(nil) : .some(try reader.choice("ring_message", fates))
        }
        if let value = reader.value("disconnect_cause") {
            let path = reader.path("disconnect_cause")
            var items = [value]
            var listed = false
            if case .array(let list) = value, !list.isEmpty { (items, listed) = (list, true) }
            device.disconnectCause = try items.enumerated().map { index, item in
                if item == .null { return nil }
                let codes = DisconnectCause.Code.allCases.map(\.rawValue)
                guard case .string(let code) = item, codes.contains(code) else {
                    throw invalid(
                        listed ? "\(path)[\(index)]" : path,
                        "expected null or one of \(codes.joined(separator: ", ")); got \(item.shown)")
                }
                return code
            }
        }
        if let value = reader.value("push_outcome") {
            if value == .null {
                device.pushOutcome = .some(nil)
            } else {
                guard let outcome = try reader.object("push_outcome") else {
                    throw reader.error("push_outcome", "expected an object")
                }
                device.pushOutcome = .some(try pushOutcome(outcome))
            }
        }
        device.rang = try reader.bool("rang")
        device.woken = try reader.bool("woken")
        device.answered = try reader.bool("answered")
        device.media = try reader.bool("media")
        device.wasHeld = try reader.bool("was_held")
        device.held = try reader.bool("held")
        device.muted = try reader.bool("muted")
        device.tones = try reader.string("tones")
        let dispositions: [CallCoordinator.PushDisposition] = [
            .ringing, .duplicate, .unreadable, .expired, .alreadyEnded,
            .loggedOut,
        ]
        if let value = reader.value("push") {
            if value == .null {
                device.push = .some(nil)
            } else {
                device.push = .some(try reader.choice("push", dispositions.map { Self.snakeCase($0.rawValue) }))
            }
        }
        if let value = reader.value("end_reason") {
            let path = reader.path("end_reason")
            if case .array(let items) = value, !items.isEmpty {
                device.endReason = try items.enumerated().map {
                    try endReason($0.element, path: "\(path)[\($0.offset)]")
                }
            } else {
                device.endReason = [try endReason(value, path: path)]
            }
        }
        try reader.finish()
        return device
    }

    /// `{"status": 503 | null, "reason": "UNAVAILABLE" | null, "attempts": 2}`.
    private func pushOutcome(_ reader: ScenarioObjectReader) throws -> ScenarioExpectation.PushOutcome {
        var outcome = ScenarioExpectation.PushOutcome()
        if let value = reader.value("status") {
            if value == .null {
                outcome.status = .some(nil)
            } else {
                guard let status = try reader.count("status"), (100...599).contains(status) else {
                    throw reader.error("status", "expected an HTTP status (100-599) or null")
                }
                outcome.status = .some(status)
            }
        }
        if let value = reader.value("reason") {
            outcome.reason = value == .null ? .some(nil) : .some(try reader.string("reason"))
        }
        outcome.attempts = try reader.count("attempts")
        try reader.finish()
        return outcome
    }

    private func endReason(_ value: ScenarioJSON, path: String) throws -> CallEndReason? {
        let reasons: [CallEndReason] = [
            .failed, .remoteEnded, .unanswered, .answeredElsewhere, .declinedElsewhere,
            .answerNotDelivered,
        ]
        if value == .null { return nil }
        guard case .string(let raw) = value, reasons.contains(CallEndReason(rawValue: raw)) else {
            throw invalid(
                path, "expected null or one of \(reasons.map(\.rawValue).joined(separator: ", ")); got \(value.shown)")
        }
        return CallEndReason(rawValue: raw)
    }

    private func deviceExpectation(_ reader: ScenarioObjectReader) throws -> ScenarioExpectation.Device {
        var device = ScenarioExpectation.Device()
        device.events = try eventList(reader, "events")
        device.eventsInOrder = try eventList(reader, "events_in_order")
        if device.events != nil, device.eventsInOrder != nil {
            throw reader.error(
                "events_in_order", "use \"events\" (exact) or \"events_in_order\" (subsequence), not both")
        }
        device.registered = try reader.bool("registered")
        device.notifications = try reader.array("notifications")?.map { value, path in
            guard case .string(let title) = value else {
                throw invalid(path, "expected a notification title, got \(value.shown)")
            }
            return title
        }
        device.tokenRemoved = try reader.bool("token_removed")
        try reader.finish()
        return device
    }

    private func eventList(_ reader: ScenarioObjectReader, _ key: String) throws -> [EventType]? {
        try reader.array(key)?.map { value, path in
            guard case .string(let raw) = value, Self.eventTypes.contains(EventType(rawValue: raw)) else {
                throw invalid(
                    path,
                    "expected an event type (\(Self.eventTypes.map(\.rawValue).joined(separator: ", "))); "
                        + "got \(value.shown)")
            }
            return EventType(rawValue: raw)
        }
    }
}
