import Foundation
import RingerSupport

/// In-memory timers over the stored ring deadlines. The deadline itself lives in the store (the call's
/// `expires_at`), so a restart loses nothing: ``CallService/resumeRingTimeouts()`` schedules them again.
final class RingTimeoutScheduler: Sendable {
    private let clock: any ServerClock
    private let tasks = LockedValue<[String: Task<Void, Never>]>([:])

    /// Creates a scheduler with no timers.
    /// - Parameter clock: the server's clock, which deadlines are judged and slept on.
    init(clock: any ServerClock) { self.clock = clock }

    /// Runs `fire` at `deadline` unless cancelled first; replaces an earlier timer for the call.
    func schedule(callID: String, at deadline: Date, fire: @escaping @Sendable () async -> Void) {
        let clock = self.clock
        let task = Task {
            // Sleep again if woken early: the monotonic sleep and the wall clock can disagree by a few ms,
            // and the call machine ignores a timeout before the deadline.
            while clock.now() < deadline {
                do { try await clock.sleep(until: deadline) } catch { return }
            }
            await fire()
        }
        let previous = tasks.withLock { tasks in
            defer { tasks[callID] = task }
            return tasks[callID]
        }
        previous?.cancel()
        // Forget the finished task so the table does not grow with every call.
        Task { [weak self] in
            await task.value
            self?.tasks.withLock { tasks in if tasks[callID] == task { tasks[callID] = nil } }
        }
    }

    /// Cancels the call's timer, if any.
    func cancel(callID: String) {
        tasks.withLock { $0.removeValue(forKey: callID) }?.cancel()
    }

    /// Cancels every timer.
    func cancelAll() {
        tasks.withLock { tasks in
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }.forEach { $0.cancel() }
    }
}
