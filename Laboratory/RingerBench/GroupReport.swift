import Foundation

/// The group part's figures and their rendering, ending with
/// `RESULT group calls=<n> callees_per_call=<n> reached=<n> lost=<n> duplicates=<n> rung_after_end=<n> push_queue_p99_ms=<n>`.
///
/// Issue 30's goal: 200 group calls at once, each to 8 callees with 3 devices each, reach every device once, no
/// device rings after its leg ended, and no push waits more than 1 s from the server's decision to ring (the call's
/// `created_at`) to the provider's receipt (issue 11's bound).
public struct GroupReport: Hashable, Sendable {
    /// What the load generator measured.
    var run: GroupRun
    /// Server CPU over the burst (first POST to last answer), cores.
    public var serverCores: Double?
    /// The sandbox's CPU over the same window, cores.
    public var sandboxCores: Double?
    /// Cores this machine has.
    public var cores: Int
    /// Its CPU model, if known.
    public var cpuModel: String?
    /// `release` or `debug`: how this code was compiled.
    public var buildMode: String

    /// The longest a push may wait, server decision -> provider receipt, ms.
    public static let pushQueueGoalMilliseconds = 1000.0

    /// The slowest push, decision -> provider receipt, ms; nil when none arrived.
    public var pushQueueMax: Double? { run.pushQueueMs.max() }

    /// True when every device rang once, none after its leg ended, every answer was taken, and no push waited past
    /// the goal.
    public var meetsGoal: Bool {
        run.lost == 0 && run.misdelivered == 0 && run.rungAfterEnd == 0 && run.ok == run.calls
            && run.answered == run.calls && (pushQueueMax ?? .infinity) <= Self.pushQueueGoalMilliseconds
    }

    /// The `RESULT group …` line.
    public var resultLine: String {
        "RESULT group calls=\(run.calls) callees_per_call=\(run.calleesPerCall) reached=\(run.reached)"
            + " lost=\(run.lost) duplicates=\(run.misdelivered) rung_after_end=\(run.rungAfterEnd)"
            + " push_queue_p99_ms=\(BenchmarkReport.whole(LatencySummary(run.pushQueueMs)?.p99 ?? 0))"
    }

    /// The human-readable report; its last line is ``resultLine``.
    public func render() -> String {
        var lines: [String] = []
        lines.append(
            "Group calls: one burst of \(run.calls) calls, each ringing \(run.calleesPerCall) callees with "
                + "\(run.devicesPerCallee) devices each (an iPhone by VoIP push, an Android phone by FCM, an app "
                + "holding /v1/events), first_answer; then one answer per call. One `ringer serve` (SQLite, plain "
                + "HTTP on loopback) sending to one `ringer-lab sandbox`")
        lines.append(
            BenchmarkReport.machineLine(
                cores: cores, cpuModel: cpuModel, buildMode: buildMode,
                sharedBy: "the server, the sandbox and the load generator"))
        lines.append("")
        let rows = [
            ["", "count", "p50 ms", "p99 ms", "max ms"],
            BenchmarkReport.latencyRow("POST -> 201", run.postMs),
            BenchmarkReport.latencyRow("decided -> push received", run.pushQueueMs),
            BenchmarkReport.latencyRow("  VoIP push (APNs)", run.apnsQueueMs),
            BenchmarkReport.latencyRow("  data message (FCM)", run.fcmQueueMs),
            BenchmarkReport.latencyRow("decided -> call.incoming", run.socketMs),
        ]
        lines += BenchmarkReport.table(rows)
        lines.append("")
        let seconds = run.windowSeconds
        lines.append(
            "burst: \(run.ok) of \(run.calls) calls ringing in \(BenchmarkReport.fixed(seconds)) s "
                + "(\(BenchmarkReport.whole(Double(run.ok * run.calleesPerCall) / seconds)) callees rung/s)"
                + "; last device rang \(run.lastRingMs.map { BenchmarkReport.whole($0) } ?? "-") ms after the first POST"
                + "; CPU: server \(BenchmarkReport.percentOfCores(serverCores)), sandbox \(BenchmarkReport.percentOfCores(sandboxCores))"
                + (run.firstFailure.map { "; first failure: \($0)" } ?? ""))
        lines.append(run.deliveryLine)
        lines.append(
            "answers: \(run.answered) of \(run.calls); devices of the legs they ended told to stop: \(run.stopped) of "
                + "\(run.stopExpected); rings after a leg ended: \(run.rungAfterEnd)")
        lines.append(
            "issue 30's goal (every device once, none after its leg ended, no push queued > "
                + "\(BenchmarkReport.whole(Self.pushQueueGoalMilliseconds)) ms): " + (meetsGoal ? "met" : "NOT met"))
        lines.append(resultLine)
        return lines.joined(separator: "\n")
    }
}
