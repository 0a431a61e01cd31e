import Foundation
@testable import RingerServer
import Testing

/// Shutdown lets work in progress finish and refuses new work.
@Suite struct RequestGateTests {
    @Test func drainWaitsForRunningWorkAndRefusesNewWork() async {
        let gate = RequestGate()
        #expect(gate.enter())
        let finisher = Task {
            try? await Task.sleep(for: .milliseconds(200))
            gate.leave()
        }
        let started = ContinuousClock.now
        #expect(await gate.drain(timeout: 5) == 0)
        #expect(started.duration(to: .now) >= .milliseconds(150))
        #expect(!gate.enter())
        await finisher.value
    }

    @Test func drainGivesUpAfterItsTimeoutAndSaysHowMuchWasLeft() async {
        let gate = RequestGate()
        #expect(gate.enter())
        #expect(gate.enter())
        #expect(await gate.drain(timeout: 0.1) == 2)
    }
}
