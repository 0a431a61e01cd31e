import Foundation

/// The cluster part's figures and their rendering: a table per set-up (1 node on SQLite, 1 on PostgreSQL, 2 and
/// 3 on PostgreSQL + Redis), a summary table, and the final
/// `RESULT cluster sqlite_1_calls_per_s=<n> postgres_1_calls_per_s=<n> postgres_redis_2_calls_per_s=<n>
/// postgres_redis_3_calls_per_s=<n> p99_ms_postgres_redis_3=<n>` line.
public struct ClusterReport: Hashable, Sendable {
    /// One open-loop step's load and what it cost.
    public struct Load: Hashable, Sendable {
        /// Offered calls/s.
        public var rate: Int
        /// ``RingingStep/isSustained``.
        public var sustained: Bool
        /// Calls answered 201 per second of the step's window.
        public var callsPerSecond: Double
        /// POST /v1/calls -> 201, ms, over every call placed.
        public var post: LatencySummary?
        /// POST -> VoIP push accepted by the sandbox, ms, over every call placed.
        public var push: LatencySummary?
        /// CPU of every node, summed, cores (1.0 = one core busy).
        public var serverCores: Double?
        /// CPU of the postmaster and its backends, cores; nil on SQLite.
        public var postgresCores: Double?
        /// CPU of redis-server, cores; nil without Redis.
        public var redisCores: Double?
        /// The load generator's CPU, cores (it shares the machine's cores).
        public var generatorCores: Double?
        /// The APNs sandbox's CPU, cores.
        public var sandboxCores: Double?
        /// PostgreSQL write transactions and WAL bytes, and Redis commands, per call answered.
        public var store = StoreCounters.PerCall()

        /// CPU ms per call answered of `cores` (nil when unknown or no call was answered).
        public func millisecondsPerCall(_ cores: Double?) -> Double? {
            guard let cores, callsPerSecond > 0 else { return nil }
            return cores / callsPerSecond * 1000
        }
    }

    /// What one set-up measured.
    public struct Figures: Hashable, Sendable {
        /// Which set-up.
        public var setup: ClusterSetup
        /// The closed-loop probe's calls/s.
        public var probeCallsPerSecond: Double
        /// The highest open-loop rate sustained, calls/s; nil when none was.
        public var sustainedCallsPerSecond: Int?
        /// Every open-loop step of the search.
        public var searchSteps: [RingingReport.SearchStep]
        /// The sustained step; nil when none was.
        public var atSustained: Load?
        /// The step at ``ClusterReport/latencyRate``.
        public var atLatencyRate: Load?
        /// Pushes per call over every step of the set-up.
        public var pushes: PushAccounting
        /// The store's and Redis's counters per second with no call placed (subtracted from the per-call figures).
        public var idlePerSecond: StoreCounters.PerCall?
    }

    /// The set-ups, in the order run.
    public var setups: [Figures]
    /// ``ClusterOptions/latencyRate``.
    public var latencyRate: Int
    /// Callers and callees.
    public var pairs: Int
    /// Seconds per step.
    public var stepSeconds: Double
    /// Cores this machine has.
    public var cores: Int
    /// Its CPU model, if known.
    public var cpuModel: String?
    /// `release` or `debug`.
    public var buildMode: String

    /// The `RESULT cluster …` line: each set-up's sustained calls/s (0 when none was sustained or the set-up
    /// did not run), and the p99 POST -> push at ``latencyRate`` of 3 nodes on PostgreSQL + Redis (over every
    /// call placed; the request timeout when more than 1 % had no push).
    public var resultLine: String {
        func figures(_ setup: ClusterSetup) -> Figures? { setups.first { $0.setup == setup } }
        let rates = ClusterSetup.allCases.map { "\($0.key)_calls_per_s=\(figures($0)?.sustainedCallsPerSecond ?? 0)" }
        let p99 = figures(.postgresRedis3)?.atLatencyRate?.push?.p99 ?? 0
        return "RESULT cluster " + rates.joined(separator: " ")
            + " p99_ms_postgres_redis_3=\(BenchmarkReport.whole(p99))"
    }

    /// Every set-up's pushes, summed.
    public var pushes: PushAccounting {
        setups.reduce(into: PushAccounting()) { total, figures in
            total.calls += figures.pushes.calls
            total.missing += figures.pushes.missing
            total.duplicate += figures.pushes.duplicate
            total.duplicatesCounted = total.duplicatesCounted && figures.pushes.duplicatesCounted
        }
    }

    /// The human-readable report; its last line is ``resultLine``.
    public func render() -> String {
        var lines: [String] = []
        lines.append(
            "Cluster: calls between \(pairs) callers and \(pairs) callees (caller i on node i mod N, callee on node "
                + "i+1 mod N, so with N > 1 every call crosses nodes) on 1 to 3 `ringer serve` nodes sharing one store, "
                + "every node pushing to one APNs sandbox")
        lines.append(
            BenchmarkReport.machineLine(
                cores: cores, cpuModel: cpuModel, buildMode: buildMode,
                sharedBy: "every node, PostgreSQL, Redis, the sandbox and the load generator")
                + "; PostgreSQL with fsync and synchronous_commit on")
        lines.append(
            "calls/s: highest open-loop rate sustained (\(BenchmarkReport.fixed(stepSeconds)) s steps at 0.9, 0.75, … "
                + "of a closed-loop probe); latency over every call placed (>= : a lower bound, calls without a push)")
        for figures in setups {
            lines.append("")
            lines.append("\(figures.setup.label) (\(figures.setup.key))")
            var rows = [
                [
                    "", "calls/s", "POST p50/p99 ms", "push p50/p99 ms", "CPU servers", "postgres", "redis", "sandbox",
                    "load gen", "CPU ms/call servers", "postgres", "redis", "write txns/call", "WAL B/call",
                    "redis cmds/call",
                ]
            ]
            for (title, load) in [("sustained", figures.atSustained), ("at \(latencyRate)/s", figures.atLatencyRate)] {
                guard let load else {
                    rows.append([title, "none"] + Array(repeating: "-", count: 13))
                    continue
                }
                rows.append([
                    title, "\(load.rate)" + (load.sustained ? "" : " (not sustained)"),
                    BenchmarkReport.latencyPair(load.post),
                    BenchmarkReport.latencyPair(load.push), BenchmarkReport.percentOfCores(load.serverCores),
                    BenchmarkReport.percentOfCores(load.postgresCores),
                    BenchmarkReport.percentOfCores(load.redisCores), BenchmarkReport.percentOfCores(load.sandboxCores),
                    BenchmarkReport.percentOfCores(load.generatorCores),
                    Self.milliseconds(load.millisecondsPerCall(load.serverCores)),
                    Self.milliseconds(load.millisecondsPerCall(load.postgresCores)),
                    Self.milliseconds(load.millisecondsPerCall(load.redisCores)),
                    Self.milliseconds(load.store.writeTransactions),
                    load.store.walBytes.map(BenchmarkReport.whole) ?? "-", Self.milliseconds(load.store.redisCommands),
                ])
            }
            lines += BenchmarkReport.table(rows).map { "  " + $0 }
            let steps = figures.searchSteps.map {
                "\($0.rate) \($0.sustained ? "kept" : "not kept") (\(BenchmarkReport.whole($0.callsPerSecond)))"
            }
            lines.append(
                "  search: probe \(BenchmarkReport.whole(figures.probeCallsPerSecond)) calls/s, then "
                    + (steps.isEmpty ? "no open-loop step" : steps.joined(separator: ", ")))
            if let idle = figures.idlePerSecond {
                lines.append(
                    "  idle background per second (subtracted from the per-call figures): "
                        + "\(Self.milliseconds(idle.writeTransactions)) write transactions, "
                        + "\(idle.walBytes.map(BenchmarkReport.whole) ?? "-") WAL bytes, \(Self.milliseconds(idle.redisCommands)) redis commands"
                )
            }
            lines.append("  pushes: " + Self.accounting(figures.pushes))
        }
        lines.append("")
        var summary = [
            [
                "set-up", "calls/s", "push p50/p99 ms at \(latencyRate)/s", "server CPU ms/call at \(latencyRate)/s",
                "postgres CPU ms/call", "write txns/call", "WAL B/call", "redis cmds/call", "missing pushes",
                "duplicate pushes",
            ]
        ]
        for figures in setups {
            let load = figures.atLatencyRate
            summary.append([
                figures.setup.key, figures.sustainedCallsPerSecond.map(String.init) ?? "none",
                BenchmarkReport.latencyPair(load?.push),
                Self.milliseconds(load?.millisecondsPerCall(load?.serverCores)),
                Self.milliseconds(load?.millisecondsPerCall(load?.postgresCores)),
                Self.milliseconds(load?.store.writeTransactions),
                load?.store.walBytes.map(BenchmarkReport.whole) ?? "-",
                Self.milliseconds(load?.store.redisCommands), String(figures.pushes.missing),
                String(figures.pushes.duplicate),
            ])
        }
        lines += BenchmarkReport.table(summary)
        lines.append("pushes over every set-up: " + Self.accounting(pushes))
        lines.append(resultLine)
        return lines.joined(separator: "\n")
    }

    /// `N calls placed, M missing, D duplicate (every call exactly one push)`.
    static func accounting(_ pushes: PushAccounting) -> String {
        "\(pushes.calls) calls placed, \(pushes.missing) without a push, \(pushes.duplicate) duplicate push(es)"
            + (pushes.duplicatesCounted ? "" : " (duplicates not counted by this load generator)")
            + (pushes.isExact ? ": every call exactly one VoIP push" : ": NOT exactly one push per call")
    }

    private static func milliseconds(_ value: Double?) -> String {
        value.map { BenchmarkReport.fixed($0) } ?? "-"
    }
}
