import Foundation
import Testing

@testable import RingerBench

/// The cluster part's pure pieces: the load generator's duplicate count, the push accounting, PostgreSQL's
/// process-tree CPU from /proc stat lines, the set-ups, the flags, CPU per call, and the report's RESULT line.
struct ClusterBenchTests {
    static func result(
        ok: Int, missingPush: Int = 0, duplicatePush: Int? = 0, pushMs: [Double] = []
    ) -> RingingStep.Result {
        .init(
            windowStart: 10, windowEnd: 13, offered: ok, skipped: 0, ok: ok, firstFailure: nil, postMs: pushMs,
            incomingMs: pushMs, pushMs: pushMs, missingIncoming: 0, missingPush: missingPush,
            duplicatePush: duplicatePush)
    }

    // MARK: the load generator's answer

    @Test func decodesTheDuplicatePushCountAndAnAnswerWithoutOne() throws {
        let with =
            #"{"kind": "open", "rate": 100, "concurrency": null, "window_start": 1, "window_end": 4, "offered": 300, "started": 300, "skipped": 0, "ok": 300, "first_failure": null, "post_ms": [], "incoming_ms": [], "push_ms": [], "missing_incoming": 0, "missing_push": 2, "duplicate_push": 3}"#
        let decoded = try RingingStep.Result.decode(line: with)
        #expect(decoded.missingPush == 2 && decoded.duplicatePush == 3)
        let without = with.replacingOccurrences(of: #", "duplicate_push": 3"#, with: "")
        #expect(try RingingStep.Result.decode(line: without).duplicatePush == nil)
    }

    // MARK: push accounting

    @Test func pushAccountingSumsEveryStepAndIsExactOnlyWithNoneMissingOrDuplicate() {
        var pushes = PushAccounting()
        #expect(pushes.isExact && pushes.calls == 0)
        pushes.add(Self.result(ok: 1000))
        pushes.add(Self.result(ok: 300))
        #expect(pushes.calls == 1300 && pushes.missing == 0 && pushes.duplicate == 0 && pushes.isExact)
        pushes.add(Self.result(ok: 200, missingPush: 4))
        #expect(pushes.missing == 4 && !pushes.isExact)
        var twice = PushAccounting()
        twice.add(Self.result(ok: 50, duplicatePush: 2))
        #expect(twice.duplicate == 2 && !twice.isExact)
        var uncounted = PushAccounting()
        uncounted.add(Self.result(ok: 50, duplicatePush: nil))
        #expect(!uncounted.duplicatesCounted && !uncounted.isExact, "duplicates not counted are not known to be none")
    }

    @Test func theReportSumsPushesOverSetUpsAndSaysWhenACallWasNotPushedExactlyOnce() {
        var report = Self.report()
        #expect(report.pushes.calls == 4 * 1300 && report.pushes.isExact)
        #expect(report.render().contains("every call exactly one VoIP push"))
        report.setups[2].pushes.duplicate = 1
        #expect(report.pushes.duplicate == 1 && !report.pushes.isExact)
        #expect(report.render().contains("NOT exactly one push per call"))
    }

    // MARK: PostgreSQL's CPU

    @Test func processTreeCPUIsTheParentItsReapedChildrenAndItsLiveChildren() throws {
        // Fields after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
        let postmaster = "700 (postgres) S 1 700 700 0 -1 4194560 100 0 0 0 50 25 300 100 20 0 1 0 5 0 0"
        let backend =
            "701 (postgres: postgres ringer 127.0.0.1(5000) idle) S 700 700 700 0 -1 4194560 10 0 0 0 40 10 0 0 20 0 1 0 6"
        let other = "702 (ringer) S 1 702 702 0 -1 4194560 10 0 0 0 999 999 0 0 20 0 1 0 6"
        let seconds = try #require(
            ProcessTreeCPU.seconds(
                parent: postmaster, pid: 700, others: [backend, other, "garbage"],
                ticksPerSecond: 100))
        #expect(abs(seconds - (50 + 25 + 300 + 100 + 40 + 10) / 100.0) < 1e-9)
        #expect(ProcessTreeCPU.stat(backend) == .init(parent: 700, ownTicks: 50, childTicks: 0))
        #expect(ProcessTreeCPU.seconds(parent: "no parenthesis", pid: 700, others: [], ticksPerSecond: 100) == nil)
        #expect(ProcessTreeCPU.seconds(parent: postmaster, pid: 700, others: [], ticksPerSecond: 0) == nil)
    }

    @Test func processTreeCPUReadsThisProcessFromProc() throws {
        let own = try #require(ProcessTreeCPU.secondsSoFar(pid: getpid()))
        #expect(own >= 0)
        #expect(ProcessTreeCPU.secondsSoFar(pid: -1) == nil)
    }

    // MARK: set-ups and flags

    @Test func theFourSetUpsAreSQLitePostgresThenTwoAndThreeNodesWithRedis() {
        #expect(ClusterSetup.allCases.map(\.key) == ["sqlite_1", "postgres_1", "postgres_redis_2", "postgres_redis_3"])
        #expect(ClusterSetup.allCases.map(\.nodes) == [1, 1, 2, 3])
        #expect(ClusterSetup.allCases.map(\.usesPostgres) == [false, true, true, true])
        #expect(ClusterSetup.allCases.map(\.usesRedis) == [false, false, true, true])
        #expect(ClusterSetup.postgresRedis3.label == "3 nodes, PostgreSQL + Redis")
        #expect(ClusterSetup.sqlite1.label == "1 node, SQLite")
    }

    @Test func clusterFlagsHaveDefaultsAndRejectBadValues() throws {
        let defaults = try ClusterOptions(flags: [:])
        #expect(defaults == ClusterOptions())
        #expect(defaults.pairs == 100 && defaults.stepSeconds == 3 && defaults.latencyRate == 100)
        #expect(defaults.loadScript == "Tests/Peers/bench_ringing.py")
        let set = try ClusterOptions(flags: [
            "cluster-pairs": "20", "cluster-step-seconds": "1.5", "cluster-rate": "50",
            "ringing-script": "/tmp/load.py",
        ])
        #expect(set.pairs == 20 && set.stepSeconds == 1.5 && set.latencyRate == 50 && set.loadScript == "/tmp/load.py")
        for (name, value) in [
            ("cluster-pairs", "0"), ("cluster-pairs", "many"), ("cluster-rate", "0"),
            ("cluster-step-seconds", "0.1"), ("cluster-step-seconds", "x"),
        ] {
            #expect(throws: BenchmarkError.self, "--\(name) \(value)") { try ClusterOptions(flags: [name: value]) }
        }
    }

    // MARK: report

    static func load(rate: Int, p99: Double = 12) -> ClusterReport.Load {
        var push = LatencySummary([1, 2, 3])
        push?.p99 = p99
        return .init(
            rate: rate, sustained: true, callsPerSecond: Double(rate), post: LatencySummary([1, 2]), push: push,
            serverCores: 0.5, postgresCores: 0.25, redisCores: nil, generatorCores: 0.1)
    }

    static func report() -> ClusterReport {
        let rates = [800, 500, 300, nil]
        let setups = zip(ClusterSetup.allCases, rates).map { setup, rate in
            var pushes = PushAccounting()
            pushes.add(result(ok: 1300))
            return ClusterReport.Figures(
                setup: setup, probeCallsPerSecond: 900, sustainedCallsPerSecond: rate,
                searchSteps: [.init(rate: 810, sustained: false, callsPerSecond: 700)],
                atSustained: rate.map { load(rate: $0) },
                atLatencyRate: load(rate: 100, p99: setup == .postgresRedis3 ? 41.6 : 9),
                pushes: pushes)
        }
        return ClusterReport(
            setups: setups, latencyRate: 100, pairs: 100, stepSeconds: 3, cores: 2, cpuModel: nil,
            buildMode: "release")
    }

    @Test func theResultLineHasEverySetUpsRateAndThreeNodesP99() {
        let report = Self.report()
        #expect(
            report.resultLine == "RESULT cluster sqlite_1_calls_per_s=800 postgres_1_calls_per_s=500 "
                + "postgres_redis_2_calls_per_s=300 postgres_redis_3_calls_per_s=0 p99_ms_postgres_redis_3=42")
        #expect(report.render().hasSuffix("\n" + report.resultLine))
        let empty = ClusterReport(
            setups: [], latencyRate: 100, pairs: 1, stepSeconds: 1, cores: 2, cpuModel: nil, buildMode: "debug")
        #expect(
            empty.resultLine == "RESULT cluster sqlite_1_calls_per_s=0 postgres_1_calls_per_s=0 "
                + "postgres_redis_2_calls_per_s=0 postgres_redis_3_calls_per_s=0 p99_ms_postgres_redis_3=0")
    }

    @Test func cpuPerCallIsCoresOverCallsPerSecondInMilliseconds() throws {
        let load = Self.load(rate: 250)
        #expect(try #require(load.millisecondsPerCall(load.serverCores)) == 2)
        #expect(load.millisecondsPerCall(load.redisCores) == nil)
        var idle = load
        idle.callsPerSecond = 0
        #expect(idle.millisecondsPerCall(0.5) == nil)
    }
}

/// The store's and Redis's counters per call.
struct StoreCountersTests {
    @Test func readsPsqlsRowOfTheNextTransactionIDAndWALBytes() throws {
        let read = try #require(StoreCounters.parsePostgres("1523|48213320\n"))
        #expect(read.writeTransactions == 1523 && read.walBytes == 48_213_320)
        #expect(StoreCounters.parsePostgres("") == nil)
        #expect(StoreCounters.parsePostgres("1523") == nil)
        #expect(StoreCounters.parsePostgres("1523|311|5") == nil)
        #expect(StoreCounters.parsePostgres("a|b") == nil)
    }

    @Test func readsRedisTotalCommandsProcessedFromInfoStats() {
        let info =
            "# Stats\r\ntotal_connections_received:12\r\ntotal_commands_processed:98765\r\ninstantaneous_ops_per_sec:3\r\n"
        #expect(StoreCounters.parseRedisCommands(info: info) == 98765)
        #expect(StoreCounters.parseRedisCommands(info: "# Stats\r\ntotal_connections_received:12\r\n") == nil)
    }

    @Test func perCallIsEachCountersGrowthOverTheCallsAndNilWhereUnknown() {
        let before = StoreCounters(writeTransactions: 100, walBytes: 1000, redisCommands: nil)
        let after = StoreCounters(writeTransactions: 400, walBytes: 301_000, redisCommands: 500)
        let perCall = StoreCounters.perCall(from: before, to: after, calls: 100)
        #expect(perCall.writeTransactions == 3 && perCall.walBytes == 3000)
        #expect(perCall.redisCommands == nil, "a counter missing at one end")
        #expect(StoreCounters.perCall(from: before, to: after, calls: 0) == StoreCounters.PerCall())
    }

    @Test func theIdleBackgroundOverTheStepsSecondsIsSubtractedBeforeDividing() throws {
        let idleStart = StoreCounters(time: 50, writeTransactions: 1000, walBytes: 0, redisCommands: 10)
        let idleEnd = StoreCounters(time: 52, writeTransactions: 1040, walBytes: 2000, redisCommands: 16)
        let idle = StoreCounters.perSecond(from: idleStart, to: idleEnd)
        #expect(idle.writeTransactions == 20 && idle.walBytes == 1000 && idle.redisCommands == 3)
        // 4 s around a step of 300 calls: 80 of the 980 transactions are the background's.
        let before = StoreCounters(time: 10, writeTransactions: 20, walBytes: 0, redisCommands: 0)
        let after = StoreCounters(time: 14, writeTransactions: 1000, walBytes: 904_000, redisCommands: 912)
        let perCall = StoreCounters.perCall(from: before, to: after, calls: 300, idle: idle)
        #expect(perCall.writeTransactions == 3 && perCall.walBytes == 3000 && perCall.redisCommands == 3)
        #expect(StoreCounters.perSecond(from: before, to: before) == StoreCounters.PerCall(), "no time passed")
    }
}
