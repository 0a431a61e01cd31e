/// Why the server itself ended an accepted call (the call's `end_reason`): the parties' apps did not
/// end it, so no `ended_by` names one of them.
///
/// Set only on calls in state `ended`; absent when a participant hung up. The reasons and their limits
/// (`--call-idle-timeout`, `--max-call-duration`) are described in docs/call-lifecycle.md "Accepted calls
/// the server ends".
public struct SystemEndReason: OpenStringEnum {
    public let rawValue: String
    /// Creates the value; any string is accepted, so values added by a newer server still decode.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Neither party's app was heard from for the idle limit (`--call-idle-timeout`, 120 s by default):
    /// no open `/v1/events` socket, no `POST /v1/calls/{id}/keepalive`, no call action.
    public static let connectionLost: SystemEndReason = "connection_lost"
    /// The call lasted the maximum duration (`--max-call-duration`, 4 h by default) since it was accepted.
    public static let maximumDuration: SystemEndReason = "max_duration"
    /// The app's backend ended the call through the server call API (`POST /v1/server/calls/{call_id}/end`,
    /// docs/backend.md): a conversation the app's own rules stopped (a consultation's time, a moderator).
    public static let endedByBackend: SystemEndReason = "ended_by_backend"
}
