import Foundation
public import RingerTestKit

/// The figures of one benchmark run and their rendering: a table, the goals of issue 5 (at least 3x
/// aioapns, at least half of h2load), and the final `RESULT …` line.
public struct BenchmarkReport: Hashable, Sendable {
    /// Counts every sender was given.
    public var workload: PushWorkload
    /// Ringer's `APNsClient`.
    public var ringer: SenderFigures
    /// aioapns, the Python library most push servers use.
    public var aioapns: SenderFigures
    /// h2load, the ceiling: the fastest a client can drive this sandbox.
    public var h2load: SenderFigures
    /// Ringer's `APNsClient` over one connection, when ``ringer`` used a pool of more.
    public var ringerOneConnection: SenderFigures?
    /// The sandbox process over the whole run (all three senders).
    public var sandbox: ProcessUsage
    /// Cores this machine has (sender and sandbox share them).
    public var cores: Int
    /// The CPU model, from /proc/cpuinfo, if known.
    public var cpuModel: String?
    /// `release` or `debug`: how this code was compiled.
    public var buildMode: String
    /// Connections in Ringer's pool; aioapns and h2load use one.
    public var ringerConnections = 1
    /// The senders run in interleaved rounds (Ringer and h2load), every round's throughput; empty for one
    /// round. ``ringer``, ``h2load`` and ``ringerOneConnection`` are their median rounds.
    public var rounds: [SenderRounds] = []

    /// Ringer's throughput over aioapns'.
    public var ratioVersusAioapns: Double { Self.ratio(ringer.pushesPerSecond, aioapns.pushesPerSecond) }
    /// Ringer's throughput over h2load's.
    public var ratioVersusH2load: Double { Self.ratio(ringer.pushesPerSecond, h2load.pushesPerSecond) }

    /// The machine-readable last line:
    /// `RESULT pushes_per_s=<n> aioapns_per_s=<n> h2load_per_s=<n> ratio_vs_aioapns=<x> ratio_vs_h2load=<y>`.
    public var resultLine: String {
        "RESULT pushes_per_s=\(Self.whole(ringer.pushesPerSecond)) aioapns_per_s=\(Self.whole(aioapns.pushesPerSecond))"
            + " h2load_per_s=\(Self.whole(h2load.pushesPerSecond))"
            + " ratio_vs_aioapns=\(Self.fixed(ratioVersusAioapns)) ratio_vs_h2load=\(Self.fixed(ratioVersusH2load))"
    }

    /// The human-readable report; its last line is ``resultLine``.
    public func render() -> String {
        var lines: [String] = []
        let pool =
            ringerConnections == 1
            ? "one HTTP/2 connection"
            : "\(ringerConnections) HTTP/2 connections (its pool; RESULT), then one"
        lines.append(
            "VoIP pushes to the APNs sandbox: \(workload.pushes) per sender, \(workload.concurrency) in flight, "
                + "over TLS on loopback; Ringer: \(pool), aioapns and h2load: one connection each")
        lines.append(
            Self.machineLine(
                cores: cores, cpuModel: cpuModel, buildMode: buildMode,
                sharedBy: "the sender and the sandbox (a separate `ringer-lab sandbox` process)"))
        let senders = [ringer, aioapns, h2load] + (ringerOneConnection.map { [$0] } ?? [])
        // The two Ringer runs print the same sender name; the row says which connections each used.
        var labels = senders.map(\.report.sender)
        if ringerConnections > 1 { labels[0] += ", \(ringerConnections) conns" }
        if ringerOneConnection != nil { labels[3] += ", 1 conn" }
        lines.append(
            "sandbox: checks every push as APNs does (ES256 provider token, topic, device token); "
                + "all \(workload.pushes * (senders.count + SenderRounds.extraRuns(rounds))) accepted; \(Self.fixed(sandbox.cpuSeconds)) CPU s in total, "
                + "peak RSS \(sandbox.maxRSSKiB) KiB")
        lines.append("")
        let header = ["sender", "pushes/s", "p50 ms", "p99 ms", "CPU µs/push", "peak RSS KiB", "cores: sender+sandbox"]
        var rows = [header]
        for (label, figures) in zip(labels, senders) {
            rows.append([
                label, Self.whole(figures.pushesPerSecond),
                figures.report.p50Ms.map(Self.fixed) ?? "-", figures.report.p99Ms.map(Self.fixed) ?? "-",
                Self.whole(figures.cpuMicrosecondsPerPush), String(figures.usage.maxRSSKiB),
                "\(Self.fixed(figures.senderCores))+\(figures.sandboxCores.map(Self.fixed) ?? "?")",
            ])
        }
        lines += Self.table(rows)
        lines.append("")
        let roundLines = SenderRounds.render(rounds, unit: "pushes/s")
        if !roundLines.isEmpty { lines += roundLines + [""] }
        lines.append(
            "Ringer / aioapns = \(Self.fixed(ratioVersusAioapns)) (goal >= 3: \(ratioVersusAioapns >= 3 ? "met" : "NOT met"));"
                + " Ringer / h2load = \(Self.fixed(ratioVersusH2load)) (goal >= 0.5: \(ratioVersusH2load >= 0.5 ? "met" : "NOT met"))"
        )
        lines.append(resultLine)
        return lines.joined(separator: "\n")
    }

    /// Left-aligned first column, right-aligned numbers.
    static func table(_ rows: [[String]]) -> [String] {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - row[column].count)
                return column == 0 ? row[column] + padding : padding + row[column]
            }.joined(separator: "  ")
        }
    }

    private static func ratio(_ numerator: Double, _ denominator: Double) -> Double {
        denominator > 0 ? numerator / denominator : 0
    }

    static func whole(_ value: Double) -> String { String(Int(value.rounded())) }

    static func fixed(_ value: Double) -> String { String(format: "%.2f", value) }

    /// `p50/p99` in milliseconds, each `>=` when it is a call without an answer (a lower bound); `-` for none.
    static func latencyPair(_ summary: LatencySummary?) -> String {
        guard let summary else { return "-" }
        return "\(summary.p50IsLowerBound ? ">=" : "")\(fixed(summary.p50))/"
            + "\(summary.p99IsLowerBound ? ">=" : "")\(fixed(summary.p99))"
    }

    /// A report's `machine:` line: the cores and CPU model, what shares them, and how the code was built.
    /// - Parameters:
    ///   - cores: the machine's cores.
    ///   - cpuModel: from /proc/cpuinfo, if known.
    ///   - buildMode: `release` or `debug`.
    ///   - sharedBy: what runs on those cores ("the sender and the sandbox").
    static func machineLine(cores: Int, cpuModel: String?, buildMode: String, sharedBy: String) -> String {
        "machine: \(cores) cores\(cpuModel.map { " (\($0))" } ?? ""), shared by \(sharedBy); \(buildMode) build"
    }

    /// A table row of latencies in milliseconds: `name`, the count, p50, p99 and the maximum; `0` and dashes for none.
    static func latencyRow(_ name: String, _ values: [Double]) -> [String] {
        guard let summary = LatencySummary(values) else { return [name, "0", "-", "-", "-"] }
        return [name, String(summary.count), fixed(summary.p50), fixed(summary.p99), fixed(values.max() ?? 0)]
    }

    /// CPU in cores as a whole percentage of one core (`62%`); `-` when not measured.
    static func percentOfCores(_ cores: Double?) -> String {
        cores.map { "\(whole($0 * 100))%" } ?? "-"
    }
}
