public import RingerWire

/// Why the call machine refused an input. Nothing changed when this is thrown.
public struct CallRuleError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case notParticipant
        case wrongParty
        case stateConflict
        case answeredElsewhere
        case calleeAlreadyRung
        case tooManyCallees
    }

    private let code: Code
    /// The call's state when the input was refused.
    public let state: CallState
    /// What was refused and why, for the problem's `detail`.
    public let detail: String
    /// In a group call, the acting callee's leg state when the input was refused (``state`` is then the call as
    /// that callee reads it); nil for a 1:1 call and for the caller.
    public let legState: LegState?
    /// The callees the refusal is about (``calleeAlreadyRung(_:state:)``); empty otherwise.
    public let callees: [String]

    private init(
        _ code: Code, state: CallState, detail: String, legState: LegState? = nil, callees: [String] = []
    ) {
        self.code = code
        self.state = state
        self.detail = detail
        self.legState = legState
        self.callees = callees
    }

    /// The same refusal as a callee of a group call meets it: `state` is their view, `legState` their leg's.
    func reading(as state: CallState, legState: LegState) -> CallRuleError {
        CallRuleError(code, state: state, detail: detail, legState: legState, callees: callees)
    }

    /// The acting user is neither the caller nor the callee.
    public static func notParticipant(state: CallState) -> CallRuleError {
        CallRuleError(.notParticipant, state: state, detail: "not a participant of this call")
    }

    /// The acting user is a participant but on the wrong side (a caller cannot accept, a callee cannot cancel).
    public static func wrongParty(_ detail: String, state: CallState) -> CallRuleError {
        CallRuleError(.wrongParty, state: state, detail: detail)
    }

    /// The call is in a state where this input no longer (or not yet) applies.
    public static func stateConflict(_ detail: String, state: CallState) -> CallRuleError {
        CallRuleError(.stateConflict, state: state, detail: detail)
    }

    /// Another device of the callee answered first.
    public static func answeredElsewhere(state: CallState) -> CallRuleError {
        CallRuleError(.answeredElsewhere, state: state, detail: "the call was answered on another device")
    }

    /// A ring-more named callees whose legs of this call already ended: their phones remember the call as over
    /// (and CallKit takes a call UUID once), so ringing them again would not ring (decision 0007 §7).
    public static func calleeAlreadyRung(_ callees: [String], state: CallState) -> CallRuleError {
        CallRuleError(
            .calleeAlreadyRung, state: state,
            detail:
                "already rung in this call and no longer in it: \(callees.joined(separator: ", ")); place a new call",
            callees: callees)
    }

    /// A ring-more would give the call more legs than the server allows (`--max-callees-per-call`).
    public static func tooManyCallees(limit: Int, state: CallState) -> CallRuleError {
        CallRuleError(
            .tooManyCallees, state: state,
            detail: "a call rings at most \(limit) callees (--max-callees-per-call)")
    }

    /// True for ``notParticipant(state:)``.
    public var isNotParticipant: Bool { code == .notParticipant }
    /// True for ``wrongParty(_:state:)``.
    public var isWrongParty: Bool { code == .wrongParty }
    /// True for ``stateConflict(_:state:)``.
    public var isStateConflict: Bool { code == .stateConflict }
    /// True for ``answeredElsewhere(state:)``.
    public var isAnsweredElsewhere: Bool { code == .answeredElsewhere }
    /// True for ``calleeAlreadyRung(_:state:)``.
    public var isCalleeAlreadyRung: Bool { code == .calleeAlreadyRung }
    /// True for ``tooManyCallees(limit:state:)``.
    public var isTooManyCallees: Bool { code == .tooManyCallees }

    public var description: String { "\(detail) (call is \(state))" }
}
