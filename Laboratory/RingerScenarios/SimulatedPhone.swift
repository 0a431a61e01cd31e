import Foundation
import RingerKit
import RingerSandbox
import RingerServer
import RingerWire

/// A simulated phone of either platform, as scenario and exploration sessions drive it: the same user
/// actions (answer, decline, hang up on the native call UI), app states, power, and the provider tokens
/// its pushes go to. Where the platforms differ the case says how (docs/scenarios.md, "Devices").
enum SimulatedPhone: Sendable {
    /// A simulated iPhone: RingerKit over the simulated PushKit and CallKit, in this process.
    case iPhone(SimulatedIPhone)
    /// An Android phone in the ``AndroidPhoneHost``: the real Kotlin SDK over the Android mirror, known by its events.
    case android(HostedAndroidPhone)

    /// The logged-in user.
    var userID: String {
        switch self {
        case .iPhone(let phone): phone.identity.userID
        case .android(let phone): phone.userID
        }
    }

    /// Whether the app's process runs.
    var isAppRunning: Bool {
        switch self {
        case .iPhone(let phone): phone.coordinator != nil
        case .android(let phone): phone.isAppRunning
        }
    }

    /// Hang-ups the app made that the server has not acknowledged yet.
    var unacknowledgedHangUps: [PendingCallAction] {
        switch self {
        case .iPhone(let phone): phone.unacknowledgedHangUps
        // The SDK keeps them in the host's process; the explorer's quiet check does without them.
        case .android: []
        }
    }

    /// The device id.
    var deviceID: String {
        switch self {
        case .iPhone(let phone): phone.identity.deviceID
        case .android(let phone): phone.deviceID
        }
    }

    /// The FCM registration token of an Android phone; nil for an iPhone.
    var fcmToken: String? {
        switch self {
        case .iPhone: nil
        case .android(let phone): phone.fcmToken
        }
    }

    /// Whether live events reach the app's event stream now. In process the server says (its hub holds the
    /// subscribed socket); on a cluster no node knows another's sockets, so the app says: `stream.ready` read, socket
    /// still open (``EventStream/isLive``).
    func hasEventStream(on stack: LocalStack) async -> Bool {
        if let server = stack.inProcessServer { return await server.hasEventStream(userID: userID, deviceID: deviceID) }
        return switch self {
        case .iPhone(let phone): phone.hasLiveEventStream
        case .android(let phone): phone.hasLiveEventStream
        }
    }

    /// True while any native call (CallKit call, Telecom connection) is not over.
    var hasLiveNativeCall: Bool {
        switch self {
        case .iPhone(let phone): phone.callKit.calls.contains { $0.state != .ended }
        case .android(let phone): phone.hasLiveNativeCall
        }
    }

    /// The app places a call.
    /// - Throws: ``RingerAPIError``; on Android ``AndroidPhoneHost/HostError`` (the host does not place calls yet).
    func call(_ callee: String, callWaiting: Bool? = nil) async throws -> Call {
        switch self {
        case .iPhone(let phone): try await phone.call(callee, callWaiting: callWaiting)
        case .android:
            throw AndroidPhoneHost.HostError(
                code: "unknown_command", message: "the phone host does not place calls from a phone yet")
        }
    }

    /// The call's native state in neutral words.
    func nativeState(_ callID: String) -> NativeState? {
        switch self {
        case .iPhone(let phone):
            guard let uuid = UUID(uuidString: callID) else { return nil }
            return switch phone.callKit.call(uuid)?.state {
            case .ringing: .ringing
            case .answering: .answering
            case .active: .active
            case .ended: .ended
            case nil: nil
            }
        case .android(let phone):
            return phone.nativeState(callID)
        }
    }

    /// A native call's state: ringing, answered but not confirmed, connected, over.
    enum NativeState { case ringing, answering, active, ended }

    /// The user taps Answer on the native call screen; false (nothing happens) unless it rings.
    func answer(_ callID: String) -> Bool {
        guard nativeState(callID) == .ringing else { return false }
        switch self {
        case .iPhone(let phone):
            guard let coordinator = phone.coordinator, let uuid = UUID(uuidString: callID) else { return false }
            phone.callKit.userAnswers(uuid, coordinator: coordinator)
        case .android(let phone):
            phone.userAction("answer", callID: callID)
        }
        return true
    }

    /// The user taps Decline (iOS: End on the ringing call; Android: `onReject`, or `onDisconnect` once answered);
    /// false unless it rings or is being answered.
    func decline(_ callID: String) -> Bool {
        let state = nativeState(callID)
        guard state == .ringing || state == .answering else { return false }
        switch self {
        case .iPhone(let phone):
            guard let coordinator = phone.coordinator, let uuid = UUID(uuidString: callID) else { return false }
            phone.callKit.userEnds(uuid, coordinator: coordinator)
        case .android(let phone):
            phone.userAction(state == .ringing ? "decline" : "hang_up", callID: callID)
        }
        return true
    }

    /// The user ends the call however it stands (a cancel, a decline or a hang-up; the app tells the
    /// server even when no native call shows).
    func hangUp(_ callID: String) {
        switch self {
        case .iPhone(let phone): phone.hangUp(callID: callID)
        // The host ends what the app has for the call; with no process it refuses (`app_not_running`).
        case .android(let phone): phone.userAction("hang_up", callID: callID)
        }
    }

    /// Moves the app: iPhone `killed` and Android `swiped_away` are the same step (`kill_app`).
    func setApp(_ state: ScenarioDevice.AppState) {
        switch (self, state) {
        case (.iPhone(let phone), .foreground): phone.setAppState(.foreground)
        case (.iPhone(let phone), .background): phone.setAppState(.background)
        case (.iPhone(let phone), _): phone.setAppState(.killed)
        case (.android(let phone), _): phone.setAppState(state)
        }
    }

    /// Switches the phone off (no app runs; APNs or FCM holds its pushes) or on (held pushes that have not
    /// expired arrive; no app runs until one starts it).
    func setPower(on: Bool, stack: LocalStack) {
        switch self {
        case .iPhone(let phone):
            if !on { phone.setAppState(.killed) }
            for token in [phone.identity.voipToken, phone.identity.apnsToken] {
                stack.sandbox.setOnline(token: token, on)
            }
        case .android(let phone):
            phone.setPower(on: on)
        }
    }

    /// Takes the phone's data connection down or brings it back: the app's requests fail and its socket drops while
    /// it is down (an iPhone's through ``SimulatedNetwork``), and the push service holds the phone's pushes (APNs
    /// keeps one per topic until it expires; FCM keeps them as it does for a phone that is off).
    func setNetwork(up: Bool, stack: LocalStack) {
        switch self {
        case .iPhone(let phone):
            phone.network.set(up: up)
            for token in [phone.identity.voipToken, phone.identity.apnsToken] {
                stack.sandbox.setOnline(token: token, up)
            }
        case .android(let phone):
            phone.setNetwork(up: up)
        }
    }

    /// Pushes take `seconds` (real) to reach the phone: APNs holds each push that long; FCM answers each
    /// `messages:send` to the phone's token that late (so it is delivered that late).
    func setPushDelay(_ seconds: TimeInterval, stack: LocalStack) {
        switch self {
        case .iPhone(let phone):
            for token in [phone.identity.voipToken, phone.identity.apnsToken] {
                stack.sandbox.setDeliveryDelay(token: token, seconds)
            }
        case .android(let phone):
            stack.fcmSandbox.inject(
                FCMSandboxFault(.delay(seconds: seconds), registrationToken: phone.fcmToken, count: nil))
        }
    }
}
