import Foundation
import RingerKit
import RingerSandbox
import RingerWire

/// Compares what a run recorded with what the scenario expects, and checks the rules every scenario
/// must keep (no app killed by PushKit's rule; every VoIP push is a `call.incoming` that expires at
/// the ring deadline). Pure: each mismatch is one line saying what was seen and what was expected.
struct ScenarioVerdict {
    let scenario: Scenario
    /// What each phone did.
    let devices: [String: ScenarioRecorder.DeviceRecord]
    /// The calls the time line placed, by label, as the server has them now.
    let calls: [String: Call]
    /// Every push the APNs sandbox accepted.
    let pushes: [SandboxPush]

    /// Every difference, in a stable order; empty when the run matched.
    func mismatches() -> [String] {
        var found: [String] = []
        for label in scenario.callLabels {
            guard let expected = scenario.expect.calls[label] else { continue }
            guard let call = calls[label] else {
                found.append("call \(label): was never placed")
                continue
            }
            found += check(expected, call: call, label: label)
        }
        for id in scenario.expect.devices.keys.sorted() {
            found += check(scenario.expect.devices[id]!, device: id)
        }
        found += invariants()
        return found
    }

    private func check(_ expected: ScenarioExpectation.Call, call: Call, label: String) -> [String] {
        var found = fields(expected, call: call, label: label)
        guard !expected.oneOf.isEmpty else { return found }
        let alternatives = expected.oneOf.map { fields($0, call: call, label: label) }
        if !alternatives.contains(where: \.isEmpty) {
            found.append("call \(label): none of the one_of alternatives matched")
            for (index, problems) in alternatives.enumerated() {
                found += problems.map { "  alternative \(index + 1): \($0)" }
            }
        }
        return found
    }

    private func fields(_ expected: ScenarioExpectation.Call, call: Call, label: String) -> [String] {
        var found: [String] = []
        let name = "call \(label)"
        if let state = expected.state, call.state != state {
            found.append("\(name): state is \(call.state.rawValue), expected \(state.rawValue)")
        }
        if let endedBy = expected.endedBy, call.endedBy != endedBy {
            found.append("\(name): ended_by is \(Self.show(call.endedBy)), expected \(Self.show(endedBy))")
        }
        if let reason = expected.failureReason, call.failureReason != reason {
            found.append("\(name): failure_reason is \(Self.show(call.failureReason)), expected \(Self.show(reason))")
        }
        if let devices = expected.acceptedDevice, !devices.contains(call.acceptedDeviceId) {
            let wanted = devices.map(Self.show)
            found.append("\(name): accepted_device is \(Self.show(call.acceptedDeviceId)), expected "
                         + (wanted.count == 1 ? wanted[0] : "one of \(wanted.joined(separator: ", "))"))
        }
        for id in expected.devices.keys.sorted() {
            found += check(expected.devices[id]!, device: id, call: call, label: label)
        }
        return found
    }

    private func check(_ expected: ScenarioExpectation.CallDevice, device id: String, call: Call,
                       label: String) -> [String] {
        let record = devices[id] ?? ScenarioRecorder.DeviceRecord()
        let callID = call.callId
        var found: [String] = []
        func compare(_ key: String, _ seen: Bool, _ wanted: Bool?) {
            if let wanted, seen != wanted { found.append("call \(label), \(id): \(key) is \(seen), expected \(wanted)") }
        }
        let voipCalls = voipPushCalls()
        compare("rang", record.rang.contains(callID), expected.rang)
        compare("woken", record.wokenBy.contains { voipCalls[$0] == callID }, expected.woken)
        compare("answered", record.answered.contains(callID), expected.answered)
        compare("media", record.media.contains(callID), expected.media)
        if let push = expected.push {
            let seen = record.pushes.first { voipCalls[$0.apnsID] == callID }?.disposition
            if seen != push {
                found.append("call \(label), \(id): push is \(Self.show(seen)), expected \(Self.show(push))")
            }
        }
        if let reasons = expected.endReason {
            let seen = record.ended[callID]
            if !reasons.contains(seen) {
                let wanted = reasons.map { Self.show($0?.rawValue) }
                found.append("call \(label), \(id): end_reason is \(Self.show(seen?.rawValue)), expected "
                             + (wanted.count == 1 ? wanted[0] : "one of \(wanted.joined(separator: ", "))"))
            }
        }
        return found
    }

    private func check(_ expected: ScenarioExpectation.Device, device id: String) -> [String] {
        let record = devices[id] ?? ScenarioRecorder.DeviceRecord()
        let seen = record.events.map(\.type)
        var found: [String] = []
        if let events = expected.events, seen != events {
            found.append("\(id): events were \(Self.list(seen)), expected exactly \(Self.list(events))")
        }
        if let events = expected.eventsInOrder, !Self.isSubsequence(events, of: seen) {
            found.append("\(id): events were \(Self.list(seen)), expected to contain in order \(Self.list(events))")
        }
        if let registered = expected.registered, record.registered != registered {
            found.append("\(id): registered is \(Self.show(record.registered.map { String($0) })), expected \(registered)")
        }
        return found
    }

    /// Rules that hold in every scenario.
    private func invariants() -> [String] {
        var found: [String] = []
        let kills = devices.values.reduce(0) { $0 + $1.kills }
        if kills != scenario.expect.appsKilled {
            let who = devices.filter { $0.value.kills > 0 }.keys.sorted().joined(separator: ", ")
            found.append("apps killed by iOS for an unreported VoIP push: \(kills) (\(who.isEmpty ? "none" : who)), "
                         + "expected \(scenario.expect.appsKilled)")
        }
        let deadlines = Dictionary(calls.values.map { ($0.callId, $0) }, uniquingKeysWith: { first, _ in first })
        for push in pushes where push.pushType == "voip" {
            guard let body = try? RingerJSON.decode(VoIPPush.self, from: push.payload).ringer,
                  body.type == .callIncoming else {
                found.append("VoIP push \(push.apnsID) is not a call.incoming push: only call.incoming may wake an app")
                continue
            }
            guard let call = deadlines[body.callId] else { continue }
            let deadline = Int64(call.expiresAt.timeIntervalSince1970.rounded(.down))
            if push.expiration != deadline {
                found.append("VoIP push \(push.apnsID) has apns-expiration \(push.expiration), expected the ring deadline \(deadline)")
            }
        }
        return found
    }

    /// `apns-id` → call id of every VoIP push the sandbox accepted.
    private func voipPushCalls() -> [String: String] {
        var calls: [String: String] = [:]
        for push in pushes where push.pushType == "voip" {
            if let body = try? RingerJSON.decode(VoIPPush.self, from: push.payload).ringer { calls[push.apnsID] = body.callId }
        }
        return calls
    }

    static func isSubsequence(_ wanted: [EventType], of seen: [EventType]) -> Bool {
        var remaining = wanted[...]
        for type in seen where type == remaining.first { remaining = remaining.dropFirst() }
        return remaining.isEmpty
    }

    private static func list(_ events: [EventType]) -> String { "[" + events.map(\.rawValue).joined(separator: ", ") + "]" }

    private static func show(_ value: String?) -> String { value ?? "null" }
}
