import Foundation
import RingerKit
import RingerSandbox
import RingerServer
import RingerWire

/// One run of one scenario on a started ``LocalStack``: sets the phones up as the file says, plays
/// the time line, then waits for the outcome to settle and compares it. Used by one task only.
final class ScenarioSession {
    let scenario: Scenario
    let stack: LocalStack
    private let clock: ScenarioClock
    let recorder: ScenarioRecorder
    /// User id → user token.
    var tokens: [String: String] = [:]
    private var phones: [String: SimulatedPhone] = [:]
    /// Label → call id and the calling user, once placed.
    var calls: [String: (id: String, caller: String, callee: String)] = [:]

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
                phones[device.id] = try await install(device, name: name)
                if case .android = phones[device.id], !device.loggedIn {
                    // The SDK registers nothing without a user: the server never lists the device.
                    recorder.registered(device.id, false)
                    recorder.note(device.id, "app installed, nobody logged in: the app does not register")
                    continue
                }
                recorder.registered(device.id, true)
                recorder.note(device.id, "app installed; \(device.user) logged in; device registered")
            } catch  where !device.loggedIn {
                recorder.registered(device.id, false)
                recorder.note(device.id, "app installed, nobody logged in; registration refused: \(error)")
            }
        }
        for device in scenario.devices {
            guard let phone = phones[device.id] else { continue }
            if case .android(let android) = phone {
                // Faults before the delay: the sandbox applies the oldest matching fault. Lock and Doze came with
                // `add_phone`.
                for fault in device.fcmFaults { inject(fault, token: android.fcmToken) }
            }
            if device.pushDelay > 0 { phone.setPushDelay(clock.real(device.pushDelay), stack: stack) }
            if !device.phoneOn {
                phone.setPower(on: false, stack: stack)
            } else if device.app != .foreground {
                phone.setApp(device.app)
            }
        }
        // Start only when every foreground app's socket is subscribed and every other app's is gone,
        // so who sees which event does not depend on connection timing.
        for device in scenario.devices {
            guard let phone = phones[device.id] else { continue }
            let open = device.phoneOn && device.app == .foreground && !device.dozing && device.loggedIn
            let settled = await waitUntil(seconds: 10) { [stack] in await phone.hasEventStream(on: stack) == open }
            guard settled else {
                recorder.fail("setup: \(device.id)'s event stream did not \(open ? "open" : "close") within 10 s")
                return false
            }
        }
        return true
    }

    /// Installs the device's app: an iPhone with PushKit and CallKit in this process, or an Android phone in the
    /// stack's phone host (the Kotlin SDK with FCM and a ConnectionService), its permissions as the file grants them.
    private func install(_ device: ScenarioDevice, name: String?) async throws -> SimulatedPhone {
        if device.platform == .android {
            let token = device.loggedIn ? tokens[device.user] : nil
            // The host reads delays in scenario seconds.
            var fields = HostedAndroidPhone.fields(
                userToken: token, permissions: device.permissions, behaviour: device.behaviour,
                locked: device.locked, dozing: device.dozing)
            fields["call_ui"] = device.callUI.rawValue
            return .android(
                try await stack.androidPhone(
                    user: device.user, deviceID: device.id, fields: fields, node: device.node,
                    observe: recorder.androidObserver(for: device.id),
                    onError: { [recorder] problem in recorder.note("runner", problem) }))
        }
        return .iPhone(
            try await stack.phone(
                user: device.user, name: name, deviceID: device.id, behaviour: device.behaviour.mapDelay(clock.real),
                loggedIn: device.loggedIn, node: device.node,
                observe: recorder.observer(for: device.id)))
    }

    /// FCM answers sends to `token` with the fault's error.
    private func inject(_ fault: ScenarioDevice.FCMFault, token: String) {
        guard let rejection = FCMSandboxRejection(code: fault.code) else { return }
        stack.fcmSandbox.inject(
            FCMSandboxFault(
                .answer(rejection, retryAfter: fault.retryAfter), registrationToken: token, count: fault.count))
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
        switch action.kind {
        case .restartServer(let down):
            do {
                try await stack.restartServer(downFor: clock.real(down))
                recorder.note("server", "restarted")
            } catch {
                recorder.fail("\(at): the server did not start again: \(error)")
            }
            return
        case .killNode(let node):
            await stack.killNode(node)
            recorder.note("server", "node-\(node) killed")
            return
        case .startNode(let node):
            do {
                try await stack.startNode(node)
                recorder.note("server", "node-\(node) serves again")
            } catch {
                recorder.fail("\(at): node-\(node) did not start again: \(error)")
            }
            return
        default:
            break
        }
        if case .check(let label, let state) = action.kind {
            guard let call = await read(label) else {
                recorder.fail("\(at): cannot read call \(label)")
                return
            }
            if call.state != state {
                recorder.fail("\(at): call \(label) was \(call.state.rawValue), expected \(state.rawValue)")
            }
            return
        }
        guard let deviceID = action.device, let phone = phones[deviceID] else {
            recorder.note(action.device ?? "runner", "no app is installed with a user: nothing happens")
            return
        }
        switch action.kind {
        case .call(let callee, let label, let callWaiting):
            do {
                let call = try await phone.call(callee, callWaiting: callWaiting)
                calls[label] = (call.callID, phone.userID, call.callee.id)
                recorder.label(call.callID, as: label)
                recorder.note(deviceID, "placed \(call.callID): \(call.state.rawValue)")
            } catch {
                recorder.fail("\(at): \(deviceID) could not call \(callee): \(error)")
            }
        case .callBack(let label):
            guard case .iPhone(let iPhone) = phone else { return }
            do {
                guard let call = try await iPhone.userCallsBack() else {
                    recorder.note(deviceID, "Recents has no Ringer call to call back")
                    return
                }
                calls[label] = (call.callID, phone.userID, call.callee.id)
                recorder.label(call.callID, as: label)
                recorder.note(
                    deviceID, "called \(call.callee.id) back from Recents: \(call.callID) \(call.state.rawValue)")
            } catch {
                recorder.fail("\(at): \(deviceID) could not call back from Recents: \(error)")
            }
        case .groupCall(let callees, let policy, let label):
            guard case .iPhone(let iPhone) = phone else { return }
            do {
                let call = try await iPhone.callGroup(callees, policy: policy)
                // Read back by the caller: a callee reads a group call as their own leg.
                calls[label] = (call.callID, phone.userID, "")
                recorder.label(call.callID, as: label)
                recorder.note(
                    deviceID, "placed \(call.callID) to \(callees.joined(separator: ", ")): \(call.state.rawValue)")
            } catch {
                recorder.fail("\(at): \(deviceID) could not call \(callees.joined(separator: ", ")): \(error)")
            }
        case .ringMore(let callees, let label):
            guard let callID = callID(label, at: at), let token = tokens[phone.userID] else { return }
            do {
                let call = try await RingerAPIClient(baseURL: stack.serverURL, userToken: token)
                    .ring(callID: callID, callees: callees)
                recorder.note(
                    deviceID, "rang \(callees.joined(separator: ", ")) into \(label): \(call.legs?.count ?? 0) legs")
            } catch {
                recorder.fail(
                    "\(at): \(deviceID) could not ring \(callees.joined(separator: ", ")) into \(label): \(error)")
            }
        case .decline(let label):
            guard let callID = callID(label, at: at) else { return }
            if case .android = phone, phone.nativeState(callID) == .ringing {
                _ = phone.decline(callID)
                return
            }
            hangUp(phone, callID, deviceID)
        case .cancel(let label), .hangUp(let label):
            guard let callID = callID(label, at: at) else { return }
            hangUp(phone, callID, deviceID)
        case .answer(let label):
            guard let callID = callID(label, at: at) else { return }
            guard phone.nativeState(callID) == .ringing else {
                recorder.note(deviceID, "nothing rings for \(label): the answer goes nowhere")
                return
            }
            recorder.answered(deviceID, callID: callID)
            _ = phone.answer(callID)
        case .background: phone.setApp(.background)
        case .foreground: phone.setApp(.foreground)
        case .killApp: phone.setApp(.swipedAway)
        case .forceStop: phone.setApp(.forceStopped)
        case .phoneOff: phone.setPower(on: false, stack: stack)
        case .networkDown, .networkUp: phone.setNetwork(up: action.kind == .networkUp, stack: stack)
        case .phoneOn: phone.setPower(on: true, stack: stack)
        case .doze, .wake, .lock, .unlock, .fcmFault, .revokeToken:
            guard case .android(let android) = phone else { return }
            switch action.kind {
            case .doze, .wake: android.setDozing(action.kind == .doze)
            case .lock, .unlock: android.setLocked(action.kind == .lock)
            case .fcmFault(let fault): inject(fault, token: android.fcmToken)
            default: stack.fcmSandbox.revoke(token: android.fcmToken)
            }
        case .cellularCall, .cellularCallEnds, .hold, .mute, .keypad:
            guard case .iPhone(let iPhone) = phone else {
                guard case .android(let android) = phone else { return }
                switch action.kind {
                case .cellularCall(let answer): android.simCallArrives(answer: answer)
                case .cellularCallEnds: android.simCallEnds()
                case .hold(let label, let held):
                    guard let callID = callID(label, at: at) else { return }
                    android.setHeld(callID: callID, held: held)
                default: break
                }
                return
            }
            switch action.kind {
            case .cellularCall(let answer): iPhone.cellularCallArrives(answer: answer)
            case .hold(let label, let held):
                guard let callID = callID(label, at: at) else { return }
                iPhone.userHolds(callID: callID, held: held)
            case .mute(let label, let muted):
                guard let callID = callID(label, at: at) else { return }
                iPhone.userMutes(callID: callID, muted: muted)
            case .keypad(let label, let digits):
                guard let callID = callID(label, at: at) else { return }
                iPhone.userPressesKeys(callID: callID, digits: digits)
            default: iPhone.cellularCallEnds()
            }
        case .restartServer, .killNode, .startNode, .check: break
        }
    }

    private func hangUp(_ phone: SimulatedPhone, _ callID: String, _ deviceID: String) {
        if !phone.isAppRunning { recorder.note(deviceID, "the app is not running: nothing to end") }
        phone.hangUp(callID)
    }

    func callID(_ label: String, at: String) -> String? {
        guard let call = calls[label] else {
            recorder.fail("\(at): call \(label) was never placed")
            return nil
        }
        return call.id
    }

    /// The FCM registration token of each Android phone.
    var fcmTokens: [String: String] { phones.compactMapValues(\.fcmToken) }
}
