import Foundation

/// The ringing part's figures and their rendering: one row per level of idle sockets, the steps of each
/// level's rate search, and the final
/// `RESULT ringing idle_sockets=<n> calls_per_s=<n> ratio_vs_no_sockets=<x> p99_ms=<n> rss_per_socket_bytes=<n>`
/// line for the largest level.
public struct RingingReport: Hashable, Sendable {
    /// What one level of idle sockets measured.
    public struct Level: Hashable, Sendable {
        /// Idle sockets open on the server.
        public var idleSockets: Int
        /// The closed-loop probe's calls/s.
        public var probeCallsPerSecond: Double
        /// Server CPU over the probe, cores (1.0 = one core busy).
        public var probeServerCores: Double?
        /// The load generator's CPU over the probe, cores.
        public var probeGeneratorCores: Double?
        /// The highest open-loop rate sustained, calls/s; nil when none of the rates tried was.
        public var sustainedCallsPerSecond: Int?
        /// Every open-loop step of the search: offered rate, whether it was sustained, calls answered per second.
        public var searchSteps: [SearchStep]
        /// The step at ``RingingReport/latencyRate``.
        public var latency: LatencyStep
        /// Server CPU with no calls placed, cores (1.0 = one core busy), over 2 s.
        public var idleServerCores: Double?
        /// The server's resident memory with these sockets open and no call in flight, bytes.
        public var serverRSSBytes: Int?
        /// The server's resident memory added per socket this level added over the one before, bytes.
        public var rssPerSocketBytes: Double?
        /// The kernel's TCP buffer memory (`/proc/net/sockstat` `mem`, system-wide, both ends of each loopback
        /// connection) added per socket this level added, bytes.
        public var kernelBytesPerSocket: Double?
        /// The kernel's TCP slab objects (`TCP` and `sock_inode_cache` in `/proc/slabinfo`, system-wide, both
        /// ends) added per socket this level added, bytes.
        public var kernelSlabBytesPerSocket: Double?
    }

    /// One open-loop step of a rate search.
    public struct SearchStep: Hashable, Sendable {
        /// Offered calls/s.
        public var rate: Int
        /// ``RingingStep/isSustained``.
        public var sustained: Bool
        /// Calls answered 201 per second of the step's window.
        public var callsPerSecond: Double
    }

    /// The step at the fixed latency rate.
    public struct LatencyStep: Hashable, Sendable {
        /// Offered calls/s.
        public var rate: Int
        /// ``RingingStep/isSustained``.
        public var sustained: Bool
        /// Arrivals skipped at the in-flight bound.
        public var skipped: Int
        /// Calls placed that were not answered 201 with a ringing call (an error status, or no answer within 10 s).
        public var failed: Int
        /// POST /v1/calls -> 201, ms.
        public var post: LatencySummary?
        /// POST -> VoIP push accepted by the sandbox, ms.
        public var push: LatencySummary?
        /// POST -> `call.incoming` on the callee's socket, ms.
        public var incoming: LatencySummary?
        /// Server CPU over the step, cores.
        public var serverCores: Double?
        /// The load generator's CPU over the step, cores (it shares the machine's cores with the server).
        public var generatorCores: Double?
    }

    /// The levels, ascending.
    public var levels: [Level]
    /// ``RingingOptions/latencyRate``.
    public var latencyRate: Int
    /// Callers and callees.
    public var pairs: Int
    /// Seconds per step.
    public var stepSeconds: Double
    /// The server's open-file limit.
    public var serverFileLimit: Int
    /// The largest level that limit allowed.
    public var largestIdleSockets: Int
    /// Socket-holder processes used.
    public var holders: Int
    /// Sockets of theirs the server closed while they were held (should be 0).
    public var closedEarly: Int
    /// Cores this machine has.
    public var cores: Int
    /// Its CPU model, if known.
    public var cpuModel: String?
    /// `release` or `debug`: how this code was compiled.
    public var buildMode: String

    /// The largest level's sustained calls/s over the 0-socket level's (0 when either is missing).
    public var ratioVersusNoSockets: Double {
        guard let last = levels.last?.sustainedCallsPerSecond,
            let none = levels.first(where: { $0.idleSockets == 0 })?.sustainedCallsPerSecond, none > 0
        else { return 0 }
        return Double(last) / Double(none)
    }

    /// `RESULT ringing idle_sockets=<n> calls_per_s=<n> ratio_vs_no_sockets=<x> p99_ms=<n> rss_per_socket_bytes=<n>`
    /// for the largest level; p99 is POST -> push accepted at ``latencyRate`` over every call placed (the
    /// request timeout when more than 1 % had no push: a lower bound); calls/s is 0 when no rate was
    /// sustained, RSS 0 when unknown.
    public var resultLine: String {
        let last = levels.last
        return "RESULT ringing idle_sockets=\(last?.idleSockets ?? 0) calls_per_s=\(last?.sustainedCallsPerSecond ?? 0)"
            + " ratio_vs_no_sockets=\(BenchmarkReport.fixed(ratioVersusNoSockets))"
            + " p99_ms=\(BenchmarkReport.whole(last?.latency.push?.p99 ?? 0))"
            + " rss_per_socket_bytes=\(BenchmarkReport.whole(last?.rssPerSocketBytes ?? 0))"
    }

    /// The human-readable report; its last line is ``resultLine``.
    public func render() -> String {
        var lines: [String] = []
        lines.append(
            "Ringing: calls between \(pairs) callers and \(pairs) callees (each with its own /v1/events socket, "
                + "callees with an iPhone whose VoIP token the APNs sandbox knows) while idle sockets of other users "
                + "are open on one `ringer serve` (SQLite, plain HTTP on loopback)")
        lines.append(
            BenchmarkReport.machineLine(
                cores: cores, cpuModel: cpuModel, buildMode: buildMode,
                sharedBy: "the server, the sandbox, the load generator and \(holders) socket holder(s)"))
        lines.append(
            "server open-file limit \(serverFileLimit): at most \(largestIdleSockets) idle sockets; "
                + "sockets closed by the server while held: \(closedEarly)")
        lines.append(
            "calls/s: highest open-loop rate sustained (\(Self.formatSeconds(stepSeconds)) s steps at "
                + "0.9, 0.75, … of a closed-loop probe); latency and CPU at \(latencyRate) calls/s offered, over every "
                + "call placed (>= : calls without an answer in \(BenchmarkReport.whole(RingingLoadProcess.requestTimeoutMilliseconds / 1000)) s, a lower bound)"
        )
        lines.append("")
        let header = [
            "idle sockets", "calls/s", "probe", "POST p50/p99 ms", "push p50/p99 ms", "incoming p50/p99 ms",
            "server CPU at \(latencyRate)/s", "load gen CPU", "probe CPU: server+load gen", "server CPU idle",
            "RSS MiB", "RSS B/socket", "kernel buffers B/socket",
            "kernel slab B/socket",
        ]
        var rows = [header]
        for level in levels {
            let latency = level.latency
            let rate = level.sustainedCallsPerSecond.map(String.init) ?? "none"
            rows.append([
                String(level.idleSockets), rate, BenchmarkReport.whole(level.probeCallsPerSecond),
                BenchmarkReport.latencyPair(latency.post), BenchmarkReport.latencyPair(latency.push),
                BenchmarkReport.latencyPair(latency.incoming),
                BenchmarkReport.percentOfCores(latency.serverCores) + (latency.sustained ? "" : " (not sustained)"),
                BenchmarkReport.percentOfCores(latency.generatorCores),
                "\(BenchmarkReport.percentOfCores(level.probeServerCores))+\(BenchmarkReport.percentOfCores(level.probeGeneratorCores))",
                BenchmarkReport.percentOfCores(level.idleServerCores),
                level.serverRSSBytes.map { BenchmarkReport.fixed(Double($0) / 1_048_576) } ?? "-",
                level.rssPerSocketBytes.map(BenchmarkReport.whole) ?? "-",
                level.kernelBytesPerSocket.map(BenchmarkReport.whole) ?? "-",
                level.kernelSlabBytesPerSocket.map(BenchmarkReport.whole) ?? "-",
            ])
        }
        lines += BenchmarkReport.table(rows)
        lines.append("")
        for level in levels {
            let steps = level.searchSteps.map {
                "\($0.rate) \($0.sustained ? "kept" : "not kept") (\(BenchmarkReport.whole($0.callsPerSecond)))"
            }
            let latency = level.latency
            let losses =
                latency.skipped + latency.failed > 0
                ? "; at \(latency.rate)/s \(latency.skipped) skipped, \(latency.failed) failed" : ""
            lines.append(
                "\(level.idleSockets) idle sockets: probe \(BenchmarkReport.whole(level.probeCallsPerSecond)) calls/s, then "
                    + (steps.isEmpty ? "no open-loop step" : steps.joined(separator: ", ")) + losses)
        }
        lines.append(
            "ratio of calls/s at \(levels.last?.idleSockets ?? 0) idle sockets to 0: "
                + "\(BenchmarkReport.fixed(ratioVersusNoSockets)) (issue 11's goal >= 0.8: \(ratioVersusNoSockets >= 0.8 ? "met" : "NOT met")); "
                + "p99 POST -> push \(BenchmarkReport.whole(levels.last?.latency.push?.p99 ?? 0)) ms (goal < 50)")
        lines.append(resultLine)
        return lines.joined(separator: "\n")
    }

    private static func formatSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
