import Foundation
import RingerScenarios
import RingerSupport
import Testing

/// The demo's timeline: what `ringer-lab demo --json` prints as it happens.
@Suite struct TimelineTests {
    @Test func entriesRecordedOnManyThreadsAtOnceArePrintedWithTimeGoingForward() async {
        let printed = LockedValue<[Int]>([])
        let timeline = Timeline { entry in
            // A slow printer widens the window in which two threads' entries could swap places.
            if entry.tMs % 2 == 0 { Thread.sleep(forTimeInterval: 0.0002) }
            printed.withLock { $0.append(entry.tMs) }
        }
        timeline.start()
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for index in 0..<200 { timeline.record("step", ["thread": "\(thread)", "index": "\(index)"]) }
                }
            }
        }
        let times = printed.withLock { $0 }
        #expect(times.count == 1_600)
        #expect(times == times.sorted(), "printed out of time order")
        #expect(timeline.entries.map(\.tMs) == times)
    }

    @Test func anEventStampedWithItsOwnEarlierTimeIsOrderedByThatTime() {
        let timeline = Timeline()
        timeline.start()
        let started = Date()
        Thread.sleep(forTimeInterval: 0.05)
        // The server's reaction is heard first; the phone's line saying what it did 40 ms earlier arrives after it.
        timeline.record("call.ringing")
        timeline.record("connection.ringing", at: started.addingTimeInterval(0.005))
        #expect(timeline.entries.map(\.event) == ["connection.ringing", "call.ringing"])
        let times = timeline.entries.map(\.tMs)
        #expect(times[0] < times[1] && times[0] <= 10, "\(times)")
    }
}
