import Foundation
import RingerScenarios
import Testing

extension ScenarioRuns {
    /// Every scenario file with an Android phone, its Android phones the real Kotlin SDK in the JVM phone host
    /// (docs/android-phone-host.md) instead of the Swift stand-in: the same expectations must hold. Needs
    /// `make -C android lab` (make test builds it first); without it each run fails naming that command.
    @Suite struct HostedAndroidScenarioTests {
        @Test(arguments: ScenarioFolder.androidFiles)
        func androidScenarioMatchesItsExpectationsOnThePhoneHost(_ file: String) async throws {
            let scenario = try Scenario.load(path: file)
            let (result, report) = await ScenarioRuns.run(scenario, androidPhones: .host)
            #expect(result.passed, "\(report)")
        }

        @Test func theScenarioFolderHasAndroidScenariosToRunOnTheHost() {
            let names = ScenarioFolder.androidFiles.map { URL(fileURLWithPath: $0).lastPathComponent }
            #expect(names.count >= 16, "\(names)")
            #expect(names.contains { $0.hasPrefix("27a_") } && names.contains { $0.hasPrefix("36_") }, "\(names)")
        }
    }
}
