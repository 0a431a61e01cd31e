import Foundation
import Testing

@testable import RingerBench

/// The ringing part's pure pieces: what it reads from /proc, the socket-holder arithmetic, the rate search,
/// the load generator's answers, the report and its RESULT line, and the flags.
struct RingingBenchTests {
    // MARK: /proc

    @Test func readsTheSoftOpenFileLimit() {
        let limits = """
            Limit                     Soft Limit           Hard Limit           Units
            Max cpu time              unlimited            unlimited            seconds
            Max open files            20000                40000                files
            Max locked memory         8388608              8388608              bytes
            """
        #expect(ProcFiles.openFileLimit(limits: limits) == 20000)
        #expect(
            ProcFiles.openFileLimit(limits: "Max open files            unlimited            unlimited            files")
                == nil)
        #expect(ProcFiles.openFileLimit(limits: "") == nil)
    }

    @Test func readsResidentMemoryInBytes() {
        #expect(
            ProcFiles.residentBytes(
                status: "Name:\tringer\nVmHWM:\t   50000 kB\nVmRSS:\t   39520 kB\nRssAnon:\t 1 kB\n")
                == 39520 * 1024)
        #expect(ProcFiles.residentBytes(status: "Name:\tringer\n") == nil)
    }

    @Test func readsTheKernelsTCPLineOfSockstat() {
        let sockstat = "sockets: used 52\nTCP: inuse 3 orphan 0 tw 442 alloc 3 mem 54\nUDP: inuse 2 mem 0\n"
        #expect(ProcFiles.tcpSockets(sockstat: sockstat) == .init(inUse: 3, memoryPages: 54))
        #expect(ProcFiles.tcpSockets(sockstat: "sockets: used 52\nTCP: inuse 3\n") == nil)
    }

    @Test func sumsTheTCPSlabCachesOnly() {
        let slabinfo = """
            slabinfo - version: 2.1
            # name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>
            TCPv6                 26     26   2432   13    8 : tunables    0    0    0 : slabdata      2      2      0
            TCP                  100    112   2304   14    8 : tunables    0    0    0 : slabdata      8      8      0
            sock_inode_cache     200    220    704   23    4 : tunables    0    0    0 : slabdata     10     10      0
            dentry              9000   9000    192   21    1 : tunables    0    0    0 : slabdata    430    430      0
            """
        #expect(ProcFiles.slabBytes(slabinfo: slabinfo) == 100 * 2304 + 200 * 704)
        #expect(ProcFiles.slabBytes(slabinfo: "slabinfo - version: 2.1\n") == nil)
    }

    @Test func readsAWholeProcFilePastItsFirstPage() throws {
        // String(contentsOfFile:) stops after one read of a /proc file (4 KiB of /proc/slabinfo, whose TCP
        // lines come later). This test process maps dozens of libraries: its maps file is longer than a page.
        let maps = try #require(ProcFiles.read("/proc/self/maps"))
        #expect(maps.utf8.count > 4096)
        #expect(maps.hasSuffix("\n"))
        #expect(maps.contains("[stack]"))
    }

    // MARK: socket holders

    /// The idle sockets stay under the server's connection budget (19,375 of 20,000 descriptors): at 19,219 the server
    /// shed the load generator's own sockets, and the ringing part stopped while setting up its callers.
    @Test func largestIdleSocketsIsTheServerLimitLessItsOwnTheLoadAndAMargin() {
        #expect(
            SocketHolderPlan.largestIdleSockets(serverLimit: 20000, serverDescriptors: 16, loadDescriptors: 265)
                == 19375 - 265 - 100)
        #expect(
            SocketHolderPlan.largestIdleSockets(
                serverLimit: 20000, serverDescriptors: 16, loadDescriptors: 265, margin: 0)
                == 19375 - 265)
        #expect(
            SocketHolderPlan.largestIdleSockets(serverLimit: 20000, serverDescriptors: 900, loadDescriptors: 265)
                == 20000 - 900 - 265 - 500)
        #expect(SocketHolderPlan.largestIdleSockets(serverLimit: 600, serverDescriptors: 16, loadDescriptors: 265) == 0)
    }

    @Test func levelsAreAscendingUniqueAndFitTheLargest() {
        #expect(
            SocketHolderPlan.levels([.count(0), .count(5000), .count(10000), .largest], largest: 19219)
                == [0, 5000, 10000, 19219])
        // A fixed level above what fits is dropped; "max" twice or equal to a count is one level.
        #expect(SocketHolderPlan.levels([.largest, .count(30000), .count(0), .largest], largest: 4000) == [0, 4000])
        #expect(SocketHolderPlan.levels([.count(4000), .largest], largest: 4000) == [4000])
    }

    @Test func holdersSplitTheNewSocketsAndKeepTheRunningOnes() {
        #expect(SocketHolderPlan.newHolders(current: 0, target: 5000, perHolder: 19500) == [5000])
        #expect(SocketHolderPlan.newHolders(current: 10000, target: 19219, perHolder: 19500) == [9219])
        #expect(SocketHolderPlan.newHolders(current: 0, target: 25000, perHolder: 10000) == [10000, 10000, 5000])
        #expect(SocketHolderPlan.newHolders(current: 5000, target: 5000, perHolder: 10000).isEmpty)
        #expect(SocketHolderPlan.newHolders(current: 5000, target: 0, perHolder: 10000).isEmpty)
    }

    @Test func aHolderOpensWhatItsFileLimitAndOneAddresssPortsAllow() {
        #expect(SocketHolderPlan.socketsPerHolder(holderLimit: 20000, ephemeralPorts: 28232) == 19500)
        #expect(SocketHolderPlan.socketsPerHolder(holderLimit: 1_048_576, ephemeralPorts: 28232) == 27732)
        #expect(SocketHolderPlan.socketsPerHolder(holderLimit: 100, ephemeralPorts: 28232) == 1)
    }

    @Test func holdersBindToLoopbackAddressesFrom127002() throws {
        #expect(try SocketHolderPlan.sourceAddress(holder: 0) == "127.0.0.2")
        #expect(try SocketHolderPlan.sourceAddress(holder: 252) == "127.0.0.254")
        #expect(throws: BenchmarkError.self) { try SocketHolderPlan.sourceAddress(holder: 253) }
    }

    @Test func idleSocketLevelsParseCountsAndMax() throws {
        #expect(
            try SocketHolderPlan.parseLevels("0,5000,10000,max") == [.count(0), .count(5000), .count(10000), .largest])
        #expect(try SocketHolderPlan.parseLevels(" 50 , max") == [.count(50), .largest])
        for bad in ["", "-1", "5k", "0,,max", "MAX"] {
            #expect(throws: BenchmarkError.self, "\(bad)") { try SocketHolderPlan.parseLevels(bad) }
        }
    }

    // MARK: flags

    @Test func ringingFlagsHaveDefaultsAndRejectBadValues() throws {
        let defaults = try RingingOptions(flags: [:])
        #expect(defaults == RingingOptions())
        #expect(defaults.levels == [.count(0), .count(5000), .count(10000), .largest])
        #expect(defaults.pairs == 100 && defaults.latencyRate == 500 && defaults.stepSeconds == 3)
        #expect(defaults.loadScript == "Tests/Peers/bench_ringing.py")
        let custom = try RingingOptions(flags: [
            "idle-sockets": "0,50", "ringing-pairs": "10", "ringing-rate": "50",
            "ringing-step-seconds": "1.5", "holder-script": "/x/holder.py",
        ])
        #expect(custom.levels == [.count(0), .count(50)])
        #expect(custom.pairs == 10 && custom.latencyRate == 50 && custom.stepSeconds == 1.5)
        #expect(custom.holderScript == "/x/holder.py")
        for (flag, value) in [
            ("ringing-pairs", "0"), ("ringing-pairs", "ten"), ("ringing-rate", "0"),
            ("ringing-step-seconds", "0.1"), ("ringing-step-seconds", "x"), ("idle-sockets", "a"),
        ] {
            #expect(throws: BenchmarkError.self, "\(flag)=\(value)") { try RingingOptions(flags: [flag: value]) }
        }
        #expect(
            Set(RingingOptions.flagNames) == [
                "idle-sockets", "ringing-pairs", "ringing-step-seconds", "ringing-rate",
                "ringing-script", "holder-script",
            ])
    }

    // MARK: the load generator's answers and the rate search

    static func step(
        _ command: RingingStep.Command, offered: Int, ok: Int? = nil, skipped: Int = 0, seconds: Double,
        missingPush: Int = 0, post: [Double] = [1, 2, 3]
    ) -> RingingStep {
        RingingStep(
            command: command,
            result: .init(
                windowStart: 100, windowEnd: 100 + seconds, offered: offered, skipped: skipped,
                ok: ok ?? offered - skipped,
                firstFailure: ok.map { $0 < offered - skipped ? "HTTP 500" : nil } ?? nil, postMs: post,
                incomingMs: post,
                pushMs: post, missingIncoming: 0, missingPush: missingPush))
    }

    @Test func decodesTheLoadGeneratorsAnswer() throws {
        let line =
            #"{"kind": "open", "rate": 500, "concurrency": null, "window_start": 10.5, "window_end": 13.75, "offered": 1500, "started": 1500, "skipped": 0, "ok": 1499, "first_failure": "RuntimeError: POST /v1/calls answered 500", "post_ms": [1.5, 2.5], "incoming_ms": [2.0], "push_ms": [3.0, 4.0], "missing_incoming": 1, "missing_push": 0}"#
        let result = try RingingStep.Result.decode(line: line)
        #expect(result.windowStart == 10.5 && result.windowEnd == 13.75)
        #expect(result.offered == 1500 && result.ok == 1499 && result.skipped == 0)
        #expect(result.firstFailure == "RuntimeError: POST /v1/calls answered 500")
        #expect(result.postMs == [1.5, 2.5] && result.incomingMs == [2.0] && result.pushMs == [3.0, 4.0])
        #expect(result.missingIncoming == 1 && result.missingPush == 0)
        #expect(throws: BenchmarkError.self) { try RingingStep.Result.decode(line: #"{"error": "unknown step"}"#) }
    }

    @Test func commandsAreTheLinesTheLoadGeneratorReads() {
        #expect(RingingStep.Command.open(rate: 500, seconds: 3).line == "open 500 3.0")
        #expect(RingingStep.Command.closed(concurrency: 64, seconds: 1.5).line == "closed 64 1.5")
    }

    @Test func anOpenStepIsSustainedOnlyWhenEveryCallRangInTime() {
        let open = RingingStep.Command.open(rate: 500, seconds: 3)
        #expect(Self.step(open, offered: 1500, seconds: 3.2).isSustained)
        #expect(Self.step(open, offered: 1500, seconds: 4.0).isSustained)
        #expect(!Self.step(open, offered: 1500, seconds: 4.1).isSustained, "a tail past the drain allowance")
        #expect(
            !Self.step(open, offered: 1500, skipped: 1, seconds: 3.1).isSustained, "an arrival skipped at the bound")
        #expect(!Self.step(open, offered: 1500, ok: 1499, seconds: 3.1).isSustained, "a failed call")
        #expect(!Self.step(open, offered: 1500, seconds: 3.1, missingPush: 1).isSustained, "a push that never came")
        #expect(!Self.step(.closed(concurrency: 64, seconds: 3), offered: 1500, seconds: 3).isSustained)
        #expect(Self.step(open, offered: 1500, seconds: 3).callsPerSecond == 500)
    }

    @Test func theSearchProbesThenTriesFractionsHighestFirstUntilOneIsSustained() {
        var search = RateSearch(probeConcurrency: 64, stepSeconds: 3)
        #expect(search.first == .closed(concurrency: 64, seconds: 3))
        var next = search.next(after: Self.step(search.first, offered: 3000, seconds: 3))  // 1000 calls/s
        #expect(search.probeRate == 1000)
        #expect(next == .open(rate: 900, seconds: 3))
        next = search.next(after: Self.step(.open(rate: 900, seconds: 3), offered: 2700, skipped: 300, seconds: 3))
        #expect(next == .open(rate: 750, seconds: 3))
        next = search.next(after: Self.step(.open(rate: 750, seconds: 3), offered: 2250, seconds: 3.1))
        #expect(next == nil)
        #expect(search.sustainedRate == 750)
    }

    @Test func theSearchEndsWithoutARateWhenNoFractionIsSustained() {
        var search = RateSearch(probeConcurrency: 8, stepSeconds: 1)
        var next = search.next(after: Self.step(search.first, offered: 100, seconds: 1))
        var tried: [Int] = []
        while case .open(let rate, _)? = next {
            tried.append(rate)
            next = search.next(after: Self.step(.open(rate: rate, seconds: 1), offered: rate, skipped: 1, seconds: 1))
        }
        #expect(tried == [90, 75, 60, 45, 30])
        #expect(search.sustainedRate == nil)
        var idle = RateSearch(probeConcurrency: 8, stepSeconds: 1)
        #expect(idle.next(after: Self.step(idle.first, offered: 0, seconds: 1)) == nil, "a probe that placed no call")
    }

    @Test func percentilesAreNearestRank() throws {
        let summary = try #require(LatencySummary((1...100).reversed().map(Double.init)))
        #expect(summary.p50 == 50 && summary.p99 == 99 && summary.count == 100)
        #expect(LatencySummary([7])?.p99 == 7)
        #expect(LatencySummary([]) == nil)
    }

    @Test func callsWithoutAnAnswerCountAsTheTimeoutAndMakeALowerBound() throws {
        // 98 answered, 2 not: the 99th percentile is one of the 2, so at least the 10 s timeout.
        let slow = try #require(LatencySummary((1...98).map(Double.init), unanswered: 2, bound: 10_000))
        #expect(slow.p99 == 10_000 && slow.p99IsLowerBound)
        #expect(slow.p50 == 50 && !slow.p50IsLowerBound)
        #expect(slow.count == 98)
        // 1 of 100 unanswered: the 99th percentile is still an answered call.
        let one = try #require(LatencySummary((1...99).map(Double.init), unanswered: 1, bound: 10_000))
        #expect(one.p99 == 99 && !one.p99IsLowerBound)
        // None answered at all.
        let none = try #require(LatencySummary([], unanswered: 1500, bound: 10_000))
        #expect(none.p50 == 10_000 && none.p50IsLowerBound && none.p99IsLowerBound && none.count == 0)
    }

    @Test func aLowerBoundShowsInTheTableAndTheResultLine() {
        var level = Self.level(19219, rate: nil, p99: 5, rss: 7700)
        level.latency.push = LatencySummary([], unanswered: 1500, bound: 10_000)
        level.latency.post = LatencySummary([], unanswered: 1500, bound: 10_000)
        let report = Self.report([Self.level(0, rate: 600, p99: 20, rss: nil), level])
        #expect(report.resultLine.contains(" p99_ms=10000 "))
        #expect(report.render().contains(">=10000.00/>=10000.00"))
    }

    // MARK: CPU over a window

    @Test func cpuOverAWindowInterpolatesBetweenSamples() {
        let samples = [
            CPUSampler.Sample(time: 10, cpuSeconds: 1), .init(time: 11, cpuSeconds: 2),
            .init(time: 12, cpuSeconds: 2.5),
        ]
        #expect(CPUSampler.cores(samples, from: 10, to: 12) == 0.75)
        #expect(CPUSampler.cores(samples, from: 10.5, to: 11.5) == 0.75)
        #expect(CPUSampler.cores(samples, from: 9, to: 11) == nil, "before the first sample")
        #expect(CPUSampler.cores(samples, from: 11, to: 12.5) == nil, "after the last sample")
        #expect(CPUSampler.cores(samples, from: 11, to: 11) == nil)
    }

    // MARK: the report

    static func level(_ sockets: Int, rate: Int?, p99: Double, rss: Double?) -> RingingReport.Level {
        RingingReport.Level(
            idleSockets: sockets, probeCallsPerSecond: Double(rate ?? 10) * 1.1, sustainedCallsPerSecond: rate,
            searchSteps: rate.map { [.init(rate: $0, sustained: true, callsPerSecond: Double($0))] } ?? [],
            latency: .init(
                rate: 500, sustained: true, skipped: 0, failed: 0, post: LatencySummary([p99 / 2, p99]),
                push: LatencySummary([p99 / 2, p99]), incoming: LatencySummary([p99 / 2, p99]), serverCores: 1.1),
            idleServerCores: 0.02, serverRSSBytes: 40 << 20, rssPerSocketBytes: rss, kernelBytesPerSocket: 0,
            kernelSlabBytesPerSocket: 6300)
    }

    static func report(_ levels: [RingingReport.Level]) -> RingingReport {
        RingingReport(
            levels: levels, latencyRate: 500, pairs: 100, stepSeconds: 3, serverFileLimit: 20000,
            largestIdleSockets: 19219, holders: 3, closedEarly: 0, cores: 2, cpuModel: "AMD EPYC",
            buildMode: "release")
    }

    @Test func theResultLineNamesTheLargestLevel() {
        let report = Self.report([
            Self.level(0, rate: 1000, p99: 20, rss: nil), Self.level(5000, rate: 400, p99: 90, rss: 7400),
            Self.level(19219, rate: 50, p99: 4050.4, rss: 7301.6),
        ])
        #expect(
            report.resultLine
                == "RESULT ringing idle_sockets=19219 calls_per_s=50 ratio_vs_no_sockets=0.05 p99_ms=4050 rss_per_socket_bytes=7302"
        )
        let lines = report.render().split(separator: "\n").map(String.init)
        #expect(lines.last == report.resultLine)
        #expect(lines.contains { $0.hasPrefix("idle sockets") && $0.contains("push p50/p99 ms") })
        #expect(
            lines.contains {
                $0.hasPrefix("19219 ") && $0.contains("45.00/90.00") == false && $0.contains("2025.20/4050.40")
            })
        #expect(lines.contains { $0.contains("NOT met") })
    }

    @Test func aLevelWithNoSustainedRateCountsAsZero() {
        let report = Self.report([
            Self.level(0, rate: nil, p99: 5, rss: nil), Self.level(100, rate: nil, p99: 5, rss: nil),
        ])
        #expect(report.ratioVersusNoSockets == 0)
        #expect(
            report.resultLine
                == "RESULT ringing idle_sockets=100 calls_per_s=0 ratio_vs_no_sockets=0.00 p99_ms=5 rss_per_socket_bytes=0"
        )
        #expect(report.render().contains("none"))
        #expect(BenchmarkResults(apns: nil, fcm: nil, ringing: report).render() == report.render())
    }

    @Test func theServerLogsItsPort() {
        let log = "2026-12-01T23:40:00.000Z info ringer.server: listening http.address=127.0.0.1:43123\n"
        #expect(RingerServeProcess.listeningPort(inLog: log) == 43123)
        #expect(
            RingerServeProcess.listeningPort(inLog: "2026-12-01T23:40:00.000Z info ringer.server: starting\n") == nil)
    }
}
