import Foundation
import RingerSupport
import RingerTestSupport
import Testing

@testable import RingerServer

/// The ring timers (issue 33): a cancelled or replaced timer is gone from the table at once, a fired one after it
/// fired, and a replaced one never fires.
struct RingTimeoutSchedulerTests {
    @Test func cancelledAndFiredTimersLeaveNothingBehind() async throws {
        let scheduler = RingTimeoutScheduler(clock: SystemServerClock())
        let fired = LockedValue<[String]>([])
        for index in 0..<100 {
            scheduler.schedule(callID: "call-\(index)", at: Date().addingTimeInterval(3600)) {
                fired.withLock { $0.append("call-\(index)") }
            }
        }
        #expect(scheduler.count == 100)
        for index in 0..<100 { scheduler.cancel(callID: "call-\(index)") }
        #expect(scheduler.count == 0)
        scheduler.schedule(callID: "soon", at: Date().addingTimeInterval(0.05)) { fired.withLock { $0.append("soon") } }
        #expect(await eventually { fired.withLock { $0 } == ["soon"] && scheduler.count == 0 })
    }

    @Test func aReplacedTimerNeverFiresAndItsSuccessorStays() async throws {
        let scheduler = RingTimeoutScheduler(clock: SystemServerClock())
        let fired = LockedValue<[String]>([])
        scheduler.schedule(callID: "call", at: Date().addingTimeInterval(0.05)) {
            fired.withLock { $0.append("first") }
        }
        scheduler.schedule(callID: "call", at: Date().addingTimeInterval(0.2)) {
            fired.withLock { $0.append("second") }
        }
        #expect(scheduler.count == 1)
        #expect(await eventually { fired.withLock { $0 } == ["second"] })
        try await Task.sleep(for: .milliseconds(100))
        #expect(fired.withLock { $0 } == ["second"] && scheduler.count == 0)
    }
}
