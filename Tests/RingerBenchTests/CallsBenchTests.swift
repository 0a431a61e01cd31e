import Foundation
import Testing

@testable import RingerBench

/// The calls part (issue 33): its flags, how its figures are judged, and a small run end to end against both servers.
struct CallsBenchTests {
    @Test func callsFlagsHaveDefaultsAndRejectBadValues() throws {
        let defaults = try CallsOptions(flags: [:])
        #expect(defaults == CallsOptions())
        #expect(defaults.pairs == 100 && defaults.rates == [200, 500] && defaults.concurrency == 64)
        let custom = try CallsOptions(flags: [
            "calls-pairs": "3", "calls-step-seconds": "0.5", "calls-concurrency": "8",
            "calls-gateway-script": "/x/g.py",
        ])
        #expect(custom.pairs == 3 && custom.stepSeconds == 0.5 && custom.concurrency == 8)
        #expect(custom.gatewayScript == "/x/g.py" && custom.setupScript == defaults.setupScript)
        for (flag, value) in [
            ("calls-pairs", "0"), ("calls-pairs", "2001"), ("calls-concurrency", "0"), ("calls-step-seconds", "0.1"),
            ("calls-step-seconds", "soon"),
        ] {
            #expect(throws: BenchmarkError.self, "\(flag) \(value)") { try CallsOptions(flags: [flag: value]) }
        }
    }

    static func report(cpu500: Double, ours: Double, theirs: Double, lostPush: Bool = false) -> CallsReport {
        var ringer = CallsReport.Target(name: "ringer serve")
        ringer.cpuMicrosecondsPerCall = [200: cpu500 + 50, 500: cpu500]
        ringer.closedStep = CallsLoad.Step(offered: Int(ours), ok: Int(ours), windowStart: 1, windowEnd: 2)
        ringer.calls = Int(ours)
        ringer.pushes = Int(ours) - (lostPush ? 1 : 0)
        var peer = CallsReport.Target(name: "peer gateway")
        peer.closedStep = CallsLoad.Step(offered: Int(theirs), ok: Int(theirs), windowStart: 1, windowEnd: 2)
        peer.calls = Int(theirs)
        peer.pushes = Int(theirs)
        return CallsReport(
            ringer: ringer, peer: peer, rates: [200, 500], concurrency: 64, stepSeconds: 1, pairs: 10, cores: 2,
            cpuModel: nil, buildMode: "release")
    }

    @Test func lowCPUAndFourTimesThePeerMeetTheGoalAndPrintTheResultLine() {
        let report = Self.report(cpu500: 280, ours: 4000, theirs: 1000)
        #expect(report.meetsGoal)
        #expect(
            report.resultLine
                == "RESULT calls cpu_us_per_call_200=330 cpu_us_per_call_500=280 closed_loop_per_s=4000 peer_closed_loop_per_s=1000 ratio_vs_peer=4.00"
        )
        #expect(report.render().hasSuffix(report.resultLine))
    }

    @Test func tooMuchCPUTooFewCallsOrALostPushMissesTheGoal() {
        for report in [
            Self.report(cpu500: 301, ours: 4000, theirs: 1000), Self.report(cpu500: 200, ours: 3999, theirs: 1000),
            Self.report(cpu500: 200, ours: 4000, theirs: 1000, lostPush: true),
        ] {
            #expect(!report.meetsGoal)
            #expect(report.render().contains("NOT met"))
        }
    }

    @Test func aFewCallsOnRingerAndOnThePeerAreMeasuredAndEachReachesTheSandboxOnce() async throws {
        let ringer = try RingingSmokeTests.ringerExecutable()
        var options = try CallsOptions(flags: [
            "calls-pairs": "3", "calls-step-seconds": "0.5", "calls-concurrency": "4",
        ])
        options.rates = [20, 40]
        var benchmark = CallsBenchmark(options: options, executable: ringer, python: "python3")
        benchmark.settle = .milliseconds(200)
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        let report = try await benchmark.run(fixture: fixture) { _ in }
        for target in [report.ringer, report.peer] {
            #expect(target.openSteps[20]?.ok == 10, "\(target.name)")
            #expect(target.openSteps[40]?.ok == 20, "\(target.name)")
            #expect(target.openSteps.values.allSatisfy { $0.firstFailure == nil }, "\(target.name)")
            #expect((target.closedStep?.ok ?? 0) > 0, "\(target.name)")
            #expect(target.calls > 30 && target.pushes == target.calls, "\(target.name)")
            #expect(target.cpuMicrosecondsPerCall[40] ?? 0 > 0, "\(target.name)")
        }
        #expect(
            report.resultLine.hasPrefix("RESULT calls cpu_us_per_call_200=0 cpu_us_per_call_500=0 closed_loop_per_s="))
    }
}
