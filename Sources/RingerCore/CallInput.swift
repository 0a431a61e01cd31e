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
}

/// Who acted. Ring timeouts and the ends of silent or overlong calls are acted by the system; everything
/// else by a participant.
public enum CallActor: Hashable, Sendable {
    /// A user, by id; must be the caller or the callee.
    case user(String)
    /// The server itself (ring timeout, connection lost, maximum duration).
    case system
}
