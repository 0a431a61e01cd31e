import Foundation

/// The result of one race exploration run: its script, the broken invariants, and the trace.
public struct RaceOutcome: Sendable {
    /// What the run did.
    public var script: RaceScript
    /// Every broken invariant; empty when the run kept them all.
    public var violations: [RaceViolation]
    /// Problems that stopped the run itself (a phone that could not be set up); they fail it too.
    public var problems: [String]
    /// What happened, in scenario seconds from the call's placement, call id shown as `<call>`.
    public var trace: [String]
    /// Real seconds per scenario second of the run.
    public var timeScale: Double
    /// Real seconds the run took, setup included.
    public var realSeconds: Double

    /// Creates an outcome.
    /// - Parameters:
    ///   - script: what the run did.
    ///   - violations: the broken invariants.
    ///   - problems: what stopped the run itself.
    ///   - trace: the time line.
    ///   - timeScale: real seconds per scenario second.
    ///   - realSeconds: how long the run took.
    public init(
        script: RaceScript, violations: [RaceViolation], problems: [String], trace: [String],
        timeScale: Double, realSeconds: Double
    ) {
        self.script = script
        self.violations = violations
        self.problems = problems
        self.trace = trace
        self.timeScale = timeScale
        self.realSeconds = realSeconds
    }

    /// True when the run kept every invariant.
    public var passed: Bool { violations.isEmpty && problems.isEmpty }

    /// The command that plays this seed again and prints its time line.
    public var replayCommand: String {
        let cluster = script.nodes > 1 ? " --nodes \(script.nodes) --database <postgres://…> --redis <redis://…>" : ""
        let group = script.group == nil ? "" : " --group"
        return "ringer-lab explore --seed \(script.seed)\(group)\(cluster) --time-scale \(timeScale) --trace"
    }

    /// One line: `PASS seed 7 (2 devices, 3 steps) in 0.62 s`.
    public var summary: String {
        let shape = "\(script.devices.count) device(s), \(script.steps.count) step(s)"
        let verdict = passed ? "PASS" : "FAIL"
        return
            "\(verdict) seed \(script.seed) (\(shape)) in \(String(format: "%.2f", realSeconds)) s at time scale \(timeScale)"
    }

    /// Everything needed to understand and replay a failure: the summary, each violation, the script,
    /// the replay command and the trace.
    public var report: String {
        var lines = [summary]
        lines += problems.map { "  problem: \($0)" }
        lines += violations.map { "  violated \($0)" }
        lines.append("script:")
        lines += script.lines.map { "  " + $0 }
        lines.append(
            script.isGenerated
                ? "replay: \(replayCommand)"
                : "replay: a hand-made script, not made from its seed: play it with RaceExplorer.run(_:)")
        lines.append("trace:")
        lines += trace.map { "  " + $0 }
        return lines.joined(separator: "\n")
    }
}
