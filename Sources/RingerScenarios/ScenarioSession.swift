import Foundation
import RingerKit
import RingerSandbox
import RingerServer
import RingerWire

/// One run of one scenario on a started ``LocalStack``: sets the phones up as the file says, plays
/// the time line, then waits for the outcome to settle and compares it. Used by one task only.
final class ScenarioSession {
    private let scenario: Scenario
    private let stack: LocalStack
    private let clock: ScenarioClock
    private let recorder: ScenarioRecorder
    private var tokens: [String: String] = [:]
    private var phones: [String: SimulatedIPhone] = [:]
    /// Label → call id and the calling user, once placed.
    private var calls: [String: (id: String, caller: String)] = [:]

    init(scenario: Scenario, stack: LocalStack, clock: ScenarioClock, recorder: ScenarioRecorder) {
        self.scenario = scenario
        self.stack = stack
        self.clock = clock
        self.recorder = recorder
    }

    /// Sets up, plays, settles.
    /// - Returns: every mismatch and every problem found on the way.
    func run(settleTimeout: TimeInterval, holdTime: TimeInterval) async -> [String] {
        do {
            guard try await setUp() else { return recorder.failures }
        } catch {
            return recorder.failures + ["setup failed: \(error)"]
        }
        let origin = clock.now()
        recorder.start(at: origin)
        for action in scenario.timeline {
            try? await clock.sleep(until: origin.addingTimeInterval(action.at))
            recorder.note("step", action.summary)
            await perform(action)
        }
        try? await clock.sleep(until: origin.addingTimeInterval(scenario.runUntil))
        recorder.note("runner", "time line over; comparing")
        let deadline = ContinuousClock.now + .seconds(settleTimeout)
        var mismatches = await compare()
        while !mismatches.isEmpty, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
            mismatches = await compare()
        }
        if mismatches.isEmpty {
            // A match must hold: an extra event arriving late still fails an exact expectation.
            try? await Task.sleep(for: .seconds(holdTime))
            mismatches = await compare()
        }
        return recorder.failures + mismatches
    }

    // MARK: Setup

    /// Installs the phones and puts them in their starting state.
    /// - Returns: false when the stack could not reach that state (the reason is recorded).
    /// - Throws: ``RingerAPIError`` when a token cannot be minted or a logged-in phone cannot register.
    private func setUp() async throws -> Bool {
        for user in scenario.users {
            tokens[user.id] = try await stack.userToken(for: user.id, name: user.name)
        }
        for device in scenario.devices {
            let name = scenario.users.first { $0.id == device.user }?.name
            do {
                phones[device.id] = try await stack.phone(user: device.user, name: name, deviceID: device.id,
                                                          behaviour: scaled(device.behaviour), loggedIn: device.loggedIn,
                                                          observe: recorder.observer(for: device.id))
                recorder.registered(device.id, true)
                recorder.note(device.id, "app installed; \(device.user) logged in; device registered")
            } catch where !device.loggedIn {
                recorder.registered(device.id, false)
                recorder.note(device.id, "app installed, nobody logged in; registration refused: \(error)")
            }
        }
        for device in scenario.devices {
            guard let phone = phones[device.id] else { continue }
            if device.pushDelay > 0 {
                for token in Self.tokens(of: phone) { stack.sandbox.setDeliveryDelay(token: token, clock.real(device.pushDelay)) }
            }
            if !device.phoneOn {
                switchPhone(phone, on: false)
            } else if device.app != .foreground {
                phone.setAppState(device.app)
            }
        }
        // Start only when every foreground app's socket is subscribed and every other app's is gone,
        // so who sees which event does not depend on connection timing.
        for device in scenario.devices where phones[device.id] != nil {
            let open = device.phoneOn && device.app == .foreground
            let settled = await waitUntil(seconds: 10) { [stack] in
                await stack.server.hasEventStream(userID: device.user, deviceID: device.id) == open
            }
            guard settled else {
                recorder.fail("setup: \(device.id)'s event stream did not \(open ? "open" : "close") within 10 s")
                return false
            }
        }
        return true
    }

    private func scaled(_ behaviour: ScenarioDevice.Behaviour) -> SimulatedIPhone.Behaviour {
        switch behaviour {
        case .ignore: .ignore
        case .answer(let after): .answer(after: clock.real(after))
        case .decline(let after): .decline(after: clock.real(after))
        }
    }

    private func waitUntil(seconds: TimeInterval, _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }

    // MARK: Steps

    private func perform(_ action: ScenarioAction) async {
        let at = "at \(ScenarioJSON.number(action.at).shown) s"
        if case .restartServer(let down) = action.kind {
            do {
                try await stack.restartServer(downFor: clock.real(down))
                recorder.note("server", "restarted")
            } catch {
                recorder.fail("\(at): the server did not start again: \(error)")
            }
            return
        }
        if case .check(let label, let state) = action.kind {
            guard let call = await read(label) else {
                recorder.fail("\(at): cannot read call \(label)")
                return
            }
            if call.state != state { recorder.fail("\(at): call \(label) was \(call.state.rawValue), expected \(state.rawValue)") }
            return
        }
        guard let deviceID = action.device, let phone = phones[deviceID] else {
            recorder.note(action.device ?? "runner", "no app is installed with a user: nothing happens")
            return
        }
        switch action.kind {
        case .call(let callee, let label):
            do {
                let call = try await phone.call(callee)
                calls[label] = (call.callId, phone.identity.userID)
                recorder.label(call.callId, as: label)
                recorder.note(deviceID, "placed \(call.callId): \(call.state.rawValue)")
            } catch {
                recorder.fail("\(at): \(deviceID) could not call \(callee): \(error)")
            }
        case .cancel(let label), .hangUp(let label), .decline(let label):
            guard let callID = callID(label, at: at) else { return }
            if phone.coordinator == nil { recorder.note(deviceID, "the app is not running: nothing to end") }
            phone.hangUp(callID: callID)
        case .answer(let label):
            guard let callID = callID(label, at: at), let uuid = UUID(uuidString: callID) else { return }
            guard let coordinator = phone.coordinator, phone.callKit.call(uuid)?.state == .ringing else {
                recorder.note(deviceID, "nothing rings for \(label): the answer goes nowhere")
                return
            }
            recorder.answered(deviceID, callID: callID)
            phone.callKit.userAnswers(uuid, coordinator: coordinator)
        case .background: phone.setAppState(.background)
        case .foreground: phone.setAppState(.foreground)
        case .killApp: phone.setAppState(.killed)
        case .phoneOff: switchPhone(phone, on: false)
        case .phoneOn: switchPhone(phone, on: true)
        case .restartServer, .check: break
        }
    }

    /// A phone that is off runs no app and APNs holds its pushes (VoIP and ordinary); switched on, it
    /// gets the held ones that have not expired, and no app runs until a push or the user starts it.
    private func switchPhone(_ phone: SimulatedIPhone, on: Bool) {
        if !on { phone.setAppState(.killed) }
        for token in Self.tokens(of: phone) { stack.sandbox.setOnline(token: token, on) }
    }

    private static func tokens(of phone: SimulatedIPhone) -> [String] {
        [phone.identity.voipToken, phone.identity.apnsToken]
    }

    private func callID(_ label: String, at: String) -> String? {
        guard let call = calls[label] else {
            recorder.fail("\(at): call \(label) was never placed")
            return nil
        }
        return call.id
    }

    // MARK: Outcome

    /// The call as the server has it now, read by its caller.
    private func read(_ label: String) async -> Call? {
        guard let placed = calls[label], let token = tokens[placed.caller] else { return nil }
        return try? await RingerAPIClient(baseURL: stack.serverURL, userToken: token).call(id: placed.id)
    }

    private func compare() async -> [String] {
        var current: [String: Call] = [:]
        var unreadable: [String] = []
        for label in scenario.callLabels where calls[label] != nil {
            if let call = await read(label) { current[label] = call } else { unreadable.append("call \(label): cannot be read") }
        }
        let verdict = ScenarioVerdict(scenario: scenario, devices: recorder.devices, calls: current,
                                      pushes: stack.sandbox.acceptedPushes)
        return unreadable + verdict.mismatches()
    }
}
