import Foundation
import RingerKit
import RingerWire

/// The `expect` half of the parser.
extension ScenarioParser {
    func expectation(_ reader: ScenarioObjectReader, scenario: Scenario) throws -> ScenarioExpectation {
        var expect = ScenarioExpectation()
        if let calls = try reader.object("calls") {
            for (label, value) in calls.entries() {
                guard scenario.callLabels.contains(label) else {
                    throw calls.error(label, "no step places a call named \"\(label)\" (placed: "
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

    private func callExpectation(_ reader: ScenarioObjectReader, scenario: Scenario,
                                 allowAlternatives: Bool) throws -> ScenarioExpectation.Call {
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
        if let devices = try reader.object("devices") {
            for (id, value) in devices.entries() {
                _ = try declaredDevice(.string(id), path: devices.path(id), devices: scenario.devices)
                let device = try ScenarioObjectReader(value, file: file, path: devices.path(id))
                call.devices[id] = try callDeviceExpectation(device)
            }
        }
        if allowAlternatives, let items = try reader.array("one_of") {
            guard items.count >= 2 else { throw reader.error("one_of", "list at least two alternatives") }
            call.oneOf = try items.map { value, path in
                try callExpectation(try ScenarioObjectReader(value, file: file, path: path), scenario: scenario,
                                    allowAlternatives: false)
            }
        }
        try reader.finish()
        return call
    }

    private func callDeviceExpectation(_ reader: ScenarioObjectReader) throws -> ScenarioExpectation.CallDevice {
        var device = ScenarioExpectation.CallDevice()
        device.rang = try reader.bool("rang")
        device.woken = try reader.bool("woken")
        device.answered = try reader.bool("answered")
        device.media = try reader.bool("media")
        let dispositions: [CallCoordinator.PushDisposition] = [.ringing, .duplicate, .unreadable, .expired, .alreadyEnded,
                                                               .loggedOut]
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
                device.endReason = try items.enumerated().map { try endReason($0.element, path: "\(path)[\($0.offset)]") }
            } else {
                device.endReason = [try endReason(value, path: path)]
            }
        }
        try reader.finish()
        return device
    }

    private func endReason(_ value: ScenarioJSON, path: String) throws -> CallEndReason? {
        let reasons: [CallEndReason] = [.failed, .remoteEnded, .unanswered, .answeredElsewhere, .declinedElsewhere]
        if value == .null { return nil }
        guard case .string(let raw) = value, reasons.contains(CallEndReason(rawValue: raw)) else {
            throw invalid(path, "expected null or one of \(reasons.map(\.rawValue).joined(separator: ", ")); got \(value.shown)")
        }
        return CallEndReason(rawValue: raw)
    }

    private func deviceExpectation(_ reader: ScenarioObjectReader) throws -> ScenarioExpectation.Device {
        var device = ScenarioExpectation.Device()
        device.events = try eventList(reader, "events")
        device.eventsInOrder = try eventList(reader, "events_in_order")
        if device.events != nil, device.eventsInOrder != nil {
            throw reader.error("events_in_order", "use \"events\" (exact) or \"events_in_order\" (subsequence), not both")
        }
        device.registered = try reader.bool("registered")
        try reader.finish()
        return device
    }

    private func eventList(_ reader: ScenarioObjectReader, _ key: String) throws -> [EventType]? {
        try reader.array(key)?.map { value, path in
            guard case .string(let raw) = value, Self.eventTypes.contains(EventType(rawValue: raw)) else {
                throw invalid(path, "expected an event type (\(Self.eventTypes.map(\.rawValue).joined(separator: ", "))); "
                              + "got \(value.shown)")
            }
            return EventType(rawValue: raw)
        }
    }
}
