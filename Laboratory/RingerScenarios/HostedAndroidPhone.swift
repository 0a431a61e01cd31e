import Foundation
public import RingerSandbox
import RingerSupport

/// An Android phone in the ``AndroidPhoneHost``: the real Kotlin SDK over the Android mirror, in the host's JVM
/// (docs/android-phone-host.md), made by `LocalStack.androidPhone(user:name:deviceID:…)`.
/// The runner drives it with the host's requests and knows it only by its events: which calls ring, which are
/// answered, active, over; whether its app's process and event stream run. A request is sent without waiting for
/// its answer, in order; a refusal goes to the phone's `onError`. Thread-safe.
public final class HostedAndroidPhone: Sendable {
    /// The phone's name in the host, the scenario's device id.
    public let deviceID: String
    /// The user the phone belongs to.
    public let userID: String
    /// The FCM registration token Play services got for the app.
    public let fcmToken: String
    private let host: AndroidPhoneHost
    private let state: LockedValue<State>
    /// Told of a request the host refused (the phone's name and the error).
    private let onError: @Sendable (String) -> Void

    private struct State {
        var calls: [String: SimulatedPhone.NativeState] = [:]
        var streamLive = false
        var processRunning = false
    }

    /// Adds the phone to the host and installs its app (docs/android-phone-host.md, `add_phone`).
    /// - Parameters:
    ///   - host: the stack's host.
    ///   - fields: `add_phone`'s fields but `phone` and `device_id` (the device id names both).
    ///   - deviceID: the scenario's device id.
    ///   - userID: the user.
    ///   - observe: told of every event of the phone, on the host's reader thread, after the phone's own state.
    ///   - onError: told of a refused request made without waiting (``answer(_:)``, ``setAppState(_:)``, …).
    /// - Throws: ``AndroidPhoneHost/HostError`` when the host refuses (`registration_failed`, …).
    static func add(
        to host: AndroidPhoneHost, deviceID: String, userID: String, fields: [String: Any],
        observe: @escaping @Sendable (AndroidHostEvent) -> Void, onError: @escaping @Sendable (String) -> Void
    ) async throws -> HostedAndroidPhone {
        // `add_phone` opens the app in the foreground before it answers.
        let state = LockedValue(State(processRunning: true))
        host.observe(deviceID) { event in
            Self.apply(event, to: state)
            observe(event)
        }
        var request = fields
        request["phone"] = deviceID
        request["device_id"] = deviceID
        request["user_id"] = userID
        let result = try await host.request("add_phone", request)
        return HostedAndroidPhone(
            host: host, deviceID: deviceID, userID: userID, fcmToken: result.fcmToken ?? "", state: state,
            onError: onError)
    }

    private init(
        host: AndroidPhoneHost, deviceID: String, userID: String, fcmToken: String, state: LockedValue<State>,
        onError: @escaping @Sendable (String) -> Void
    ) {
        self.host = host
        self.deviceID = deviceID
        self.userID = userID
        self.fcmToken = fcmToken
        self.state = state
        self.onError = onError
    }

    /// Follows the phone's native calls, process and event stream from its events.
    private static func apply(_ event: AndroidHostEvent, to state: LockedValue<State>) {
        state.withLock { state in
            switch event.event {
            case "ringing":
                if let id = event.callID, state.calls[id] == nil { state.calls[id] = .ringing }
            case "user_answered":
                if let id = event.callID, state.calls[id] == .ringing { state.calls[id] = .answering }
            case "media_ready", "call_active":
                if let id = event.callID, let now = state.calls[id], now != .ended { state.calls[id] = .active }
            case "call_ended", "ended_by_system":
                if let id = event.callID { state.calls[id] = .ended }
            case "stream_status":
                state.streamLive = event.status == "connected" || event.status == "restored"
            case "started_by_message":
                state.processRunning = true
            case "process_ended":
                state.processRunning = false
                state.streamLive = false
            default:
                break
            }
        }
    }

    /// The call's native state as the phone's events told it; nil for a call that never rang here.
    func nativeState(_ callID: String) -> SimulatedPhone.NativeState? { state.withLock { $0.calls[callID] } }

    /// True while any of its connections is not over.
    public var hasLiveNativeCall: Bool { state.withLock { $0.calls.values.contains { $0 != .ended } } }

    /// True while the app's event stream is open and past `stream.ready`, as its `stream_status` events tell.
    public var hasLiveEventStream: Bool { state.withLock { $0.streamLive } }

    /// True while the app has a process, as far as its events tell (`process_ended`, `started_by_message`, and the
    /// runner's own opening of the app).
    public var isAppRunning: Bool { state.withLock { $0.processRunning } }

    /// The user taps Answer, Decline or ends the call on the call screen.
    /// - Parameters:
    ///   - action: `answer`, `decline` or `hang_up`.
    ///   - callID: the call.
    func userAction(_ action: String, callID: String) {
        send(action, ["call_id": callID])
    }

    /// The user taps Answer on the ringing call's screen (Telecom's `onAnswer`).
    /// - Parameter callID: the call id, a lowercase UUID.
    public func answer(callID: String) { userAction("answer", callID: callID) }

    /// The user taps Decline on the ringing call's screen (Telecom's `onReject`).
    /// - Parameter callID: the call id, a lowercase UUID.
    public func decline(callID: String) { userAction("decline", callID: callID) }

    /// The user ends the call on its screen (Telecom's `onDisconnect`: a hang-up, or a decline of a call being
    /// answered).
    /// - Parameter callID: the call id, a lowercase UUID.
    public func hangUp(callID: String) { userAction("hang_up", callID: callID) }

    /// A SIM call arrives and the user answers it at once so (`sim_call`): "Hold & Accept" makes Telecom hold the app's
    /// active calls and take its `ConnectionService`'s focus (released within 5 s, or its calls are disconnected),
    /// "End & Accept" disconnects them, "Decline" leaves them be.
    public func simCallArrives(answer: SimulatedCallKit.CellularAnswer) {
        send("sim_call", ["answer": answer.rawValue])
    }

    /// The SIM call ends (`sim_call_ends`); Telecom resumes no call of another `ConnectionService`.
    public func simCallEnds() { send("sim_call_ends", [:]) }

    /// The user holds or resumes the call with the app's own button (`hold`, `resume`): the SDK's `setHeld`.
    public func setHeld(callID: String, held: Bool) { send(held ? "hold" : "resume", ["call_id": callID]) }

    /// Moves the app (`set_app_state`). The runner's `killed` is Android's `swiped_away`.
    public func setAppState(_ appState: ScenarioDevice.AppState) {
        if appState == .foreground { state.withLock { $0.processRunning = true } }
        send("set_app_state", ["state": Self.wireName(appState)])
    }

    /// The protocol's name of an app state: `foreground`, `background`, `swiped_away` (also the runner's `killed`),
    /// `force_stopped`.
    static func wireName(_ appState: ScenarioDevice.AppState) -> String {
        switch appState {
        case .foreground: "foreground"
        case .background: "background"
        case .killed, .swipedAway: "swiped_away"
        case .forceStopped: "force_stopped"
        }
    }

    /// The phone enters or leaves Doze.
    public func setDozing(_ dozing: Bool) { send("doze", ["dozing": dozing]) }

    /// The keyguard shows or goes.
    public func setLocked(_ locked: Bool) { send("lock", ["locked": locked]) }

    /// The data connection goes down or comes back: FCM holds the phone's messages meanwhile.
    public func setNetwork(up: Bool) { send("network", ["up": up]) }

    /// Switches the phone off or on. The host has no power switch: off is the app's process ending as at a reboot
    /// (swiped away: a later FCM message may start it again, unlike a force stop) with the network down, so FCM
    /// holds its messages; on is the network back, FCM delivering what it held, no app running until a message
    /// starts one.
    public func setPower(on: Bool) {
        if on {
            setNetwork(up: true)
        } else {
            setNetwork(up: false)
            setAppState(.swipedAway)
        }
    }

    private func send(_ command: String, _ fields: [String: Any]) {
        var request = fields
        request["phone"] = deviceID
        let deviceID = deviceID
        let onError = onError
        host.send(command, request) { error in onError("\(deviceID): \(command) refused: \(error)") }
    }

    /// `add_phone`'s fields for a scenario device: its permissions, app state, lock, Doze and behaviour (delays in
    /// scenario seconds, as the host reads them), its user's token or none.
    static func fields(
        userToken: String?, permissions: Set<AndroidPermission>, behaviour: CalleeBehaviour, locked: Bool,
        dozing: Bool
    ) -> [String: Any] {
        var granted: [String: Any] = [:]
        let names: [(AndroidPermission, String)] = [
            (.postNotifications, "post_notifications"), (.useFullScreenIntent, "use_full_screen_intent"),
            (.recordAudio, "record_audio"), (.manageOwnCalls, "manage_own_calls"),
        ]
        for (permission, name) in names { granted[name] = permissions.contains(permission) }
        let behaviourField: [String: Any] =
            switch behaviour {
            case .answer(let after): ["answer_after": after]
            case .decline(let after): ["decline_after": after]
            case .ignore: ["ignore": true]
            }
        return [
            "user_token": userToken.map { $0 as Any } ?? NSNull(), "permissions": granted,
            "behaviour": behaviourField, "locked": locked, "dozing": dozing,
        ]
    }
}
