import Foundation
import RingerScenarios
import RingerTestSupport
import RingerWire
import Testing

extension ScenarioRuns {
    /// The runner can fail: deliberately wrong expectations on a real run are reported, each with what
    /// was seen and what was expected, and the command exits 1 (2 for a bad file).
    @Suite struct ScenarioFailureTests {
        @Test func wrongExpectationsAreEachReported() async throws {
            // The unreachable call ends at once, so its outcome does not depend on timing.
            var scenario = try Scenario.load(path: ScenarioFolder.file("18_unreachable.json"))
            scenario.expect.calls["call"]?.state = .busy
            scenario.expect.calls["call"]?.failureReason = .some("dave is away")
            scenario.expect.calls["call"]?.devices["alice-iphone"] = .init(media: true)
            scenario.expect.devices["alice-iphone"]?.events = [.callRinging]
            scenario.expect.devices["alice-iphone"]?.registered = false
            scenario.expect.appsKilled = 1
            let result = await ScenarioRunner(timeScale: 0.01).run(scenario)
            #expect(!result.passed)
            #expect(result.summary.hasPrefix("FAIL "))
            #expect(
                result.mismatches == [
                    "call call: state is failed, expected busy",
                    "call call: failure_reason is dave cannot be reached, expected dave is away",
                    "call call, alice-iphone: media is false, expected true",
                    "alice-iphone: events were [call.ended], expected exactly [call.ringing]",
                    "alice-iphone: registered is true, expected false",
                    "apps killed by iOS for an unreported VoIP push: 0 (none), expected 1",
                ], "\(result.summary)")
        }

        @Test func aWrongCheckStepAndAWrongAlternativeFail() async throws {
            var scenario = try Scenario.load(path: ScenarioFolder.file("14_simultaneous_accepts.json"))
            scenario.timeline.append(ScenarioAction(at: 15, device: nil, kind: .check(label: "call", state: .ringing)))
            // Both alternatives now say both devices got media: exactly one did, so neither can match.
            scenario.expect.calls["call"]?.oneOf[0].devices["bob-ipad"]?.media = true
            scenario.expect.calls["call"]?.oneOf[1].devices["bob-iphone"]?.media = true
            let result = await ScenarioRunner(timeScale: 0.05).run(scenario)
            let report = result.mismatches.joined(separator: "\n")
            #expect(report.contains("at 15 s: call call was accepted, expected ringing"), "\(report)")
            #expect(report.contains("call call: none of the one_of alternatives matched"), "\(report)")
            #expect(
                report.contains("alternative 1: call call, bob-ipad: media is false, expected true")
                    || report.contains("alternative 2: call call, bob-iphone: media is false, expected true"),
                "\(report)")
        }

        @Test func theCommandExitsOneOnAMismatchTwoOnABadFileAndZeroWhenAllMatch() async throws {
            let ringer = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("ringer-lab").path
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ringer-scenario-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }

            let good = ScenarioFolder.file("18_unreachable.json")
            let passing = try await ChildProcess.run([ringer, "scenario", good], timeout: 60)
            #expect(passing.status == 0, "\(passing.standardOutput)\(passing.standardError)")
            #expect(passing.standardOutput.contains("PASS unreachable"))

            let text = try String(contentsOfFile: good, encoding: .utf8)
            let wrong = directory.appendingPathComponent("wrong.json")
            try Data(text.replacingOccurrences(of: #""state": "failed""#, with: #""state": "busy""#).utf8).write(
                to: wrong)
            let failing = try await ChildProcess.run(
                [ringer, "scenario", "--time-scale", "0.01", wrong.path], timeout: 60)
            #expect(failing.status == 1, "\(failing.standardOutput)\(failing.standardError)")
            #expect(failing.standardOutput.contains("FAIL "))
            #expect(failing.standardOutput.contains("state is failed, expected busy"))

            let bad = directory.appendingPathComponent("bad.json")
            try Data(
                text.replacingOccurrences(of: #""callee": "dave""#, with: #""callee": "dave", "video": true"#).utf8
            )
            .write(to: bad)
            let refused = try await ChildProcess.run([ringer, "scenario", good, bad.path], timeout: 60)
            #expect(refused.status == 2)
            #expect(
                refused.standardError.contains("\(bad.path): $.timeline[0].video: unknown key"),
                "\(refused.standardError)")
            #expect(!refused.standardOutput.contains("PASS"), "nothing runs when a file is bad")

            let usage = try await ChildProcess.run([ringer, "scenario", "--time-scale", "0", good], timeout: 60)
            #expect(usage.status == 2)
        }

        /// Android phones run in the phone host: without it built, a run that has one stops before anything plays and
        /// says how to build it; a run with only iPhones does not need it.
        @Test func aRunWithAnAndroidPhoneAndNoPhoneHostBuiltSaysToBuildItAndPlaysNothing() async throws {
            let lab = try BuiltRinger.lab().path
            let missing = "RINGER_ANDROID_LAB_CLASSPATH=/nonexistent/lab-classpath.txt"
            let scenario = try await ChildProcess.run(
                [missing, lab, "scenario", ScenarioFolder.file("34_android_force_stopped_rings_out.json")], timeout: 60)
            #expect(scenario.status == 2, "\(scenario.standardOutput)\(scenario.standardError)")
            #expect(scenario.standardError.contains("make -C android lab"), "\(scenario.standardError)")
            #expect(!scenario.standardOutput.contains("PASS") && !scenario.standardOutput.contains("FAIL"))

            let seed = try #require((1...100).first { RaceScript.generate(seed: UInt64($0)).hasAndroidPhones })
            let explore = try await ChildProcess.run([missing, lab, "explore", "--seed", "\(seed)"], timeout: 60)
            #expect(explore.status == 2, "\(explore.standardOutput)\(explore.standardError)")
            #expect(explore.standardError.contains("make -C android lab"), "\(explore.standardError)")
            #expect(!explore.standardOutput.contains("PASS") && !explore.standardOutput.contains("FAIL"))

            let iPhones = try await ChildProcess.run(
                [missing, lab, "scenario", ScenarioFolder.file("18_unreachable.json")], timeout: 60)
            #expect(iPhones.status == 0, "\(iPhones.standardOutput)\(iPhones.standardError)")
        }
    }
}
