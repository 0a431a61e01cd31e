import Foundation
import Testing

@testable import RingerBench

/// The fan-out part: its flags, how the load generator's answer is judged, and a small run end to end.
struct FanOutBenchTests {
    @Test func fanOutFlagsHaveDefaultsAndRejectBadValues() throws {
        let defaults = try FanOutOptions(flags: [:])
        #expect(defaults == FanOutOptions())
        #expect(defaults.calls == 1000 && defaults.script == "Tests/Peers/bench_fanout.py")
        let custom = try FanOutOptions(flags: ["fanout-calls": "20", "fanout-script": "/x/fan.py"])
        #expect(custom.calls == 20 && custom.script == "/x/fan.py")
        for value in ["0", "5001", "many"] {
            #expect(throws: BenchmarkError.self, "\(value)") { try FanOutOptions(flags: ["fanout-calls": value]) }
        }
    }

    static func line(
        lost: Int = 0, duplicates: Int = 0, strays: Int = 0, ok: Int = 2, queue: [Double] = [120, 480]
    ) -> String {
        let reached = 20 - lost
        return
            #"{"calls": 2, "devices_per_call": 10, "ok": \#(ok), "first_failure": null, "window_start": 10.0, "window_end": 10.5, "#
            + #""post_ms": [300, 400], "push_queue_ms": \#(queue), "apns_queue_ms": [120], "fcm_queue_ms": \#(Array(queue.dropFirst())), "socket_ms": [5, 6], "push_ms": [600, 900], "#
            + #""last_ring_ms": 950, "expected": 20, "reached": \#(reached), "lost": \#(lost), "duplicates": \#(duplicates), "#
            + #""strays": \#(strays), "apns_pushes": 8, "fcm_messages": 6, "socket_events": 6}"#
    }

    static func report(_ line: String) throws -> FanOutReport {
        FanOutReport(
            run: try FanOutRun.decode(line: line), serverCores: 1.2, sandboxCores: 0.3, generatorCores: 0.9, cores: 2,
            cpuModel: nil,
            buildMode: "release")
    }

    @Test func everyDeviceOnceWithinASecondMeetsTheGoal() throws {
        let report = try Self.report(Self.line())
        #expect(report.meetsGoal)
        #expect(
            report.resultLine
                == "RESULT fanout calls=2 devices_per_call=10 reached=20 lost=0 duplicates=0 push_queue_p99_ms=480 push_queue_max_ms=480"
        )
        #expect(report.render().hasSuffix(report.resultLine))
        #expect(report.render().contains("goal (every device once, no push queued > 1000 ms): met"))
    }

    @Test func aLostDeviceADuplicateAStrayAFailedCallOrASlowPushMissesTheGoal() throws {
        for line in [
            Self.line(lost: 1), Self.line(duplicates: 1), Self.line(strays: 1), Self.line(ok: 1),
            Self.line(queue: [120, 1001]),
        ] {
            let report = try Self.report(line)
            #expect(!report.meetsGoal, "\(line)")
            #expect(report.render().contains("NOT met"))
        }
        // A stray counts with the duplicates on the RESULT line: both are rings that should not have happened.
        #expect(try Self.report(Self.line(duplicates: 1, strays: 2)).resultLine.contains(" duplicates=3 "))
        #expect(throws: BenchmarkError.self) { try FanOutRun.decode(line: #"{"error": "x"}"#) }
    }

    @Test func fiveCallsToTenDevicesEachReachAllFiftyEndToEnd() async throws {
        let ringer = try RingingSmokeTests.ringerExecutable()
        let benchmark = FanOutBenchmark(
            options: try FanOutOptions(flags: ["fanout-calls": "5"]), executable: ringer,
            python: "python3")
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        let report = try await benchmark.run(fixture: fixture) { _ in }
        let run = report.run
        #expect(run.ok == 5 && run.firstFailure == nil)
        #expect(run.reached == 50 && run.lost == 0 && run.duplicates == 0 && run.strays == 0)
        #expect(run.apnsPushes == 20 && run.fcmMessages == 15 && run.socketEvents == 15)
        #expect(run.pushQueueMs.count == 35 && run.socketMs.count == 15 && run.postMs.count == 5)
        #expect(
            report.resultLine.hasPrefix("RESULT fanout calls=5 devices_per_call=10 reached=50 lost=0 duplicates=0 "))
    }
}
