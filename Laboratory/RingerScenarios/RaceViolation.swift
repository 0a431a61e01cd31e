/// One broken invariant found in a race exploration run.
public struct RaceViolation: Sendable, Equatable, CustomStringConvertible {
    /// The invariants every run must keep.
    public enum Invariant: String, Sendable, Equatable, CaseIterable {
        /// (a) Every VoIP push delivered to a phone was reported to the call UI.
        case pushReported = "a"
        /// (b) At most one native call per call id on each device.
        case oneNativeCall = "b"
        /// (c) Nothing rings after the call is over.
        case nothingRingsAfterEnd = "c"
        /// (d) Exactly one end reason per native call, agreeing with the server.
        case endReasonAgrees = "d"
        /// (e) A group call's legs agree: every leg ends, one winner under `first_answer`.
        case legsAgree = "e"

        /// The invariant in words.
        public var title: String {
            switch self {
            case .pushReported: "every VoIP push is reported to the call UI"
            case .oneNativeCall: "at most one native call per call id on each device"
            case .nothingRingsAfterEnd: "nothing rings after the call is over"
            case .endReasonAgrees: "one end reason per native call, agreeing with the server"
            case .legsAgree: "a group call's legs all end, with one winner under first_answer"
            }
        }
    }

    /// Which invariant.
    public var invariant: Invariant
    /// The phone concerned, if one is.
    public var device: String?
    /// What was seen, with times.
    public var detail: String

    /// Creates a violation.
    /// - Parameters:
    ///   - invariant: which invariant.
    ///   - device: the phone concerned, if one is.
    ///   - detail: what was seen.
    public init(_ invariant: Invariant, device: String?, _ detail: String) {
        self.invariant = invariant
        self.device = device
        self.detail = detail
    }

    /// `(c) nothing rings after the call is over — bob-2: …`.
    public var description: String {
        "(\(invariant.rawValue)) \(invariant.title) — \(device.map { "\($0): " } ?? "")\(detail)"
    }
}
