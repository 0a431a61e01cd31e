public import Foundation

/// One timed action of a race exploration run (``RaceScript``): a callee device's user or the phone
/// itself does something, the caller hangs up, or (on a cluster) a server node dies or comes back.
public struct RaceStep: Sendable, Equatable {
    /// What happens.
    public enum Action: String, Sendable, Equatable, CaseIterable {
        /// The user taps Answer, if the call is ringing on this device's native UI (else nothing happens).
        case answer
        /// The user taps Decline, if the call is ringing on this device (else nothing happens).
        case decline
        /// The user taps End on this device's answered call (nothing happens if none is up).
        case hangUp = "hang_up"
        /// The user swipes the app away: the process and its native calls end (Android: unless a call's
        /// foreground service keeps it).
        case killApp = "kill_app"
        /// The user opens the app: it comes to the foreground, launching it if it was killed.
        case foreground
        /// The app goes to the background: its WebSocket drops (a killed app stays killed).
        case background
        /// The phone is switched off: the app stops, APNs holds its pushes until they expire.
        case phoneOff = "phone_off"
        /// The phone is switched on: APNs delivers a held push that has not expired; no app runs.
        case phoneOn = "phone_on"
        /// The caller ends the call: a cancel while it rings, a hang-up once answered.
        case callerHangsUp = "caller_hangs_up"
        /// Android: the app is force-stopped (its process and calls end; nothing reaches it until opened).
        case forceStop = "force_stop"
        /// Android: the phone enters Doze.
        case doze
        /// Android: the phone leaves Doze.
        case wake
        /// A cluster's server node is killed (`SIGKILL`): its sockets drop, its timers are gone, its phones
        /// reconnect to the next live node.
        case killNode = "kill_node"
        /// A killed node starts again on its port and database.
        case startNode = "start_node"
        /// Group runs: the caller rings ``RaceStep/callee`` into the live call (`POST /v1/calls/{id}/ring`).
        case ringMore = "ring_more"
    }

    /// Scenario seconds after the call was placed.
    public var at: TimeInterval
    /// The callee device acting; nil for ``Action/callerHangsUp`` and the node actions.
    public var device: String?
    /// What happens.
    public var action: Action
    /// The node of ``Action/killNode`` and ``Action/startNode`` (0 is the caller's, which places the call).
    public var node: Int?
    /// The user ``Action/ringMore`` rings into the call.
    public var callee: String?

    /// Creates a step.
    /// - Parameters:
    ///   - at: scenario seconds after the call was placed.
    ///   - device: the callee device; nil when the caller acts.
    ///   - action: what happens.
    ///   - node: the node, for the node actions.
    ///   - callee: the user rung, for ``Action/ringMore``.
    public init(at: TimeInterval, device: String?, action: Action, node: Int? = nil, callee: String? = nil) {
        self.at = at
        self.device = device
        self.action = action
        self.node = node
        self.callee = callee
    }

    /// The step in words, with its time: `  3.25 s  bob-2: answer`, `  2.10 s  node-0: kill node`,
    /// `  1.50 s  caller: ring more erin`.
    public var summary: String {
        let time = String(format: "%7.2f s", at)
        let actor = device ?? node.map { "node-\($0)" } ?? "caller"
        let what = action.rawValue.replacingOccurrences(of: "_", with: " ") + (callee.map { " \($0)" } ?? "")
        return "\(time)  \(actor): \(what)"
    }
}
