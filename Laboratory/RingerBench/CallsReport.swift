import Foundation

/// The calls part's figures and their rendering, ending with
/// `RESULT calls cpu_us_per_call_200=<n> cpu_us_per_call_500=<n> closed_loop_per_s=<n> peer_closed_loop_per_s=<n>
/// ratio_vs_peer=<n>`.
///
/// Issue 33's goals: at most 300 µs of server CPU per call at 500 calls/s, and at least four times the peer's
/// closed-loop rate.
public struct CallsReport: Hashable, Sendable {
    /// One server's figures under the same load.
    public struct Target: Hashable, Sendable {
        /// What it is, for the report.
        public var name: String
        /// The open-loop steps, by offered rate.
        var openSteps: [Int: CallsLoad.Step] = [:]
        /// Server CPU per call answered 201 in each open-loop step, µs, by offered rate.
        public var cpuMicrosecondsPerCall: [Int: Double] = [:]
        /// The closed-loop step.
        var closedStep: CallsLoad.Step?
        /// Server CPU in the closed loop, cores.
        public var closedCores: Double?
        /// The load generator's CPU in the closed loop (`ringer-lab bench` itself), cores.
        public var closedGeneratorCores: Double?
        /// The APNs sandbox's CPU in the closed loop, cores.
        public var closedSandboxCores: Double?
        /// Server CPU per call in the closed loop, µs.
        public var closedCPUMicrosecondsPerCall: Double?
        /// Calls answered 201 over every step.
        public var calls = 0
        /// VoIP pushes the sandbox accepted while this server ran.
        public var pushes = 0
        /// The server's peak RSS, KiB.
        public var maxRSSKiB: Int?
    }

    /// Ringer.
    public var ringer: Target
    /// The peer gateway.
    public var peer: Target
    /// The offered open-loop rates, calls/s.
    public var rates: [Int]
    /// Calls in flight in the closed loop.
    public var concurrency: Int
    /// Seconds per step.
    public var stepSeconds: Double
    /// Callers (and callees).
    public var pairs: Int
    /// Cores this machine has.
    public var cores: Int
    /// Its CPU model, if known.
    public var cpuModel: String?
    /// `release` or `debug`: how this code was compiled.
    public var buildMode: String

    /// The most server CPU a call may cost at 500 calls/s, µs.
    public static let cpuGoalMicroseconds = 300.0
    /// Ringer's closed-loop rate over the peer's, at least.
    public static let ratioGoal = 4.0

    /// Ringer's closed-loop rate over the peer's; nil when either is missing.
    public var ratioVsPeer: Double? {
        guard let ours = ringer.closedStep?.callsPerSecond, let theirs = peer.closedStep?.callsPerSecond, theirs > 0
        else { return nil }
        return ours / theirs
    }

    /// True when both goals are met and every call of either server reached the sandbox once.
    public var meetsGoal: Bool {
        (ringer.cpuMicrosecondsPerCall[500] ?? .infinity) <= Self.cpuGoalMicroseconds
            && (ratioVsPeer ?? 0) >= Self.ratioGoal && ringer.pushes == ringer.calls && peer.pushes == peer.calls
    }

    /// The `RESULT calls …` line.
    public var resultLine: String {
        func figure(_ value: Double?) -> String { value.map { BenchmarkReport.whole($0) } ?? "0" }
        return "RESULT calls cpu_us_per_call_200=\(figure(ringer.cpuMicrosecondsPerCall[200]))"
            + " cpu_us_per_call_500=\(figure(ringer.cpuMicrosecondsPerCall[500]))"
            + " closed_loop_per_s=\(figure(ringer.closedStep?.callsPerSecond))"
            + " peer_closed_loop_per_s=\(figure(peer.closedStep?.callsPerSecond))"
            + " ratio_vs_peer=\(ratioVsPeer.map { BenchmarkReport.fixed($0) } ?? "0")"
    }

    /// The human-readable report; its last line is ``resultLine``.
    public func render() -> String {
        var lines: [String] = []
        lines.append(
            "Calls: POST /v1/calls from \(pairs) callers to \(pairs) callees with one iPhone each (no socket open), "
                + "each call one VoIP push to one `ringer-lab sandbox`; open loops at "
                + rates.map(String.init).joined(separator: " and ")
                + " calls/s and a closed loop of \(concurrency) in flight, \(BenchmarkReport.fixed(stepSeconds)) s "
                + "each, from one libcurl load generator; `ringer serve` (SQLite, rate limits off) beside "
                + "Tests/Peers/bench_gateway.py (aiohttp + aioapns + sqlite3)")
        lines.append(
            BenchmarkReport.machineLine(
                cores: cores, cpuModel: cpuModel, buildMode: buildMode,
                sharedBy: "the server, the sandbox and the load generator"))
        lines.append("")
        var rows = [["", "calls", "calls/s", "server CPU µs/call", "first failure"]]
        for target in [ringer, peer] {
            for rate in rates {
                guard let step = target.openSteps[rate] else { continue }
                rows.append([
                    "\(target.name), open \(rate)/s", String(step.ok), BenchmarkReport.whole(step.callsPerSecond),
                    target.cpuMicrosecondsPerCall[rate].map { BenchmarkReport.whole($0) } ?? "-",
                    step.firstFailure ?? "-",
                ])
            }
            if let step = target.closedStep {
                rows.append([
                    "\(target.name), closed \(concurrency)", String(step.ok),
                    BenchmarkReport.whole(step.callsPerSecond),
                    target.closedCPUMicrosecondsPerCall.map { BenchmarkReport.whole($0) } ?? "-",
                    step.firstFailure ?? "-",
                ])
            }
        }
        lines += BenchmarkReport.table(rows)
        lines.append("")
        for target in [ringer, peer] {
            lines.append(
                "\(target.name): \(target.calls) calls answered 201, \(target.pushes) VoIP pushes accepted by the "
                    + "sandbox" + (target.maxRSSKiB.map { "; peak RSS \($0 / 1024) MiB" } ?? "")
                    + "; closed loop: server \(BenchmarkReport.percentOfCores(target.closedCores)), load generator "
                    + BenchmarkReport.percentOfCores(target.closedGeneratorCores) + ", sandbox "
                    + BenchmarkReport.percentOfCores(target.closedSandboxCores))
        }
        lines.append(
            "issue 33's goals (at most \(BenchmarkReport.whole(Self.cpuGoalMicroseconds)) µs of server CPU per call "
                + "at 500/s, at least \(BenchmarkReport.whole(Self.ratioGoal))x the peer's closed loop, every call "
                + "one push): " + (meetsGoal ? "met" : "NOT met"))
        lines.append(resultLine)
        return lines.joined(separator: "\n")
    }
}
