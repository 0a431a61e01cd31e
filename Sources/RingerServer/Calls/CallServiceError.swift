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
    /// Neither `callee` nor `callees` was given.
    case missingCallee
    /// A field of the request is not acceptable (both `callee` and `callees`, an empty list, an entry that is no
    /// user id, an unknown `answer_policy`): a sentence for the client.
    case invalidRequest(String)
    /// A group call's list names these users twice.
    case duplicateCallees([String])
    /// A group call's list is longer than `--max-callees-per-call`.
    case tooManyCallees(limit: Int)
    /// No user has these ids (a group call's list; nobody was rung).
    case usersNotFound([String])
    /// A live server of the cluster does not know group calls yet (a rolling upgrade).
    case groupCallsUnavailable
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
    /// The call is not accepted, or the acting callee of a group call is not in it (media, keepalive): a sentence
    /// for the client, the call's state as they read it, and their leg's.
    case notAccepted(String, state: CallState, legState: LegState?)
    /// The call machine refused the input.
    case rule(CallRuleError)
}
