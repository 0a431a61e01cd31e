import Foundation
import Testing

@testable import RingerBench

/// The group part (issue 30): its flags, how the load generator's answer is judged, and a small run end to end.
struct GroupBenchTests {
    @Test func groupFlagsHaveDefaultsAndRejectBadValues() throws {
        let defaults = try GroupOptions(flags: [:])
        #expect(defaults == GroupOptions())
        #expect(defaults.calls == 200 && defaults.callees == 8 && defaults.script == "Tests/Peers/bench_group.py")
        let custom = try GroupOptions(flags: ["group-calls": "3", "group-callees": "4", "group-script": "/x/g.py"])
        #expect(custom.calls == 3 && custom.callees == 4 && custom.script == "/x/g.py")
        for (flag, value) in [
            ("group-calls", "0"), ("group-calls", "1001"), ("group-callees", "1"), ("group-callees", "17"),
            ("group-calls", "many"),
        ] {
            #expect(throws: BenchmarkError.self, "\(flag) \(value)") { try GroupOptions(flags: [flag: value]) }
        }
    }

    static func line(
        lost: Int = 0, duplicates: Int = 0, rungAfterEnd: Int = 0, answered: Int = 2, queue: [Double] = [120, 480]
    ) -> String {
        #"{"calls": 2, "callees_per_call": 3, "devices_per_callee": 3, "ok": 2, "first_failure": null, "#
            + #""window_start": 10.0, "window_end": 10.5, "post_ms": [300, 400], "push_queue_ms": \#(queue), "#
            + #""apns_queue_ms": [120], "fcm_queue_ms": \#(Array(queue.dropFirst())), "socket_ms": [5, 6], "#
            + #""last_ring_ms": 950, "expected": 18, "reached": \#(18 - lost), "lost": \#(lost), "#
            + #""duplicates": \#(duplicates), "strays": 0, "answered": \#(answered), "stop_expected": 12, "#
            + #""stopped": 12, "rung_after_end": \#(rungAfterEnd), "apns_pushes": 6, "fcm_messages": 6, "#
            + #""socket_events": 6}"#
    }

    static func report(_ line: String) throws -> GroupReport {
        GroupReport(
            run: try GroupRun.decode(line: line), serverCores: 1.2, sandboxCores: 0.3, cores: 2, cpuModel: nil,
            buildMode: "release")
    }

    @Test func everyDeviceOnceNoneAfterItsLegEndedMeetsTheGoal() throws {
        let report = try Self.report(Self.line())
        #expect(report.meetsGoal)
        #expect(
            report.resultLine
                == "RESULT group calls=2 callees_per_call=3 reached=18 lost=0 duplicates=0 rung_after_end=0 push_queue_p99_ms=480"
        )
        #expect(report.render().hasSuffix(report.resultLine))
        #expect(report.render().contains("told to stop: 12 of 12"))
    }

    @Test func aLostDeviceADuplicateARingAfterTheEndAMissedAnswerOrASlowPushMissesTheGoal() throws {
        for line in [
            Self.line(lost: 1), Self.line(duplicates: 1), Self.line(rungAfterEnd: 1), Self.line(answered: 1),
            Self.line(queue: [120, 1001]),
        ] {
            let report = try Self.report(line)
            #expect(!report.meetsGoal, "\(line)")
            #expect(report.render().contains("NOT met"))
        }
        #expect(throws: BenchmarkError.self) { try GroupRun.decode(line: #"{"error": "x"}"#) }
    }

    @Test func threeGroupCallsOfThreeReachEveryDeviceAndNoneRingsAfterItsLegEnded() async throws {
        let ringer = try RingingSmokeTests.ringerExecutable()
        let benchmark = GroupBenchmark(
            options: try GroupOptions(flags: ["group-calls": "3", "group-callees": "3"]), executable: ringer,
            python: "python3")
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        let report = try await benchmark.run(fixture: fixture) { _ in }
        let run = report.run
        #expect(run.ok == 3 && run.firstFailure == nil && run.answered == 3)
        #expect(run.reached == 27 && run.lost == 0 && run.duplicates == 0 && run.strays == 0)
        #expect(run.rungAfterEnd == 0)
        #expect(run.stopExpected == 18 && run.stopped == 18, "\(run)")
        #expect(report.resultLine.hasPrefix("RESULT group calls=3 callees_per_call=3 reached=27 lost=0 duplicates=0 "))
    }
}
