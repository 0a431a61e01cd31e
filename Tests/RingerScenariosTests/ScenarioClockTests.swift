import Foundation
import RingerScenarios
import Testing

/// Scenario time runs `1 / scale` times faster than real time, for the server and the phones alike.
struct ScenarioClockTests {
    @Test func scaledTimeRunsAHundredTimesFaster() async throws {
        let clock = ScenarioClock(scale: 0.01)
        let realStart = ContinuousClock.now
        let start = clock.now()
        try await clock.sleep(until: start.addingTimeInterval(20))
        let elapsedScenario = clock.now().timeIntervalSince(start)
        let elapsed = realStart.duration(to: .now)
        let elapsedReal = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        #expect(elapsedScenario >= 20, "sleep(until:) returned early")
        #expect(elapsedReal >= 0.2, "20 scenario seconds are 0.2 real seconds")
        // However long the (loaded) machine took to wake the task, scenario time ran 100 times faster.
        #expect(abs(elapsedScenario / elapsedReal - 100) < 5, "ratio \(elapsedScenario / elapsedReal)")
    }

    @Test func scaleOneIsRealTime() async throws {
        let clock = ScenarioClock(scale: 1)
        #expect(abs(clock.now().timeIntervalSince(Date())) < 0.05)
        #expect(clock.real(45) == 45)
        #expect(ScenarioClock(scale: 0.01).real(45) == 0.45)
    }

    @Test func aDeadlineInThePastDoesNotSleep() async throws {
        let clock = ScenarioClock(scale: 0.01)
        let real = ContinuousClock.now
        try await clock.sleep(until: clock.now().addingTimeInterval(-100))
        #expect(real.duration(to: .now) < .milliseconds(100))
    }

    @Test func clocksGivenOneOriginAgreeWhenEverTheyAreMade() async throws {
        // Two processes of a cluster under test: one made now, one a second later, both from the same origin.
        let origin = Date().addingTimeInterval(-2)
        let first = ScenarioClock(scale: 0.1, origin: origin)
        try await Task.sleep(for: .seconds(1))
        let second = ScenarioClock(scale: 0.1, origin: origin)
        #expect(abs(first.now().timeIntervalSince(second.now())) < 0.1)
        // Each real second since the origin is ten of theirs, however long the sleep took on a loaded machine.
        let before = Date().timeIntervalSince(origin)
        let reading = second.now().timeIntervalSince(origin)
        let after = Date().timeIntervalSince(origin)
        #expect(
            reading >= before / 0.1 - 0.1 && reading <= after / 0.1 + 0.1, "\(reading) for \(before)…\(after) real s")
        #expect(reading > 29)
    }
}
