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
    /// What the FCM sandbox accepted and did.
    var fcm = FCMView()
    /// Per device whose `token_removed` is expected: whether the server still holds its push token.
    var tokensHeld: [String: Bool] = [:]

    /// The FCM sandbox's side of a run.
    struct FCMView {
        /// Every message FCM accepted, in order.
        var messages: [FCMSandboxMessage] = []
        /// Each message's fate, by name.
        var fates: [String: FCMSandboxDeliveryState] = [:]
        /// Each Android phone's registration token, by device id.
        var tokens: [String: String] = [:]

        /// The call id and `type` a message's `data.ringer` names.
        static func about(_ message: FCMSandboxMessage) -> (callID: String, type: String)? {
            guard let text = message.data["ringer"],
                let body = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                let callID = body["call_id"] as? String, let type = body["type"] as? String
            else { return nil }
            return (callID, type)
        }

        /// The ringing (`call.incoming`) messages FCM accepted for `callID` to the device's token.
        func ringing(_ callID: String, device: String) -> [FCMSandboxMessage] {
            messages.filter { message in
                message.token == tokens[device] && Self.about(message).map { $0 == (callID, "call.incoming") } ?? false
            }
        }

        /// A fate in the file's words: `delivered`, `not_delivered`, `expired`, …
        static func word(_ fate: FCMSandboxDeliveryState?) -> String? {
            guard let fate else { return nil }
            if case .delivered(.notDelivered?) = fate { return "not_delivered" }
            return fate.name
        }
    }

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
        if let reason = expected.endReason, call.endReason != reason {
            found.append(
                "\(name): end_reason is \(Self.show(call.endReason?.rawValue)), expected \(Self.show(reason?.rawValue))"
            )
        }
        if let devices = expected.acceptedDevice, !devices.contains(call.acceptedDeviceID) {
            let wanted = devices.map(Self.show)
            found.append(
                "\(name): accepted_device is \(Self.show(call.acceptedDeviceID)), expected "
                    + (wanted.count == 1 ? wanted[0] : "one of \(wanted.joined(separator: ", "))"))
        }
        if let waiting = expected.waiting, (call.waiting ?? false) != waiting {
            found.append("\(name): waiting is \(call.waiting ?? false), expected \(waiting)")
        }
        for id in expected.devices.keys.sorted() {
            found += check(expected.devices[id]!, device: id, call: call, label: label)
        }
        for (user, state) in (expected.legs ?? [:]).sorted(by: { $0.key < $1.key }) {
            let leg = call.leg(of: user)
            if leg?.state != state {
                found.append(
                    "\(name): \(user)'s leg is \(leg?.state.rawValue ?? "missing"), expected \(state.rawValue)")
            }
        }
        return found
    }

    private func check(
        _ expected: ScenarioExpectation.CallDevice, device id: String, call: Call,
        label: String
    ) -> [String] {
        let record = devices[id] ?? ScenarioRecorder.DeviceRecord()
        let callID = call.callID
        var found: [String] = []
        func compare(_ key: String, _ seen: Bool, _ wanted: Bool?) {
            if let wanted, seen != wanted {
                found.append("call \(label), \(id): \(key) is \(seen), expected \(wanted)")
            }
        }
        let android = scenario.devices.first { $0.id == id }?.platform == .android
        let voipCalls = voipPushCalls()
        let ringing = Set(fcm.ringing(callID, device: id).map(\.name))
        compare("rang", record.rang.contains(callID), expected.rang)
        compare(
            "woken",
            android
                ? record.startedBy.contains(where: ringing.contains)
                : record.wokenBy.contains { voipCalls[$0] == callID }, expected.woken)
        compare("answered", record.answered.contains(callID), expected.answered)
        compare("media", record.media.contains(callID), expected.media)
        compare("was_held", record.wasHeld.contains(callID), expected.wasHeld)
        compare("held", record.held[callID] ?? false, expected.held)
        compare("muted", record.muted[callID] ?? false, expected.muted)
        if let wanted = expected.tones, record.tones[callID] != wanted {
            found.append("call \(label), \(id): tones are \(Self.show(record.tones[callID])), expected \(wanted)")
        }
        compare(
            "delivered",
            android
                ? record.messages.contains { ringing.contains($0.name) }
                : record.pushes.contains { voipCalls[$0.apnsID] == callID }, expected.delivered)
        func compareText(_ key: String, _ seen: String?, _ wanted: String??) {
            if let wanted, seen != wanted {
                found.append("call \(label), \(id): \(key) is \(Self.show(seen)), expected \(Self.show(wanted))")
            }
        }
        compareText(
            "push",
            android
                ? record.messages.first { $0.callID == callID && $0.disposition != nil }?.disposition
                : record.pushes.first { voipCalls[$0.apnsID] == callID }?.disposition, expected.push)
        compareText("shown", record.shown[callID], expected.shown)
        compareText(
            "ring_message", FCMView.word(fcm.ringing(callID, device: id).last.flatMap { fcm.fates[$0.name] }),
            expected.ringMessage)
        if let causes = expected.disconnectCause, !causes.contains(record.causes[callID]?.code.rawValue) {
            found.append(
                "call \(label), \(id): disconnect_cause is \(Self.show(record.causes[callID]?.description)), "
                    + "expected \(causes.map(Self.show).joined(separator: " or "))")
        }
        if let within = expected.stoppedWithin {
            let name = "call \(label), \(id): stopped_within"
            if let decided = call.acceptedAt ?? call.endedAt {
                if let stopped = record.ringStopped[callID] {
                    let late = stopped.timeIntervalSince(decided)
                    if late > within {
                        found.append(
                            "\(name): it stopped ringing \(String(format: "%.2f", late)) s after the call was "
                                + "\(call.acceptedAt == nil ? "ended" : "answered"), expected at most \(within) s")
                    }
                } else {
                    found.append("\(name): its native call never rang or never stopped")
                }
            } else {
                found.append("\(name): the call was never answered or ended")
            }
        }
        if let wanted = expected.pushOutcome {
            found += check(wanted, pushes: call.pushes ?? [], device: id, label: label)
        }
        if let reasons = expected.endReason {
            let seen = record.ended[callID]
            if !reasons.contains(seen) {
                let wanted = reasons.map { Self.show($0?.rawValue) }
                found.append(
                    "call \(label), \(id): end_reason is \(Self.show(seen?.rawValue)), expected "
                        + (wanted.count == 1 ? wanted[0] : "one of \(wanted.joined(separator: ", "))"))
            }
        }
        return found
    }

    /// The server's record of the ringing push to the device: its first push for the call.
    private func check(
        _ wanted: ScenarioExpectation.PushOutcome?, pushes: [PushAttempt], device id: String,
        label: String
    ) -> [String] {
        let name = "call \(label), \(id): push_outcome"
        let push = pushes.filter { $0.deviceID == id }.min { $0.sentAt < $1.sentAt }
        guard let wanted else { return push == nil ? [] : ["\(name) is \(Self.describe(push!)), expected none (null)"] }
        guard let push else { return ["\(name): no push was recorded for the device"] }
        var found: [String] = []
        if let status = wanted.status, push.status != status {
            found.append(
                "\(name).status is \(push.status.map(String.init) ?? "null"), expected \(status.map(String.init) ?? "null")"
            )
        }
        if let reason = wanted.reason, push.reason != reason {
            found.append("\(name).reason is \(Self.show(push.reason)), expected \(Self.show(reason))")
        }
        if let attempts = wanted.attempts, push.attempts != attempts {
            found.append("\(name).attempts is \(push.attempts), expected \(attempts)")
        }
        return found
    }

    private static func describe(_ push: PushAttempt) -> String {
        "\(push.provider) \(push.status.map(String.init) ?? "no answer")\(push.reason.map { " \($0)" } ?? "")"
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
            found.append(
                "\(id): registered is \(Self.show(record.registered.map { String($0) })), expected \(registered)")
        }
        if let notifications = expected.notifications, record.notifications != notifications {
            found.append("\(id): notifications were \(record.notifications), expected exactly \(notifications)")
        }
        if let removed = expected.tokenRemoved, let held = tokensHeld[id], held == removed {
            found.append("\(id): token_removed is \(!held), expected \(removed)")
        }
        return found
    }

    /// Rules that hold in every scenario.
    private func invariants() -> [String] {
        var found: [String] = []
        let kills = devices.values.reduce(0) { $0 + $1.kills }
        if kills != scenario.expect.appsKilled {
            let who = devices.filter { $0.value.kills > 0 }.keys.sorted().joined(separator: ", ")
            found.append(
                "apps killed by iOS for an unreported VoIP push: \(kills) (\(who.isEmpty ? "none" : who)), "
                    + "expected \(scenario.expect.appsKilled)")
        }
        let deadlines = Dictionary(calls.values.map { ($0.callID, $0) }, uniquingKeysWith: { first, _ in first })
        for push in pushes where push.pushType == "voip" {
            guard let body = try? RingerJSON.decode(VoIPPush.self, from: push.payload).ringer,
                body.type == .callIncoming
            else {
                found.append("VoIP push \(push.apnsID) is not a call.incoming push: only call.incoming may wake an app")
                continue
            }
            guard let call = deadlines[body.callID] else { continue }
            // A group call's push carries its recipient's own leg deadline (the caller's `expires_at` is the latest).
            let expires = body.calleeID.flatMap { call.leg(of: $0)?.expiresAt } ?? call.expiresAt
            let deadline = Int64(expires.timeIntervalSince1970.rounded(.down))
            if push.expiration != deadline {
                found.append(
                    "VoIP push \(push.apnsID) has apns-expiration \(push.expiration), expected the ring deadline \(deadline)"
                )
            }
        }
        found += fcmInvariants(deadlines)
        return found
    }

    /// Every ringing FCM message is data-only, asked for at HIGH priority, collapses by its call id, and
    /// lives at least 1 s and no longer than the ring (docs/fcm.md "Which priority each message gets").
    private func fcmInvariants(_ calls: [String: Call]) -> [String] {
        var found: [String] = []
        let longest = scenario.ringTimeout.rounded(.up)
        for message in fcm.messages {
            guard let about = FCMView.about(message), about.type == "call.incoming" else { continue }
            let name = "FCM ringing message \(message.name)"
            if message.requestedPriority != .high {
                found.append("\(name) has priority \(message.requestedPriority.rawValue), expected HIGH")
            }
            if message.notification != nil {
                found.append("\(name) has a notification block: the ringing message is data-only")
            }
            if message.collapseKey != about.callID {
                found.append("\(name) has collapse_key \(Self.show(message.collapseKey)), expected the call id")
            }
            if message.ttl < 1 || message.ttl > longest {
                found.append("\(name) has ttl \(message.ttl) s, expected 1 to \(longest) s (what is left of the ring)")
            }
        }
        return found
    }

    /// `apns-id` → call id of every VoIP push the sandbox accepted.
    private func voipPushCalls() -> [String: String] {
        var calls: [String: String] = [:]
        for push in pushes where push.pushType == "voip" {
            if let body = try? RingerJSON.decode(VoIPPush.self, from: push.payload).ringer {
                calls[push.apnsID] = body.callID
            }
        }
        return calls
    }

    static func isSubsequence(_ wanted: [EventType], of seen: [EventType]) -> Bool {
        var remaining = wanted[...]
        for type in seen where type == remaining.first { remaining = remaining.dropFirst() }
        return remaining.isEmpty
    }

    private static func list(_ events: [EventType]) -> String {
        "[" + events.map(\.rawValue).joined(separator: ", ") + "]"
    }

    private static func show(_ value: String?) -> String { value ?? "null" }
}
