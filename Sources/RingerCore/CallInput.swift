public import Foundation
public import RingerWire

/// Something that happens to a call after it was created; fed to ``CallMachine/handle(_:by:at:)``.
public enum CallInput: Hashable, Sendable {
    /// A callee device shows the call (API: `POST /v1/calls/{id}/ringing`).
    case ringing(deviceID: String)
    /// A callee device answers (API: `POST /v1/calls/{id}/accept`).
    case accept(deviceID: String)
    /// A callee device declines (API: `POST /v1/calls/{id}/decline`).
    case decline(deviceID: String)
    /// The caller gives up before an answer (API: `POST /v1/calls/{id}/cancel`).
    case cancel
    /// Either party hangs up an accepted call (API: `POST /v1/calls/{id}/end`).
    case end
    /// The stored ring deadline passed (fired by the server's scheduler, also after a restart).
    case ringTimeout
    /// Neither party's app was heard from for the idle limit while the call was accepted (decided by
    /// ``AcceptedCallWatch``); ends it with ``SystemEndReason/connectionLost``.
    case connectionLost
    /// The accepted call reached the maximum duration (decided by ``AcceptedCallWatch``); ends it with
    /// ``SystemEndReason/maximumDuration``.
    case maximumDurationReached
    /// The caller or a callee in the call rings more people (API: `POST /v1/calls/{id}/ring`); turns a 1:1 call
    /// into a group call (decision 0007 §7).
    case ringMore(RingMore)
    /// One callee's app in a group call was not heard from for the idle limit (decided by ``AcceptedCallWatch``
    /// per leg): their leg becomes `left`, and the call ends if it was the last one in it.
    case legConnectionLost(userID: String)
}

/// What ``CallInput/ringMore(_:)`` carries: who to ring and the server's limits at that moment.
public struct RingMore: Hashable, Sendable {
    /// The people to ring, in order; the server has checked each is a known user other than the caller and
    /// read their devices, sockets and whether they are busy under the call's lock.
    public var invitees: [Invitee]
    /// Seconds each new leg rings before it ends `unanswered` (`--ring-timeout`).
    public var ringTimeout: TimeInterval
    /// The most legs the call may have, those it has included (`--max-callees-per-call`).
    public var maximumLegs: Int

    /// Creates the input's payload.
    public init(invitees: [Invitee], ringTimeout: TimeInterval, maximumLegs: Int) {
        self.invitees = invitees
        self.ringTimeout = ringTimeout
        self.maximumLegs = maximumLegs
    }
}

/// A person a group call rings, as the server found them when placing the call or ringing more.
public struct Invitee: Hashable, Sendable {
    /// The user, with the display name the server knows.
    public var party: Party
    /// Their registered devices.
    public var devices: [CalleeDevice]
    /// True when they hold at least one open event socket (on any server).
    public var online: Bool
    /// True when they are already in an accepted call.
    public var busy: Bool

    /// Creates an invitee.
    public init(party: Party, devices: [CalleeDevice], online: Bool = false, busy: Bool = false) {
        self.party = party
        self.devices = devices
        self.online = online
        self.busy = busy
    }
}

/// Who acted. Ring timeouts and the ends of silent or overlong calls are acted by the system; everything
/// else by a participant.
public enum CallActor: Hashable, Sendable {
    /// A user, by id; must be the caller or the callee.
    case user(String)
    /// The server itself (ring timeout, connection lost, maximum duration).
    case system
    /// The app's backend, through an API key (decision 0009 §2): it may cancel a ringing call, as its caller
    /// would, and end a call in any state; no user is named as having ended it.
    case backend
}
