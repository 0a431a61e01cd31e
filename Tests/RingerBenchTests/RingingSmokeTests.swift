import Foundation
import RingerTestSupport
import Testing

@testable import RingerBench

/// The ringing part end to end at a small size: `ringer serve`, `ringer-lab sandbox`, one socket holder with 50
/// idle sockets and a few calls, so the processes, the Python peers and the figures fit together. It checks
/// that every call was measured, never how fast.
struct RingingSmokeTests {
    /// The `ringer-lab` binary `swift build --build-tests` put beside the test bundle (`ringer` is beside it).
    /// - Throws: when there is none (the build did not run).
    static func ringerExecutable() throws -> String { try BuiltRinger.lab().path }

    @Test func fiftyIdleSocketsAndAFewCallsAreMeasuredEndToEnd() async throws {
        let ringer = try Self.ringerExecutable()
        let options = try RingingOptions(flags: [
            "idle-sockets": "50", "ringing-pairs": "3", "ringing-rate": "20",
            "ringing-step-seconds": "0.5",
        ])
        var benchmark = RingingBenchmark(options: options, executable: ringer, python: "python3")
        benchmark.settle = .milliseconds(200)
        benchmark.idleWindow = .milliseconds(300)
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        let report = try await benchmark.run(fixture: fixture) { _ in }
        #expect(report.levels.map(\.idleSockets) == [50])
        #expect(report.holders == 1)
        #expect(report.closedEarly == 0)
        let level = try #require(report.levels.first)
        #expect(level.probeCallsPerSecond > 0)
        #expect(!level.searchSteps.isEmpty)
        // Every call answered 201 was seen ringing the callee's socket and reaching the sandbox.
        let latency = level.latency
        let posted = try #require(latency.post).count
        #expect(posted + latency.failed + latency.skipped == 10)
        #expect(latency.push?.count == posted)
        #expect(latency.incoming?.count == posted)
        #expect(level.serverRSSBytes ?? 0 > 0)
        #expect(report.resultLine.hasPrefix("RESULT ringing idle_sockets=50 calls_per_s="))
    }
}
