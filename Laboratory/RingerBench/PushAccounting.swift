/// Whether every call placed in a set-up reached the APNs sandbox exactly once as a VoIP push: summed over
/// all its steps (probe, search, latency step) from the load generator's per-step counts.
public struct PushAccounting: Hashable, Sendable {
    /// Calls answered 201 (each must have exactly one push).
    public var calls = 0
    /// Of those, calls whose push never reached the sandbox within the load generator's settle time (5 s).
    public var missing = 0
    /// VoIP pushes beyond the first for a call.
    public var duplicate = 0
    /// False when a step's load generator did not count duplicates (then ``duplicate`` is a lower bound).
    public var duplicatesCounted = true

    /// Nothing counted yet.
    public init() {}

    /// Adds one step's counts.
    /// - Parameter result: the load generator's answer for the step.
    mutating func add(_ result: RingingStep.Result) {
        calls += result.ok
        missing += result.missingPush
        if let extra = result.duplicatePush { duplicate += extra } else { duplicatesCounted = false }
    }

    /// True when every call had exactly one push.
    public var isExact: Bool { missing == 0 && duplicate == 0 && duplicatesCounted }
}
