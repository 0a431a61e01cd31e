public import RingerWire

/// Why the call machine refused an input. Nothing changed when this is thrown.
public struct CallRuleError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case notParticipant
        case wrongParty
        case stateConflict
        case answeredElsewhere
    }

    private let code: Code
    /// The call's state when the input was refused.
    public let state: CallState
    /// What was refused and why, for the problem's `detail`.
    public let detail: String

    private init(_ code: Code, state: CallState, detail: String) {
        self.code = code
        self.state = state
        self.detail = detail
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

    /// True for ``notParticipant(state:)``.
    public var isNotParticipant: Bool { code == .notParticipant }
    /// True for ``wrongParty(_:state:)``.
    public var isWrongParty: Bool { code == .wrongParty }
    /// True for ``stateConflict(_:state:)``.
    public var isStateConflict: Bool { code == .stateConflict }
    /// True for ``answeredElsewhere(state:)``.
    public var isAnsweredElsewhere: Bool { code == .answeredElsewhere }

    public var description: String { "\(detail) (call is \(state))" }
}
