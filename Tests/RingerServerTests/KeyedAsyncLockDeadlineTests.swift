import Foundation
import RingerStore
import RingerSupport
import Testing

/// A change queued behind a holder stuck on the database gives up at its deadline instead of waiting for every
/// holder before it in turn (issue 26, item 2): ``KeyedAsyncLock/withLocks(_:waitingUntil:timedOut:_:)``.
@Suite struct KeyedAsyncLockDeadlineTests {
    private struct GaveUp: Error {}

    @Test func aWaiterGivesUpAtItsDeadlineReleasingWhatItTookAndRunningNothing() async throws {
        let locks = KeyedAsyncLock()
        let holding = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        // "bob" is held; a waiter for ["alice", "bob"] takes "alice" first, then waits for "bob".
        let holder = Task {
            await locks.withLocks(["bob"]) {
                holding.continuation.yield()
                for await _ in release.stream { break }
            }
        }
        for await _ in holding.stream { break }
        let start = ContinuousClock.now
        let ran = LockedValue(false)
        await #expect(throws: GaveUp.self) {
            try await locks.withLocks(
                ["alice", "bob"], waitingUntil: start + .milliseconds(200), timedOut: { GaveUp() }
            ) {
                ran.withLock { $0 = true }
            }
        }
        let waited = start.duration(to: .now)
        #expect(waited >= .milliseconds(200) && waited < .seconds(2), "\(waited)")
        #expect(!ran.snapshot)
        #expect(!locks.isHeld("alice"), "the name taken before the wait is released")
        #expect(locks.isHeld("bob"))
        release.continuation.yield()
        await holder.value
        #expect(!locks.isHeld("bob"), "the refused waiter never got the name")
    }

    @Test func aWaiterServedBeforeItsDeadlineRunsAndReleases() async throws {
        let locks = KeyedAsyncLock()
        let first = Task {
            await locks.withLocks(["carol"]) { try? await Task.sleep(for: .milliseconds(50)) }
        }
        try await Task.sleep(for: .milliseconds(10))
        let value = try await locks.withLocks(["carol"], waitingUntil: .now + .seconds(5), timedOut: { GaveUp() }) {
            42
        }
        #expect(value == 42)
        await first.value
        #expect(!locks.isHeld("carol"))
        // Without a deadline the timed form waits as the plain one does.
        #expect(try await locks.withLocks(["carol"], waitingUntil: nil, timedOut: { GaveUp() }) { 7 } == 7)
    }
}
