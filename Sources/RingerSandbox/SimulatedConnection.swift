public import Foundation
public import RingerWire

/// One `android.telecom.Connection` of the simulated self-managed ConnectionService: a call as Telecom and
/// the app's call UI see it.
public struct SimulatedConnection: Sendable, Hashable {
    /// `Connection.getState()`, named as Android's `Connection.STATE_*` constants.
    public enum State: String, Sendable, Hashable {
        /// `STATE_RINGING`: an incoming call waiting for the user (still so after `onAnswer` until `setActive`).
        case ringing = "STATE_RINGING"
        /// `STATE_DIALING`: an outgoing call not answered yet.
        case dialing = "STATE_DIALING"
        /// `STATE_ACTIVE`: connected (`setActive`).
        case active = "STATE_ACTIVE"
        /// `STATE_DISCONNECTED`: `setDisconnected` was called; the connection is destroyed.
        case disconnected = "STATE_DISCONNECTED"
    }

    /// Which way the call goes.
    public enum Direction: String, Sendable, Hashable {
        /// From `addNewIncomingCall` → `onCreateIncomingConnection`.
        case incoming
        /// From `placeCall` → `onCreateOutgoingConnection`.
        case outgoing
    }

    /// How the app's incoming-call UI (`Connection.onShowIncomingCallUi`) appears to the user.
    public enum Presentation: String, Sendable, Hashable {
        /// The app is on screen: its own in-app call screen.
        case inApp
        /// A locked phone: the notification's full-screen intent opens the call screen over the lock screen.
        case fullScreen
        /// A heads-up notification with Answer and Decline (the phone is in use, the full-screen intent is not
        /// permitted, or the app may not launch it from the background).
        case headsUp
    }

    /// The key: the server's call id.
    public var id: UUID
    /// `setAddress` / `setCallerDisplayName` (for an outgoing call, the callee).
    public var party: Party
    /// `setVideoState`: true for a video call.
    public var hasVideo: Bool
    /// Incoming or outgoing.
    public var direction: Direction
    /// The Telecom state.
    public var state: State
    /// How the incoming-call UI shows; nil for an outgoing call.
    public var presentation: Presentation?
    /// True from `onAnswer` until `setActive` or the end: the ringtone stops at once, but the connection
    /// becomes active only when the server confirmed the answer.
    public var answerRequested: Bool
    /// The cause given to `setDisconnected`, once disconnected.
    public var disconnectCause: DisconnectCause?

    /// True while the user hears its ringtone: incoming, `STATE_RINGING`, not answered yet.
    public var isRinging: Bool { direction == .incoming && state == .ringing && !answerRequested }
}
