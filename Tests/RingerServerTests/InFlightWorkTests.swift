import Foundation
import Testing

@testable import RingerServer

/// Shutdown lets work in progress finish and refuses new work.
@Suite struct InFlightWorkTests {
    @Test func drainWaitsForRunningWorkAndRefusesNewWork() async {
        let work = InFlightWork()
        #expect(work.enter())
        let finisher = Task {
            try? await Task.sleep(for: .milliseconds(200))
            work.leave()
        }
        let started = ContinuousClock.now
        #expect(await work.drain(timeout: 5) == 0)
        #expect(started.duration(to: .now) >= .milliseconds(150))
        #expect(!work.enter())
        await finisher.value
    }

    @Test func drainGivesUpAfterItsTimeoutAndSaysHowMuchWasLeft() async {
        let work = InFlightWork()
        #expect(work.enter())
        #expect(work.enter())
        #expect(await work.drain(timeout: 0.1) == 2)
    }
}
