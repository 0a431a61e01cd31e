public import Foundation
public import RingerSandbox
public import RingerWire

/// One step of a scenario's time line: at a scenario time, a device's user (or the operator) does
/// something. Steps run in time order; a step that takes time (a server restart) delays the next.
public struct ScenarioAction: Sendable, Equatable {
    /// What happens.
    public enum Kind: Sendable, Equatable {
        /// The device's app calls `callee`; later steps and expectations name the call `label`.
        case call(callee: String, label: String, callWaiting: Bool? = nil)
        /// The device's app rings `callees` in one call with `policy` (RingerKit's `startGroupCall`); named `label`.
        case groupCall(callees: [String], policy: AnswerPolicy, label: String)
        /// The device's user rings `callees` into the call `label` (`POST /v1/calls/{id}/ring`).
        case ringMore(callees: [String], label: String)
        /// The caller ends the call before an answer (CallKit's end action on an outgoing call).
        case cancel(label: String)
        /// The user ends the call on the native UI (declines, cancels or hangs up, as the call stands).
        case hangUp(label: String)
        /// The user taps Answer on the native call screen.
        case answer(label: String)
        /// The user taps Decline on the native call screen.
        case decline(label: String)
        /// The app goes to the background: its WebSocket drops.
        case background
        /// The app comes to the foreground (launching it if killed): its WebSocket reopens and resumes.
        case foreground
        /// The user swipes the app away (Android: out of Recents; a high-priority FCM message still starts it).
        case killApp
        /// Android: the app is force-stopped (Settings, or an OEM's task killer): nothing reaches it until opened.
        case forceStop
        /// Android: the phone enters Doze (normal-priority messages wait; its socket drops).
        case doze
        /// Android: the phone leaves Doze (stored messages are delivered).
        case wake
        /// Android: the keyguard shows.
        case lock
        /// Android: the keyguard goes away.
        case unlock
        /// Android: FCM answers the next sends to this phone's token with an error.
        case fcmFault(ScenarioDevice.FCMFault)
        /// Android: FCM forgets this phone's token (the app was uninstalled): sends get `UNREGISTERED`.
        case revokeToken
        /// The phone is switched off: the app stops, APNs holds pushes until they expire.
        case phoneOff
        /// The phone is switched on: APNs delivers the held push if it has not expired; no app runs.
        case phoneOn
        /// The phone loses its data connection: the app's requests fail at once, its socket drops, pushes wait.
        case networkDown
        /// The data connection is back: held pushes arrive, the app's retries and reconnects get through.
        case networkUp
        /// The server stops and starts again on the same database after `downFor` scenario seconds (on a
        /// cluster every node, each draining on `SIGTERM`).
        case restartServer(downFor: TimeInterval)
        /// A server node dies (on a cluster `SIGKILL`; in process the server shuts down): its phones reconnect to
        /// the next live node.
        case killNode(Int)
        /// A killed node starts again on its port and database; the step lasts until it serves.
        case startNode(Int)
        /// The call's server state must be `state` at this moment (checked through the API).
        case check(label: String, state: CallState)
        /// iPhone: a cellular call arrives and the user answers it at once so (docs/scenarios.md "A call among other
        /// calls"): "Hold & Accept" holds the app's connected calls, "End & Accept" ends them.
        case cellularCall(answer: SimulatedCallKit.CellularAnswer)
        /// iPhone: the cellular call ends; the app's held calls stay held.
        case cellularCallEnds
        /// iPhone: the user taps Hold (`held` true) or resumes the call on CallKit's screen.
        case hold(label: String, held: Bool)
        /// iPhone: the user taps Mute (`muted` true) or unmutes the call on CallKit's screen.
        case mute(label: String, muted: Bool)
        /// iPhone: the user taps these keys on CallKit's in-call keypad.
        case keypad(label: String, digits: String)
        /// iPhone: the user taps the newest Ringer call in the phone's Recents; the app calls that person back, the
        /// call named `label`.
        case callBack(label: String)
    }

    /// Scenario seconds after the start.
    public var at: TimeInterval
    /// The acting device; nil for the server steps and ``Kind/check(label:state:)``.
    public var device: String?
    /// What happens.
    public var kind: Kind

    /// Creates a step.
    /// - Parameters:
    ///   - at: scenario seconds after the start.
    ///   - device: the acting device; nil for server restarts and checks.
    ///   - kind: what happens.
    public init(at: TimeInterval, device: String?, kind: Kind) {
        self.at = at
        self.device = device
        self.kind = kind
    }

    /// The call the step acts on or checks, if any.
    public var callLabel: String? {
        switch kind {
        case .call(_, let label, _), .cancel(let label), .hangUp(let label), .answer(let label), .decline(let label),
            .check(let label, _), .groupCall(_, _, let label), .ringMore(_, let label), .hold(let label, _),
            .mute(let label, _), .keypad(let label, _):
            label
        default:
            nil
        }
    }

    /// The step in the file's words, for time lines and reports: `call bob as main`.
    public var summary: String {
        let actor = device.map { "\($0): " } ?? ""
        switch kind {
        case .call(let callee, let label, let callWaiting):
            let waiting = callWaiting.map { $0 ? ", call waiting" : ", no call waiting" } ?? ""
            return actor + "call \(callee) (\(label)\(waiting))"
        case .groupCall(let callees, let policy, let label):
            return actor + "call \(callees.joined(separator: ", ")) \(policy.rawValue) (\(label))"
        case .ringMore(let callees, let label): return actor + "ring \(callees.joined(separator: ", ")) into \(label)"
        case .cancel(let label): return actor + "cancel \(label)"
        case .hangUp(let label): return actor + "hang up \(label)"
        case .answer(let label): return actor + "answer \(label)"
        case .decline(let label): return actor + "decline \(label)"
        case .background: return actor + "app to background"
        case .foreground: return actor + "app to foreground"
        case .killApp: return actor + "kill app"
        case .forceStop: return actor + "force stop"
        case .doze: return actor + "doze"
        case .wake: return actor + "wake"
        case .lock: return actor + "lock"
        case .unlock: return actor + "unlock"
        case .fcmFault(let fault):
            let count = fault.count.map { "\($0) send(s)" } ?? "every send"
            return actor + "FCM answers \(fault.code)" + (fault.retryAfter.map { " (Retry-After \($0) s)" } ?? "")
                + " to \(count)"
        case .revokeToken: return actor + "FCM token revoked"
        case .phoneOff: return actor + "phone off"
        case .phoneOn: return actor + "phone on"
        case .networkDown: return actor + "network down"
        case .networkUp: return actor + "network up"
        case .restartServer(let down): return "restart server (down \(down) s)"
        case .killNode(let node): return "kill node-\(node)"
        case .startNode(let node): return "start node-\(node)"
        case .check(let label, let state): return "check \(label) is \(state)"
        case .cellularCall(let answer): return actor + "cellular call, answered \(answer.rawValue)"
        case .cellularCallEnds: return actor + "cellular call ends"
        case .hold(let label, let held): return actor + (held ? "hold \(label)" : "resume \(label)")
        case .mute(let label, let muted): return actor + (muted ? "mute \(label)" : "unmute \(label)")
        case .keypad(let label, let digits): return actor + "keypad \(digits) on \(label)"
        case .callBack(let label): return actor + "call back from Recents (\(label))"
        }
    }
}
