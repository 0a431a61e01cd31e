public import RingerTestKit

/// The figures of the FCM part of a benchmark run and their rendering: a table, the goals of issue 10 (at
/// least 5x firebase-admin's `send_each_async`, at least 0.6 of h2load), and the `RESULT fcm …` line.
public struct FCMBenchmarkReport: Hashable, Sendable {
    /// Counts every sender was given.
    public var workload: PushWorkload
    /// Ringer's `FCMClient` over its pool.
    public var ringer: SenderFigures
    /// firebase-admin's `send_each_async` (HTTP/2): the comparison of the RESULT line.
    public var firebaseAdmin: SenderFigures
    /// firebase-admin's synchronous `send_each` (HTTP/1.1), printed for reference.
    public var firebaseAdminSync: SenderFigures?
    /// h2load, the ceiling: the fastest a client can drive this sandbox.
    public var h2load: SenderFigures
    /// Ringer's `FCMClient` over one connection, when ``ringer`` used a pool of more.
    public var ringerOneConnection: SenderFigures?
    /// The FCM part's sandbox processes (a fresh one per sender): CPU time added up, the largest peak RSS.
    public var sandbox: ProcessUsage
    /// Cores this machine has (sender and sandbox share them).
    public var cores: Int
    /// The CPU model, from /proc/cpuinfo, if known.
    public var cpuModel: String?
    /// `release` or `debug`: how this code was compiled.
    public var buildMode: String
    /// Connections in Ringer's pool.
    public var ringerConnections: Int
    /// The senders run in interleaved rounds (Ringer and h2load), every round's throughput; empty for one
    /// round. ``ringer``, ``h2load`` and ``ringerOneConnection`` are their median rounds.
    public var rounds: [SenderRounds] = []

    /// Creates a report.
    /// - Parameters:
    ///   - workload: counts.
    ///   - ringer: Ringer over its pool.
    ///   - firebaseAdmin: `send_each_async`.
    ///   - firebaseAdminSync: `send_each`, if run.
    ///   - h2load: the ceiling.
    ///   - ringerOneConnection: Ringer over one connection, if run.
    ///   - sandbox: the sandbox's CPU time and peak RSS.
    ///   - cores: this machine's cores.
    ///   - cpuModel: its CPU model, if known.
    ///   - buildMode: `release` or `debug`.
    ///   - ringerConnections: Ringer's pool size.
    public init(
        workload: PushWorkload, ringer: SenderFigures, firebaseAdmin: SenderFigures,
        firebaseAdminSync: SenderFigures?, h2load: SenderFigures, ringerOneConnection: SenderFigures? = nil,
        sandbox: ProcessUsage, cores: Int, cpuModel: String?, buildMode: String, ringerConnections: Int = 1
    ) {
        self.workload = workload
        self.ringer = ringer
        self.firebaseAdmin = firebaseAdmin
        self.firebaseAdminSync = firebaseAdminSync
        self.h2load = h2load
        self.ringerOneConnection = ringerOneConnection
        self.sandbox = sandbox
        self.cores = cores
        self.cpuModel = cpuModel
        self.buildMode = buildMode
        self.ringerConnections = ringerConnections
    }

    /// Ringer's throughput over firebase-admin's `send_each_async`.
    public var ratioVersusFirebaseAdmin: Double { Self.ratio(ringer.pushesPerSecond, firebaseAdmin.pushesPerSecond) }
    /// Ringer's throughput over h2load's.
    public var ratioVersusH2load: Double { Self.ratio(ringer.pushesPerSecond, h2load.pushesPerSecond) }

    /// The machine-readable line: `RESULT fcm messages_per_s=<n> firebase_admin_per_s=<n> h2load_per_s=<n>
    /// ratio_vs_firebase_admin=<x> ratio_vs_h2load=<y>`.
    public var resultLine: String {
        "RESULT fcm messages_per_s=\(BenchmarkReport.whole(ringer.pushesPerSecond))"
            + " firebase_admin_per_s=\(BenchmarkReport.whole(firebaseAdmin.pushesPerSecond))"
            + " h2load_per_s=\(BenchmarkReport.whole(h2load.pushesPerSecond))"
            + " ratio_vs_firebase_admin=\(BenchmarkReport.fixed(ratioVersusFirebaseAdmin))"
            + " ratio_vs_h2load=\(BenchmarkReport.fixed(ratioVersusH2load))"
    }

    /// The human-readable report; its last line is ``resultLine``.
    public func render() -> String {
        var lines: [String] = []
        let pool =
            ringerConnections == 1
            ? "one HTTP/2 connection"
            : "\(ringerConnections) HTTP/2 connections (its pool; RESULT), then one"
        lines.append(
            "FCM ringing messages to the FCM sandbox: \(workload.pushes) per sender, \(workload.concurrency) in flight, "
                + "over TLS on loopback; Ringer: \(pool); firebase-admin send_each_async: HTTP/2 (httpx), "
                + "send_each: HTTP/1.1 (requests, lists of \(workload.concurrency)); h2load: one connection")
        lines.append(
            BenchmarkReport.machineLine(
                cores: cores, cpuModel: cpuModel, buildMode: buildMode,
                sharedBy: "the sender and the sandbox (a separate `ringer-lab sandbox` process)"))
        var senders = [ringer, firebaseAdmin]
        if let firebaseAdminSync { senders.append(firebaseAdminSync) }
        senders.append(h2load)
        if let ringerOneConnection { senders.append(ringerOneConnection) }
        var labels = senders.map(\.report.sender)
        if ringerConnections > 1 { labels[0] += ", \(ringerConnections) conns" }
        if ringerOneConnection != nil { labels[labels.count - 1] += ", 1 conn" }
        lines.append(
            "sandbox: a fresh process per sender; checks every message as FCM does (access token, project, schema, "
                + "data, priority, ttl, registration token); all \(workload.pushes * (senders.count + SenderRounds.extraRuns(rounds))) accepted; "
                + "\(BenchmarkReport.fixed(sandbox.cpuSeconds)) CPU s in total, peak RSS \(sandbox.maxRSSKiB) KiB")
        lines.append("")
        let header = [
            "sender", "messages/s", "p50 ms", "p99 ms", "CPU µs/msg", "peak RSS KiB", "cores: sender+sandbox",
        ]
        var rows = [header]
        for (label, figures) in zip(labels, senders) {
            rows.append([
                label, BenchmarkReport.whole(figures.pushesPerSecond),
                figures.report.p50Ms.map(BenchmarkReport.fixed) ?? "-",
                figures.report.p99Ms.map(BenchmarkReport.fixed) ?? "-",
                BenchmarkReport.whole(figures.cpuMicrosecondsPerPush), String(figures.usage.maxRSSKiB),
                "\(BenchmarkReport.fixed(figures.senderCores))+\(figures.sandboxCores.map(BenchmarkReport.fixed) ?? "?")",
            ])
        }
        lines += BenchmarkReport.table(rows)
        lines.append("")
        let roundLines = SenderRounds.render(rounds, unit: "messages/s")
        if !roundLines.isEmpty { lines += roundLines + [""] }
        if let firebaseAdminSync {
            lines.append(
                "Ringer / firebase-admin send_each (sync) = "
                    + BenchmarkReport.fixed(Self.ratio(ringer.pushesPerSecond, firebaseAdminSync.pushesPerSecond)))
        }
        lines.append(
            "Ringer / firebase-admin send_each_async = \(BenchmarkReport.fixed(ratioVersusFirebaseAdmin))"
                + " (goal >= 5: \(ratioVersusFirebaseAdmin >= 5 ? "met" : "NOT met"));"
                + " Ringer / h2load = \(BenchmarkReport.fixed(ratioVersusH2load))"
                + " (goal >= 0.6: \(ratioVersusH2load >= 0.6 ? "met" : "NOT met"))")
        lines.append(resultLine)
        return lines.joined(separator: "\n")
    }

    private static func ratio(_ numerator: Double, _ denominator: Double) -> Double {
        denominator > 0 ? numerator / denominator : 0
    }
}
