import Foundation

/// The outcome of one scenario run.
public struct ScenarioResult: Sendable {
    /// The scenario's file.
    public var file: String
    /// The scenario's name.
    public var name: String
    /// The time scale it ran at (real seconds per scenario second).
    public var timeScale: Double
    /// Every difference between what happened and what was expected; empty when the run matched.
    public var mismatches: [String]
    /// What happened, one line per observation, with scenario times and call labels.
    public var trace: [String]
    /// Real seconds the run took, setup and teardown included.
    public var realSeconds: Double

    /// True when everything matched.
    public var passed: Bool { mismatches.isEmpty }

    /// A readable report: a PASS/FAIL line, then each mismatch.
    public var summary: String {
        let head =
            (passed ? "PASS " : "FAIL ")
            + "\(name)  (\(file), \(String(format: "%.1f", realSeconds)) s at time scale \(timeScale))"
        return ([head] + mismatches.map { "  - " + $0 }).joined(separator: "\n")
    }
}
