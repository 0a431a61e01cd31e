import Foundation

/// The fan-out part's figures and their rendering, ending with
/// `RESULT fanout calls=<n> devices_per_call=<n> reached=<n> lost=<n> duplicates=<n> push_queue_p99_ms=<n> push_queue_max_ms=<n>`.
///
/// Issue 11's goal: a burst of 1,000 calls, each to a user with ten devices, reaches every device once, and no
/// push waits more than 1 s from the server's decision to ring (the call's `created_at`) to the provider's
/// receipt.
public struct FanOutReport: Hashable, Sendable {
    /// What the load generator measured.
    var run: FanOutRun
    /// Server CPU over the burst (first POST to last answer), cores (1.0 = one core busy).
    public var serverCores: Double?
    /// The sandbox's CPU over the same window, cores.
    public var sandboxCores: Double?
    /// The load generator's main process (its sockets and sandbox polls, not the placer processes) over the same
    /// window, cores (at most 1.0).
    public var generatorCores: Double?
    /// Cores this machine has.
    public var cores: Int
    /// Its CPU model, if known.
    public var cpuModel: String?
    /// `release` or `debug`: how this code was compiled.
    public var buildMode: String

    /// The longest a push may wait, server decision -> provider receipt, ms.
    public static let pushQueueGoalMilliseconds = 1000.0

    /// Calls placed.
    public var calls: Int { run.calls }
    /// Devices that never rang.
    public var lost: Int { run.lost }
    /// Extra rings of one device for one call, plus rings for another user's call.
    public var misdelivered: Int { run.misdelivered }
    /// The slowest push, decision -> provider receipt, ms; nil when none arrived.
    public var pushQueueMax: Double? { run.pushQueueMs.max() }

    /// True when every device rang once, nothing went astray, and no push waited past the goal.
    public var meetsGoal: Bool {
        lost == 0 && misdelivered == 0 && run.ok == run.calls
            && (pushQueueMax ?? .infinity) <= Self.pushQueueGoalMilliseconds
    }

    /// The `RESULT fanout …` line.
    public var resultLine: String {
        "RESULT fanout calls=\(run.calls) devices_per_call=\(run.devicesPerCall) reached=\(run.reached) lost=\(run.lost)"
            + " duplicates=\(misdelivered)"
            + " push_queue_p99_ms=\(BenchmarkReport.whole(LatencySummary(run.pushQueueMs)?.p99 ?? 0))"
            + " push_queue_max_ms=\(BenchmarkReport.whole(pushQueueMax ?? 0))"
    }

    /// The human-readable report; its last line is ``resultLine``.
    public func render() -> String {
        var lines: [String] = []
        lines.append(
            "Fan-out: one burst of \(run.calls) calls, each to its own callee with \(run.devicesPerCall) devices "
                + "(4 iPhones reached by VoIP push, 3 Android phones by FCM, 3 apps holding /v1/events), on one "
                + "`ringer serve` (SQLite, plain HTTP on loopback) sending to one `ringer-lab sandbox`")
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
            BenchmarkReport.latencyRow("POST -> push received", run.pushMs),
            BenchmarkReport.latencyRow("decided -> call.incoming", run.socketMs),
        ]
        lines += BenchmarkReport.table(rows)
        lines.append("")
        let seconds = run.windowSeconds
        lines.append(
            "burst: \(run.ok) of \(run.calls) calls ringing in \(BenchmarkReport.fixed(seconds)) s "
                + "(\(BenchmarkReport.whole(Double(run.ok) / seconds)) calls/s, \(BenchmarkReport.whole(Double(run.apnsPushes + run.fcmMessages) / seconds)) pushes/s)"
                + "; last device rang \(run.lastRingMs.map { BenchmarkReport.whole($0) } ?? "-") ms after the first POST"
                + "; CPU: server \(BenchmarkReport.percentOfCores(serverCores)), sandbox \(BenchmarkReport.percentOfCores(sandboxCores)), "
                + "load generator's main process \(BenchmarkReport.percentOfCores(generatorCores))"
                + (run.firstFailure.map { "; first failure: \($0)" } ?? ""))
        lines.append(run.deliveryLine)
        lines.append(
            "issue 11's goal (every device once, no push queued > \(BenchmarkReport.whole(Self.pushQueueGoalMilliseconds)) ms): "
                + (meetsGoal ? "met" : "NOT met"))
        lines.append(resultLine)
        return lines.joined(separator: "\n")
    }
}
