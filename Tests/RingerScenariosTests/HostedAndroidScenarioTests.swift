import Foundation
import RingerScenarios
import RingerWire
import Testing

extension ScenarioRuns {
    /// Every scenario file with an Android phone, its Android phones the real Kotlin SDK in the JVM phone host
    /// (docs/android-phone-host.md), and the runner's report of a wrong Android expectation. Needs
    /// `make -C android lab` (make test builds it first); without it each run fails naming that command. `make test`
    /// runs this suite after the parallel part: a JVM per scenario beside it made the scaled clocks' 1 s windows too
    /// short.
    @Suite struct HostedAndroidScenarioTests {
        @Test(arguments: ScenarioFolder.androidFiles)
        func androidScenarioMatchesItsExpectationsOnThePhoneHost(_ file: String) async throws {
            let scenario = try Scenario.load(path: file)
            let (result, report) = await ScenarioRuns.run(scenario)
            #expect(result.passed, "\(report)")
        }

        /// The same files with every Android phone's app on Core-Telecom (`call_ui: core_telecom`), so both Android
        /// call UIs pass the same scenarios (issue 31 §5); the files whose phones all name `core_telecom` ran above.
        @Test(arguments: ScenarioFolder.connectionServiceAndroidFiles)
        func androidScenarioMatchesItsExpectationsWithCoreTelecom(_ file: String) async throws {
            var scenario = try Scenario.load(path: file)
            for index in scenario.devices.indices where scenario.devices[index].platform == .android {
                scenario.devices[index].callUI = .coreTelecom
            }
            let (result, report) = await ScenarioRuns.run(scenario)
            #expect(result.passed, "\(report)")
        }

        @Test func theScenarioFolderHasAndroidScenariosToRunOnTheHost() {
            let names = ScenarioFolder.androidFiles.map { URL(fileURLWithPath: $0).lastPathComponent }
            #expect(names.count >= 16, "\(names)")
            #expect(names.contains { $0.hasPrefix("27a_") } && names.contains { $0.hasPrefix("36_") }, "\(names)")
        }

        @Test func wrongAndroidExpectationsAreEachReported() async throws {
            // Nothing reaches a force-stopped app, so the outcome does not depend on timing.
            var scenario = try Scenario.load(path: ScenarioFolder.file("34_android_force_stopped_rings_out.json"))
            var pixel = ScenarioExpectation.CallDevice(rang: true, woken: true)
            pixel.delivered = true
            pixel.ringMessage = .some("delivered")
            pixel.disconnectCause = ["MISSED"]
            pixel.pushOutcome = .some(.init(status: .some(503), reason: .some("UNAVAILABLE")))
            scenario.expect.calls["call"]?.devices["bob-pixel"] = pixel
            scenario.expect.devices["bob-pixel"] = .init(notifications: ["Missed call"], tokenRemoved: true)
            let result = await ScenarioRunner(timeScale: 0.01).run(scenario)
            #expect(
                result.mismatches == [
                    "call call, bob-pixel: rang is false, expected true",
                    "call call, bob-pixel: woken is false, expected true",
                    "call call, bob-pixel: delivered is false, expected true",
                    "call call, bob-pixel: ring_message is not_delivered, expected delivered",
                    "call call, bob-pixel: disconnect_cause is null, expected MISSED",
                    "call call, bob-pixel: push_outcome.status is 200, expected 503",
                    "call call, bob-pixel: push_outcome.reason is null, expected UNAVAILABLE",
                    "bob-pixel: notifications were [], expected exactly [\"Missed call\"]",
                    "bob-pixel: token_removed is false, expected true",
                ], "\(result.summary)")
        }
    }
}
