import Foundation
import RingerScenarios
import Testing

extension ScenarioRuns {
    /// Every file in Scenarios/ without an Android phone runs against the real server, the APNs sandbox over
    /// HTTP/2 + TLS and simulated iPhones over loopback, at time scale 0.01 (a 45 s ring-out takes 0.45 s; slower
    /// only if that run did not match, see ``ScenarioRuns/scales``), and must match its expectations. A failure
    /// prints the runner's differences and the time line of every attempt. The files with an Android phone run in
    /// ``HostedAndroidScenarioTests``.
    @Suite struct ScenarioFilesTests {
        @Test(arguments: ScenarioFolder.iPhoneFiles)
        func scenarioMatchesItsExpectations(_ file: String) async throws {
            let scenario = try Scenario.load(path: file)
            let (result, report) = await ScenarioRuns.run(scenario)
            #expect(result.passed, "\(report)")
        }

        @Test func theSeedMatrixAndTheLifecycleEachHaveAScenario() {
            let names = ScenarioFolder.files.map { URL(fileURLWithPath: $0).lastPathComponent }
            // Seed matrix rows 1-6 (5 has two halves), then the lifecycle bullets of issue 3.
            for prefix in [
                "01_", "02_", "03_", "04_", "05a_", "05b_", "06_", "10_", "11_", "12_", "13_", "14_", "15_",
                "17_", "18_",
            ] {
                #expect(names.contains { $0.hasPrefix(prefix) }, "no scenario file starts with \(prefix): \(names)")
            }
            // Issue 10: the matrix for an Android callee, an iPhone with an Android phone (both orders), FCM
            // faults, Doze, force-stop, a missing full-screen intent, back online after the deadline.
            for prefix in [
                "21_", "22_", "23_", "24_", "25a_", "25b_", "26_", "27a_", "27b_", "30_", "31_", "32_", "33_", "34_",
                "35_", "36_",
            ] {
                #expect(names.contains { $0.hasPrefix(prefix) }, "no scenario file starts with \(prefix): \(names)")
            }
        }

        @Test func everyScenarioFileIsValid() throws {
            #expect(ScenarioFolder.files.count >= 31)
            for file in ScenarioFolder.files { _ = try Scenario.load(path: file) }
        }
    }
}
