public import Foundation
public import RingerSandbox
public import RingerWire

/// One simulated phone of a scenario, as it is when the time line starts.
public struct ScenarioDevice: Sendable, Equatable {
    /// What the phone's user does when it rings.
    public enum Behaviour: Sendable, Equatable {
        /// Let it ring.
        case ignore
        /// Answer on the native call screen this many scenario seconds after it starts ringing.
        case answer(after: TimeInterval)
        /// Decline this many scenario seconds after it starts ringing.
        case decline(after: TimeInterval)
    }

    /// The device id (unique in the scenario).
    public var id: String
    /// The user who owns the phone.
    public var user: String
    /// The phone's platform; simulated phones are iPhones (`ios`).
    public var platform: Platform
    /// The app's state at the start.
    public var app: SimulatedIPhone.AppState
    /// False when the phone is switched off at the start: no app runs and APNs holds its pushes.
    public var phoneOn: Bool
    /// What the user does when it rings.
    public var behaviour: Behaviour
    /// False when nobody is logged in to the app: its device registration must be refused.
    public var loggedIn: Bool
    /// Scenario seconds APNs takes to hand a push to this phone (a slow network).
    public var pushDelay: TimeInterval
}
