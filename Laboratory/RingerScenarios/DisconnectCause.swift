public import RingerWire

/// Why a `Connection` ended, as Android's `android.telecom.DisconnectCause` says it: a code and an optional
/// reason string, given to `Connection.setDisconnected` before `destroy()`.
public struct DisconnectCause: Sendable, Hashable, CustomStringConvertible {
    /// The codes, named and numbered as Android's `DisconnectCause` constants.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// `UNKNOWN` (0).
        case unknown = "UNKNOWN"
        /// `ERROR` (1): the call failed (set-up error, a refused foreground service).
        case error = "ERROR"
        /// `LOCAL` (2): the local user hung up.
        case local = "LOCAL"
        /// `REMOTE` (3): the other party hung up or cancelled.
        case remote = "REMOTE"
        /// `CANCELED` (4): an outgoing call cancelled before it connected.
        case canceled = "CANCELED"
        /// `MISSED` (5): an incoming call nobody answered.
        case missed = "MISSED"
        /// `REJECTED` (6): an incoming call declined.
        case rejected = "REJECTED"
        /// `BUSY` (7).
        case busy = "BUSY"
        /// `RESTRICTED` (8).
        case restricted = "RESTRICTED"
        /// `OTHER` (9).
        case other = "OTHER"
        /// `CONNECTION_MANAGER_NOT_SUPPORTED` (10).
        case connectionManagerNotSupported = "CONNECTION_MANAGER_NOT_SUPPORTED"
        /// `ANSWERED_ELSEWHERE` (11, API 29+): another device of the user answered.
        case answeredElsewhere = "ANSWERED_ELSEWHERE"
        /// `CALL_PULLED` (12).
        case callPulled = "CALL_PULLED"

        /// Android's integer value of the constant.
        public var value: Int { Self.allCases.firstIndex(of: self)! }
    }

    /// The code.
    public var code: Code
    /// `DisconnectCause.getReason()`: why, for logs (e.g. "declined elsewhere"); nil for none.
    public var reason: String?

    /// Creates a cause.
    public init(_ code: Code, reason: String? = nil) {
        self.code = code
        self.reason = reason
    }

    /// The cause a remote ending shows (docs/android-integration.md "End reasons"): `remoteEnded` → REMOTE,
    /// `unanswered` → MISSED, `answeredElsewhere` → ANSWERED_ELSEWHERE, `declinedElsewhere` → REJECTED
    /// with "declined elsewhere", `failed` → ERROR, `answerNotDelivered` → ERROR with "answer not delivered"; a reason this version does not know → UNKNOWN with its name.
    public init(endReason: CallEndReason) {
        switch endReason {
        case .remoteEnded: self.init(.remote)
        case .unanswered: self.init(.missed)
        case .answeredElsewhere: self.init(.answeredElsewhere)
        case .declinedElsewhere: self.init(.rejected, reason: "declined elsewhere")
        case .failed: self.init(.error)
        case .answerNotDelivered: self.init(.error, reason: "answer not delivered")
        default: self.init(.unknown, reason: endReason.rawValue)
        }
    }

    /// `CODE` or `CODE (reason)`.
    public var description: String { reason.map { "\(code.rawValue) (\($0))" } ?? code.rawValue }
}
