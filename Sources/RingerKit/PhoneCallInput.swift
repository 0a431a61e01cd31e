public import Foundation
public import RingerWire

/// Who is logged in on the device, as ``PhoneCallMachine`` needs to know it to judge a push.
public enum PhoneAccount: Hashable, Sendable {
    /// The app is still launching: nobody is known yet, requests wait (a push still rings).
    case launching
    /// A user is logged in; `userID` is nil when the token names none the device can read.
    case loggedIn(userID: String?)
    /// Nobody is logged in: pushes are refused.
    case loggedOut
}

/// A ringing push as ``PhoneCallMachine`` reads it: a PushKit VoIP push or an FCM data message, already
/// parsed (`{"ringer":{"type":"call.incoming",…}}`, docs/openapi.yaml "VoIP push").
public struct IncomingPush: Hashable, Sendable {
    /// The call id, lowercase.
    public var callID: String
    /// The call id as the native call UI's id (CallKit's UUID is the call id).
    public var uuid: UUID
    /// The caller.
    public var caller: Party
    /// The user the call is for, when the push says.
    public var calleeID: String?
    /// Whether the caller asked for video.
    public var hasVideo: Bool
    /// When the server sent the push, on the server's clock.
    public var sentAt: Date
    /// The ring deadline, on the server's clock.
    public var expiresAt: Date
    /// For a group call, the push's `group`: the count rung and some of the others.
    public var group: VoIPPush.Group?
    /// True when the push says the call rings as a waiting call (this user is in another call).
    public var waiting: Bool

    /// Creates a push.
    /// - Parameters:
    ///   - uuid: the call id; ``callID`` is its lowercase string.
    ///   - caller: the caller.
    ///   - calleeID: the user the call is for, if the push says.
    ///   - hasVideo: whether the caller asked for video.
    ///   - sentAt: when the server sent it (server clock).
    ///   - expiresAt: the ring deadline (server clock).
    ///   - group: a group call's `group`; nil for a 1:1 call.
    ///   - waiting: the push's `waiting` (a call waiting; false when absent).
    public init(
        uuid: UUID, caller: Party, calleeID: String?, hasVideo: Bool, sentAt: Date, expiresAt: Date,
        group: VoIPPush.Group? = nil, waiting: Bool = false
    ) {
        self.callID = uuid.uuidString.lowercased()
        self.uuid = uuid
        self.caller = caller
        self.calleeID = calleeID
        self.hasVideo = hasVideo
        self.sentAt = sentAt
        self.expiresAt = expiresAt
        self.group = group
        self.waiting = waiting
    }
}

/// Who changed an active call's hold or mute, or played its keypad tones: the phone's native call UI, or the app
/// asking for it.
public enum ControlSource: String, Hashable, Sendable {
    /// The system did it and the call is now so: CallKit performed a `CXSetHeldCallAction` or `CXSetMutedCallAction`
    /// (its own buttons, "Hold & Accept" of another call, a headset), Telecom called `Connection.onHold()`/`onUnhold()`
    /// or `onMuteStateChanged`, Core-Telecom `onSetInactive`/`onSetActive`.
    case system
    /// The app asked (``CallCoordinator/setHeld(callID:held:)``): the machine asks the native call UI, whose answer
    /// comes back as a ``system`` change, so the system's screen and the app never disagree.
    case app
}

/// Something that happened to a device's calls; fed to ``PhoneCallMachine/handle(_:at:)`` with the phone's
/// clock reading. Call ids are lowercase.
public enum PhoneCallInput: Hashable, Sendable {
    /// A ringing push arrived. `reportsEveryPush` is PushKit's rule (every VoIP push is reported to CallKit,
    /// one that cannot ring is reported and ended at once; Apple: PushKit, iOS 13+); false on Android, where
    /// only a push that rings reaches the call UI.
    case incomingPush(IncomingPush, account: PhoneAccount, reportsEveryPush: Bool)
    /// A push that could not be read as a ringing push.
    case unreadablePush(reportsEveryPush: Bool)
    /// `call.incoming` on the event stream.
    case incomingEvent(Call)
    /// The call UI answered a ``PhoneCallEffect/reportIncoming(callID:_:)``: `accepted` false when the system
    /// refused to ring (Do Not Disturb, a blocked caller).
    case reportFinished(callID: String, accepted: Bool)
    /// Any other event of the stream (`call.accepted`, `call.cancelled`, `call.ended`, …).
    case event(EventType, Call)
    /// An alert or background push (iOS) or an FCM data message (Android) saying a call changed: `call.cancelled`,
    /// `call.answered_elsewhere`, `call.declined_elsewhere` or `call.unanswered`.
    case updatePush(EventType, callID: String)
    /// The user answered: on the native UI (`CXAnswerCallAction`, `Connection.onAnswer`), or in the app's own
    /// screen through ``CallCoordinator``.
    case answer(callID: String)
    /// The server accepted this device's answer.
    case answerConfirmed(callID: String)
    /// The server refused the answer with `problem` (a transport failure or a 5xx is no refusal: the owner keeps
    /// sending until the ring deadline, which ends an unconfirmed answer as ``CallEndReason/answerNotDelivered``).
    case answerRefused(callID: String, problem: Problem)
    /// The server refused the ringing acknowledgement with `problem` (the call is over or not this user's).
    case ringingRefused(callID: String, problem: Problem)
    /// The server refused a stored hang-up with `problem`, which retrying cannot change (a 4xx other than 408 and
    /// 429): the hang-up is settled; the machine says whether another must follow.
    case hangUpRefused(callID: String, PendingCallAction.Kind, problem: Problem)
    /// The user ended or declined on the native UI (`CXEndCallAction`).
    case end(callID: String)
    /// The native call UI dropped every call (Apple: `CXProviderDelegate.providerDidReset(_:)`).
    case endAll
    /// This device placed a call; the server answered with it.
    case outgoingPlaced(Call)
    /// The call as the server reads it now (`GET /v1/calls/{id}`, on a refresh).
    case callRead(Call)
    /// The server refused a keepalive; `call` is the call as read after, if that worked.
    case keepaliveRefused(callID: String, call: Call?)
    /// A ``PhoneCallEffect/armDeadline(callID:at:)`` timer fired.
    case deadlineReached(callID: String)
    /// Someone logged in or out (``CallCoordinator/connect(api:)``).
    case accountChanged(PhoneAccount)
    /// The server's clock read `serverTime` when this input's phone time was read (`stream.ready`'s
    /// `server_time_ms`).
    case serverTime(Date)
    /// The app's process started, with a machine built from what the previous process kept
    /// (``PhoneCallMachine/memory``): answers the server never confirmed are sent again (before their deadline)
    /// or ended as not delivered (after it). Fed once, right after the machine is created.
    case launched
    /// Hold or resume an answered call. From the ``ControlSource/system`` it is the call's new state; from the
    /// ``ControlSource/app`` a request the machine passes to the call UI. Only an active call is held.
    case setHeld(callID: String, held: Bool, by: ControlSource)
    /// Mute or unmute the microphone of a call not over. From the ``ControlSource/system`` it is the call's new
    /// state; from the ``ControlSource/app`` a request the machine passes to the call UI.
    case setMuted(callID: String, muted: Bool, by: ControlSource)
    /// Play keypad tones (`digits`, each one of ``PhoneCallMachine/dtmfDigits``) on the call that has the audio. From
    /// the ``ControlSource/system`` the user pressed them on the native keypad (CallKit's `CXPlayDTMFCallAction`,
    /// Telecom's `onPlayDtmfTone`) and the app's media sends them; from the ``ControlSource/app`` a request the machine
    /// passes to the call UI. Refused (no effect) for a call not active, held, or with digits outside the set.
    case playDTMF(callID: String, digits: String, by: ControlSource)
    /// The phone's wall clock was set since the offset was learned (by the user, or by the network's time):
    /// the offset no longer holds and is forgotten, so pushes ring until a new sample arrives.
    case phoneClockChanged
}
