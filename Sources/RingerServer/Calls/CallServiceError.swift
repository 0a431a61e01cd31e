import RingerCore
import RingerWire

/// Why the ``CallService`` refused a request, in the terms of calls, not of HTTP: the API layer alone
/// (``APIProblem/from(_:)-(CallServiceError)``) turns it into a problem response.
enum CallServiceError: Error, Sendable {
    /// The call does not exist, or the user is not one of its parties: the two are never told apart, so a
    /// stranger learns nothing of a call (docs/security.md).
    case callNotFound
    /// `callee` is not a valid user id.
    case invalidCallee
    /// The caller named themselves as the callee.
    case selfCall
    /// No user has this id.
    case userNotFound(String)
    /// A `device_id` that is not a valid identifier.
    case invalidDeviceID
    /// The device is neither registered to the user nor holding an event stream of theirs.
    case unknownDevice(String)
    /// The caller asked for the push outcomes, which describe the callee's devices.
    case pushOutcomesForCalleeOnly
    /// The call is not accepted (media, keepalive): a sentence for the client, and the call's state.
    case notAccepted(String, state: CallState)
    /// The call machine refused the input.
    case rule(CallRuleError)
}
