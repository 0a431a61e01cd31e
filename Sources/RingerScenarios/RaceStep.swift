public import Foundation

/// One timed action of a race exploration run (``RaceScript``): a callee device's user or the phone
/// itself does something, or the caller hangs up.
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
    }

    /// Scenario seconds after the call was placed.
    public var at: TimeInterval
    /// The callee device acting; nil for ``Action/callerHangsUp``.
    public var device: String?
    /// What happens.
    public var action: Action

    /// Creates a step.
    /// - Parameters:
    ///   - at: scenario seconds after the call was placed.
    ///   - device: the callee device; nil when the caller acts.
    ///   - action: what happens.
    public init(at: TimeInterval, device: String?, action: Action) {
        self.at = at
        self.device = device
        self.action = action
    }

    /// The step in words, with its time: `  3.25 s  bob-2: answer`.
    public var summary: String {
        let time = String(format: "%7.2f s", at)
        return "\(time)  \(device ?? "caller"): \(action.rawValue.replacingOccurrences(of: "_", with: " "))"
    }
}
