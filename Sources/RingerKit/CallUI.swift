public import Foundation
public import RingerWire

/// What the native call UI shows for a new incoming call.
public struct IncomingCallReport: Hashable, Sendable {
    /// The CallKit UUID: the server's call id, so one server call is one call on screen.
    public var id: UUID
    /// Who is calling, shown as the handle and display name.
    public var caller: Party
    /// Whether the call offers video.
    public var hasVideo: Bool
    /// For a group call: how many were rung (this user included) and some of the others, so the call UI names
    /// the caller and the count ("Alice and 2 others"); nil for a 1:1 call.
    public var group: VoIPPush.Group?

    /// The handle the native call UI is given for the call (CallKit's `CXHandle`, type `.generic`): the caller's user
    /// id, which the phone's Recents lists and hands back on a tap, so a call back (``CallBackRequest``) knows whom to
    /// call. The laboratory's simulated CallKit reads the same.
    public var handle: String { caller.id }

    /// The name the call UI shows for the caller: their display name (else their id), and for a group call the
    /// count of the others rung with this user, through `groupName` (``defaultGroupName(caller:others:)`` unless the
    /// app localizes it). The handle stays the caller's id, so the system's Recents calls the caller back.
    /// - Parameter groupName: the caller's name and the number of other callees (at least 0) to the shown name.
    public func callerDisplayName(groupName: (String, Int) -> String = Self.defaultGroupName) -> String {
        let name = caller.name ?? caller.id
        guard let group else { return name }
        return groupName(name, max(0, group.count - 1))
    }

    /// "Alice and 2 others", "Alice and 1 other", "Alice" (no other callee): English, as the system's own call
    /// screens say it. Apps that localize pass their own to ``callerDisplayName(groupName:)``.
    /// - Parameters:
    ///   - caller: the caller's shown name.
    ///   - others: the other callees rung with this user.
    public static func defaultGroupName(caller: String, others: Int) -> String {
        switch others {
        case ...0: caller
        case 1: "\(caller) and 1 other"
        default: "\(caller) and \(others) others"
        }
    }

    /// Creates a report.
    public init(id: UUID, caller: Party, hasVideo: Bool, group: VoIPPush.Group? = nil) {
        self.id = id
        self.caller = caller
        self.hasVideo = hasVideo
        self.group = group
    }
}

/// The platform's native call UI as the core needs it: CallKit's `CXProvider` on iOS, a self-managed
/// `ConnectionService` on Android, or a simulator in tests.
///
/// Implementations only translate; every decision is the ``CallCoordinator``'s. They call the
/// coordinator back when the user acts (``CallCoordinator/answer(callID:completion:)``,
/// ``CallCoordinator/end(callID:completion:)``).
public protocol CallUI: AnyObject, Sendable {
    /// Shows a ringing incoming call. Apple: `CXProvider.reportNewIncomingCall(with:update:completion:)`,
    /// which must be called before the PushKit completion for every VoIP push.
    /// - Parameter completion: nil when the call rings; an error when the system refused it
    ///   (duplicate UUID, Do Not Disturb, blocked caller).
    func reportIncomingCall(_ report: IncomingCallReport, completion: @escaping @Sendable ((any Error)?) -> Void)

    /// Closes a call the local user did not end. Apple: `CXProvider.reportCall(with:endedAt:reason:)`.
    func reportCallEnded(id: UUID, at date: Date, reason: CallEndReason)

    /// Marks an outgoing call as connected. Apple: `CXProvider.reportOutgoingCall(with:connectedAt:)`.
    func reportOutgoingCallConnected(id: UUID, at date: Date)

    /// The user answered an incoming call, however (the native UI, a headset, the app's own screen): stop ringing
    /// and show it answering until the server confirms, once; a call the UI already shows answering or answered
    /// is left as it is. Apple: request a `CXAnswerCallAction` unless one was performed (CallKit then shows the
    /// call answered while the coordinator holds the action); Android: the ringing notification goes and the
    /// call's foreground service starts, the `Connection` goes active only at ``reportCallAnswered(id:at:)``.
    func reportCallAnswering(id: UUID, at date: Date)

    /// The server confirmed this device's answer of an incoming call, however the user answered (the native UI,
    /// a headset, the app's own screen, ``CallCoordinator/answer(callID:completion:)``): show the call answered,
    /// once; calls after the first, and calls for a call the UI already shows answered, change nothing.
    /// Apple: request a `CXAnswerCallAction` unless one was performed; Android: `Connection.setActive()` and the
    /// ringing notification goes.
    func reportCallAnswered(id: UUID, at date: Date)

    /// Hold (`true`) or resume an answered call, as the coordinator decided (the app asked, or another call takes the
    /// audio). Apple: request a `CXSetHeldCallAction`; CallKit performs it on the delegate, which tells the
    /// coordinator (``CallCoordinator/hold(callID:held:)``). Android: `Connection.setOnHold()`/`setActive()`, then
    /// the same call, as Telecom does not call its own `onHold` for a change the app made. A request the system
    /// refuses changes nothing: the coordinator's state follows only what the system did.
    func requestHeld(id: UUID, held: Bool)

    /// Mute or unmute a call at the app's request. Apple: request a `CXSetMutedCallAction`, performed on the
    /// delegate, which tells the coordinator (``CallCoordinator/mute(callID:muted:)``); Android: Telecom's mute, then
    /// the same call.
    func requestMuted(id: UUID, muted: Bool)

    /// Play keypad tones at the app's request. Apple: request a `CXPlayDTMFCallAction` (type single tone), performed
    /// on the delegate, which tells the coordinator (``CallCoordinator/dtmf(callID:digits:)``); Android: the
    /// same call at once (a self-managed call's tones are the app's media).
    func requestDTMF(id: UUID, digits: String)

    /// Send the calls' audio to this output, as the coordinator decided (the app chose it, or a video call starts on
    /// the speaker). Apple: `AVAudioSession.overrideOutputAudioPort(.speaker)`, or `.none` and `setPreferredInput` of
    /// the device's input port; Android: `Connection.requestCallEndpointChange` (API 34), `setAudioRoute` below. The
    /// system's new route comes back through ``CallCoordinator/audioOutputsChanged(current:outputs:)``; a request the
    /// system refuses changes nothing. Nil: the calls are over, give the route back to the system (Apple: no override,
    /// no preferred input, which the session keeps otherwise; Android: nothing, Telecom's routing ends with the call).
    func applyAudioOutput(_ output: AudioOutput?)
}
