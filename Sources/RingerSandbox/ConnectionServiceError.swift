/// Why the simulated ConnectionService did not show a call: the error handed to ``CallUI``'s report
/// completion (RingerKit then forgets the call, so a later message for it may ring).
public struct ConnectionServiceError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable { case callAlreadyExists, securityException, incomingConnectionFailed }

    private let code: Code
    /// What happened, in Android's terms.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// A `Connection` with this call id exists: one call per server call id
    /// (docs/android-integration.md; the equivalent of CallKit's `callUUIDAlreadyExists`).
    public static let callAlreadyExists = ConnectionServiceError(
        .callAlreadyExists, "a Connection for this call id exists")

    /// `TelecomManager.addNewIncomingCall` or `placeCall` threw `SecurityException`: `MANAGE_OWN_CALLS` is not
    /// granted for the self-managed `PhoneAccount`.
    public static let securityException = ConnectionServiceError(
        .securityException, "SecurityException: a self-managed PhoneAccount needs MANAGE_OWN_CALLS")

    /// Telecom called `onCreateIncomingConnectionFailed`: it will not take the call now (a call of another
    /// app cannot be held, an emergency call is in progress).
    public static let incomingConnectionFailed = ConnectionServiceError(
        .incomingConnectionFailed, "onCreateIncomingConnectionFailed: Telecom refused the incoming call")

    public var description: String { detail }
}
