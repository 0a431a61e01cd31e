import Foundation
import RingerSupport

/// In-memory timers over the stored ring deadlines. The deadline itself lives in the store (the call's
/// `expires_at`), so a restart loses nothing: ``CallService/resumeRingTimeouts()`` schedules them again.
final class RingTimeoutScheduler: Sendable {
    private let clock: any ServerClock
    /// Each call's timer, with the number it was scheduled under (a replaced timer must not remove its successor).
    private let timers = LockedValue<(next: UInt64, byCall: [String: (number: UInt64, task: Task<Void, Never>)])>(
        (0, [:]))

    /// Creates a scheduler with no timers.
    /// - Parameter clock: the server's clock, which deadlines are judged and slept on.
    init(clock: any ServerClock) { self.clock = clock }

    /// Runs `fire` at `deadline` unless cancelled first; replaces an earlier timer for the call.
    ///
    /// The timer removes itself from the table when it ends, fired or cancelled: a cancelled call's timer is freed at
    /// once, not at its deadline, and no second task per call waits to tidy up after it (issue 33).
    func schedule(callID: String, at deadline: Date, fire: @escaping @Sendable () async -> Void) {
        let clock = self.clock
        let previous = timers.withLock { timers -> Task<Void, Never>? in
            timers.next += 1
            let number = timers.next
            // Made under the lock, so that a timer ending at once still finds itself in the table to remove.
            let task = Task { [weak self] in
                defer { self?.forget(callID: callID, number: number) }
                // Sleep again if woken early: the monotonic sleep and the wall clock can disagree by a few ms,
                // and the call machine ignores a timeout before the deadline.
                while clock.now() < deadline {
                    do { try await clock.sleep(until: deadline) } catch { return }
                }
                await fire()
            }
            defer { timers.byCall[callID] = (number, task) }
            return timers.byCall[callID]?.task
        }
        previous?.cancel()
    }

    /// Cancels the call's timer, if any.
    func cancel(callID: String) {
        timers.withLock { $0.byCall.removeValue(forKey: callID) }?.task.cancel()
    }

    /// Cancels every timer.
    func cancelAll() {
        timers.withLock { timers in
            defer { timers.byCall.removeAll() }
            return timers.byCall.values.map(\.task)
        }.forEach { $0.cancel() }
    }

    /// Timers scheduled and not yet ended (tests).
    var count: Int { timers.withLock { $0.byCall.count } }

    private func forget(callID: String, number: UInt64) {
        timers.withLock { timers in
            if timers.byCall[callID]?.number == number { timers.byCall[callID] = nil }
        }
    }
}
