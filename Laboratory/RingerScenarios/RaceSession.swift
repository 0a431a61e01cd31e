import Foundation
import RingerKit
import RingerSandbox
import RingerServer
import RingerWire

/// One race exploration run on a started ``LocalStack``: installs the caller's phone and the callee's
/// phones as the script says, places the call, plays the steps, hangs up, lets every phone learn how
/// the call ended, and returns what happened. Used by one task only.
final class RaceSession {
    /// The caller's device id.
    static let callerDevice = "alice-phone"

    private let script: RaceScript
    private let stack: LocalStack
    private let clock: ScenarioClock
    private let recorder: RaceRecorder
    private var caller: SimulatedIPhone?
    private var phones: [String: SimulatedPhone] = [:]
    private var off: Set<String> = []
    private var callerToken: String?
    /// Each callee's user token, to read the call as they do.
    private var calleeTokens: [String: String] = [:]
    private(set) var callID: String?
    /// Nodes starting again in the background; awaited before the settle.
    private var nodeStarts: [Task<Void, Never>] = []

    /// - Parameters:
    ///   - script: what the run does.
    ///   - stack: the started stack.
    ///   - clock: the stack's clock.
    ///   - recorder: where what happens goes.
    init(script: RaceScript, stack: LocalStack, clock: ScenarioClock, recorder: RaceRecorder) {
        self.script = script
        self.stack = stack
        self.clock = clock
        self.recorder = recorder
    }

    /// Every phone of the run, the caller's first.
    var allPhones: [(id: String, phone: SimulatedPhone)] {
        (caller.map { [(Self.callerDevice, SimulatedPhone.iPhone($0))] } ?? [])
            + script.devices.compactMap { device in
                phones[device.id].map { (device.id, $0) }
            }
    }

    /// Sets up, places the call, plays the script, settles.
    /// - Parameters:
    ///   - settleTimeout: real seconds to wait at most for every phone to close the call.
    ///   - holdTime: real seconds to keep watching after that (a late ring still counts).
    /// - Returns: the settle time (scenario clock).
    /// - Throws: when the phones cannot be set up or the call cannot be placed.
    func run(settleTimeout: TimeInterval, holdTime: TimeInterval) async throws -> Date {
        try await setUp()
        guard let caller else { throw RingerAPIError.transport("no caller phone") }
        let origin = clock.now()
        recorder.start(at: origin)
        let call: Call
        if let group = script.group {
            recorder.note(
                "runner", "alice calls \(group.callees.joined(separator: ", ")) (\(group.policy.rawValue))")
            call = try await caller.callGroup(group.callees, policy: group.policy)
        } else {
            recorder.note("runner", "alice calls bob")
            call = try await caller.call("bob")
        }
        callID = call.callID
        recorder.note("runner", "placed <call>: \(call.state.rawValue)")
        for step in script.steps {
            try? await clock.sleep(until: origin.addingTimeInterval(step.at))
            await perform(step, callID: call.callID)
        }
        try? await clock.sleep(until: origin.addingTimeInterval(script.finalHangUpAt))
        // Only a call still up on the server needs the caller's hang-up; otherwise the caller's app must
        // learn the end on its own (a hang-up would hide that it never did).
        if await serverCall().map({ $0.state.isLive }) ?? true {
            await perform(RaceStep(at: script.finalHangUpAt, device: nil, action: .callerHangsUp), callID: call.callID)
        } else {
            recorder.note("runner", "the call is over: the caller does not hang up")
        }

        for start in nodeStarts { await start.value }
        // Settle: every phone on, every app open, so each can learn how the call ended.
        let settledAt = clock.now()
        recorder.note("runner", "settle: every phone on, every app in the foreground")
        for device in script.devices {
            guard let phone = phones[device.id] else { continue }
            if off.contains(device.id) { switchPhone(device.id, phone, on: true) }
            if case .android(let android) = phone { android.setDozing(false) }
            phone.setApp(.foreground)
        }
        let deadline = ContinuousClock.now + .seconds(settleTimeout)
        while ContinuousClock.now < deadline, await !isQuiet(callID: call.callID) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        try? await Task.sleep(for: .seconds(holdTime))
        recorder.note("runner", "run over")
        return settledAt
    }

    /// The server's call now, read by the caller.
    func serverCall() async -> Call? {
        guard let callID, let token = callerToken else { return nil }
        return try? await RingerAPIClient(baseURL: stack.serverURL, userToken: token).call(id: callID)
    }

    /// The server's call now as each callee reads it (a group call's callee reads their own leg), by user; a callee
    /// whose read fails is left out.
    func calleeViews() async -> [String: Call] {
        guard let callID else { return [:] }
        var views: [String: Call] = [:]
        for (user, token) in calleeTokens {
            views[user] = try? await RingerAPIClient(baseURL: stack.serverURL, userToken: token).call(id: callID)
        }
        return views
    }

    /// Whose phone `deviceID` is: the caller's, or a callee's.
    func user(of deviceID: String) -> String {
        deviceID == Self.callerDevice ? "alice" : script.devices.first { $0.id == deviceID }?.user ?? "bob"
    }

    // MARK: Setup

    private func setUp() async throws {
        callerToken = try await stack.userToken(for: "alice", name: "Alice")
        caller = try await stack.phone(
            user: "alice", name: "Alice", deviceID: Self.callerDevice, behaviour: .ignore,
            observe: recorder.observer(for: Self.callerDevice))
        for user in script.callees {
            calleeTokens[user] = try await stack.userToken(for: user, name: user.capitalized)
        }
        for device in script.devices {
            let name = device.user.capitalized
            if device.platform == .android {
                phones[device.id] = .android(
                    try await stack.androidPhone(
                        user: device.user, name: name, deviceID: device.id,
                        observe: recorder.androidObserver(for: device.id),
                        onError: { [recorder] problem in recorder.note("runner", problem) }))
            } else {
                phones[device.id] = .iPhone(
                    try await stack.phone(
                        user: device.user, name: name, deviceID: device.id,
                        behaviour: .ignore, observe: recorder.observer(for: device.id)))
            }
        }
        for device in script.devices {
            guard let phone = phones[device.id] else { continue }
            if case .android(let android) = phone {
                let fcmToken = android.fcmToken
                // Before the delay: the FCM sandbox applies the oldest matching fault.
                if let fault = device.fcmFault {
                    if fault.code == "UNREGISTERED" {
                        stack.fcmSandbox.revoke(token: fcmToken)
                    } else if let rejection = FCMSandboxRejection(code: fault.code) {
                        stack.fcmSandbox.inject(
                            FCMSandboxFault(
                                .answer(rejection, retryAfter: fault.retryAfter), registrationToken: fcmToken))
                    }
                }
                if device.dozing { android.setDozing(true) }
            }
            if device.pushDelay > 0 { phone.setPushDelay(clock.real(device.pushDelay), stack: stack) }
            switch device.start {
            case .foreground: break
            case .background: phone.setApp(.background)
            case .killed, .swipedAway: phone.setApp(.swipedAway)
            case .forceStopped: phone.setApp(.forceStopped)
            case .off: switchPhone(device.id, phone, on: false)
            }
        }
        // Start only when every foreground app's socket is subscribed and every other app's is gone.
        let streams =
            [(Self.callerDevice, caller.map(SimulatedPhone.iPhone), true)]
            + script.devices.map { ($0.id, phones[$0.id], $0.start == .foreground && !$0.dozing) }
        for case (let device, let phone?, let open) in streams {
            let deadline = ContinuousClock.now + .seconds(10)
            while await phone.hasEventStream(on: stack) != open {
                guard ContinuousClock.now < deadline else {
                    throw RingerAPIError.transport(
                        "\(device)'s event stream did not \(open ? "open" : "close") within 10 s")
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    // MARK: Steps

    private func perform(_ step: RaceStep, callID: String) async {
        recorder.note("step", step.summary.trimmingCharacters(in: .whitespaces))
        if let node = step.node {
            switch step.action {
            case .killNode:
                await stack.killNode(node)
            case .startNode:
                // In the background: a process takes real time to start, and the time line goes on meanwhile.
                nodeStarts.append(
                    Task { [stack, recorder] in
                        do {
                            try await stack.startNode(node)
                            recorder.note("runner", "node-\(node) serves again")
                        } catch {
                            recorder.note("runner", "node-\(node) did not start again: \(error)")
                        }
                    })
            default: break
            }
            return
        }
        if step.action == .ringMore, let callee = step.callee, let token = callerToken {
            do {
                let call = try await RingerAPIClient(baseURL: stack.serverURL, userToken: token)
                    .ring(callID: callID, callees: [callee])
                recorder.note("runner", "rang \(callee) in: \(call.leg(of: callee)?.state.rawValue ?? "no leg")")
            } catch {
                // A call already over refuses it (409): nothing rings, as the user would see.
                recorder.note("runner", "ring more \(callee): \(error)")
            }
            return
        }
        guard let deviceID = step.device, let phone = phones[deviceID] else {
            if step.action == .callerHangsUp, let caller {
                recorder.hungUp(Self.callerDevice)
                caller.hangUp(callID: callID)
            }
            return
        }
        let native = phone.nativeState(callID)
        switch step.action {
        case .answer:
            guard phone.answer(callID) else { return skip(deviceID, "nothing rings") }
        case .decline:
            guard phone.decline(callID) else { return skip(deviceID, "nothing rings") }
        case .hangUp:
            guard native == .active || native == .answering, phone.isAppRunning else {
                return skip(deviceID, "no answered call on screen")
            }
            phone.hangUp(callID)
        case .killApp:
            guard phone.isAppRunning else { return skip(deviceID, "the app is not running") }
            phone.setApp(.swipedAway)
        case .foreground, .background:
            guard !off.contains(deviceID) else { return skip(deviceID, "the phone is off") }
            phone.setApp(step.action == .foreground ? .foreground : .background)
        case .phoneOff, .phoneOn:
            let on = step.action == .phoneOn
            guard off.contains(deviceID) == on else {
                return skip(deviceID, "the phone is already \(on ? "on" : "off")")
            }
            switchPhone(deviceID, phone, on: on)
        case .forceStop, .doze, .wake:
            switch (phone, step.action) {
            case (.iPhone, _): return skip(deviceID, "not an Android phone")
            case (.android(let android), .forceStop): android.setAppState(.forceStopped)
            case (.android(let android), _): android.setDozing(step.action == .doze)
            }
        case .callerHangsUp, .killNode, .startNode, .ringMore:
            break
        }
    }

    private func skip(_ deviceID: String, _ why: String) { recorder.note(deviceID, "\(why): nothing happens") }

    /// Off: the app stops (its calls end) and APNs holds pushes. On: APNs delivers a held push that has
    /// not expired; no app runs until a push or the user starts it.
    private func switchPhone(_ deviceID: String, _ phone: SimulatedPhone, on: Bool) {
        if on { off.remove(deviceID) } else { off.insert(deviceID) }
        recorder.power(deviceID, on: on)
        phone.setPower(on: on, stack: stack)
    }

    /// True once the server's call is final, the caller's app closed it, every native call has ended and
    /// every hang-up was acknowledged.
    private func isQuiet(callID: String) async -> Bool {
        guard recorder.callerClosed(callID, device: Self.callerDevice) else { return false }
        // A push still on its slow way to a phone (sent late on a busy machine) must land before the run is
        // judged: invariant (a) asks that it reach the app.
        guard stack.sandbox.deliveriesUnderway == 0, stack.fcmSandbox.deliveriesUnderway == 0 else { return false }
        // A message FCM still holds for a phone that is now on and awake (it goes out when Play services reconnects),
        // or one on a phone's socket whose ack has not come back: an Android phone's app takes tens of milliseconds
        // (another process, maybe started for it) to handle it, and its fate is judged only once it is known.
        let tokens = Set(allPhones.compactMap(\.phone.fcmToken))
        let fcm = stack.fcmSandbox
        if fcm.acceptedMessages.contains(where: { message in
            guard tokens.contains(message.token) else { return false }
            switch fcm.deliveryState(ofMessage: message.name) {
            case .stored?, .delivering?: return true
            default: return false
            }
        }) {
            return false
        }
        for (_, phone) in allPhones where phone.hasLiveNativeCall || !phone.unacknowledgedHangUps.isEmpty {
            return false
        }
        return await serverCall().map { !$0.state.isLive } ?? false
    }
}
