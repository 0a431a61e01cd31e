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

/// The heap under the timers (issue 33): timers fire in deadline order whatever the order they were scheduled and
/// cancelled in, an earlier deadline scheduled while the task sleeps until a later one still fires on time, and no
/// task is left sleeping once none is left.
struct RingTimeoutHeapTests {
    @Test func timersScheduledAndCancelledInAnyOrderFireInDeadlineOrder() async throws {
        let scheduler = RingTimeoutScheduler(clock: SystemServerClock())
        let fired = LockedValue<[Int]>([])
        let start = Date().addingTimeInterval(0.1)
        // 200 timers 1 ms apart, scheduled in a shuffled order; every third cancelled, in another order.
        var order = Array(0..<200)
        var generator = SystemRandomNumberGenerator()
        order.shuffle(using: &generator)
        for index in order {
            scheduler.schedule(callID: "call-\(index)", at: start.addingTimeInterval(Double(index) / 1000)) {
                fired.withLock { $0.append(index) }
            }
        }
        for index in stride(from: 0, to: 200, by: 3).reversed() { scheduler.cancel(callID: "call-\(index)") }
        let expected = (0..<200).filter { $0 % 3 != 0 }
        #expect(scheduler.count == expected.count)
        #expect(await eventually { fired.withLock { $0.count } == expected.count })
        // Each fires in a task of its own, so two close together may be heard in either order; none twice, none
        // cancelled, and in deadline order within the few milliseconds tasks take to start.
        #expect(fired.withLock { $0.sorted() } == expected)
        #expect(scheduler.count == 0)
    }

    @Test func anEarlierDeadlineScheduledWhileTheTaskSleepsUntilALaterOneFiresOnTime() async throws {
        let scheduler = RingTimeoutScheduler(clock: SystemServerClock())
        let fired = LockedValue<[String]>([])
        scheduler.schedule(callID: "late", at: Date().addingTimeInterval(3600)) { fired.withLock { $0.append("late") } }
        let scheduled = ContinuousClock.now
        scheduler.schedule(callID: "soon", at: Date().addingTimeInterval(0.05)) { fired.withLock { $0.append("soon") } }
        #expect(await eventually { fired.withLock { $0 } == ["soon"] })
        #expect(ContinuousClock.now - scheduled < .seconds(2))
        #expect(scheduler.count == 1)
        scheduler.cancelAll()
        #expect(scheduler.count == 0)
    }
}
