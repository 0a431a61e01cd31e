import Foundation
import RingerScenarios
import Testing

/// REAL TIME, about 47 s: the ring-out scenario at time scale 1, so the server's default 45 s
/// `--ring-timeout`, the phones' deadline checks and APNs expiry run on the wall clock, unscaled.
/// Every other scenario test runs the same files 100 times faster.
@Suite struct RealTimeRingOutTests {
    @Test(.timeLimit(.minutes(2)))
    func ringOutAtTheRealDefaultFortyFiveSeconds() async throws {
        let scenario = try Scenario.load(path: ScenarioFolder.file("05b_ring_out.json"))
        #expect(scenario.ringTimeout == 45)
        let result = await ScenarioRunner(timeScale: 1).run(scenario)
        #expect(result.passed, "\(result.summary)\n\(result.trace.joined(separator: "\n"))")
        #expect(result.realSeconds >= 45, "the ring-out took \(result.realSeconds) s of real time")
    }
}
