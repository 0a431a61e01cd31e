import Foundation
import RingerSupport

/// In-memory timers over the stored ring deadlines. The deadline itself lives in the store (the call's
/// `expires_at`), so a restart loses nothing: ``CallService/resumeRingTimeouts()`` schedules them again.
///
/// One task sleeps until the earliest deadline of a heap of them, whatever the number of ringing calls. A task and a
/// sleep per call had cost every call a Dispatch timer registered with Dispatch's manager thread, a thread woken to
/// register it and another to tidy up when the call was answered, and about 780 bytes until then (issue 33). A new
/// call's deadline, later than those before it when every call rings as long, wakes nobody; an earlier one replaces
/// the sleeping task. A cancelled or replaced timer leaves the heap at once.
final class RingTimeoutScheduler: Sendable {
    private let clock: any ServerClock
    private let state = LockedValue(State())

    /// One call's timer.
    private struct Entry {
        let callID: String
        let deadline: Date
        /// Breaks ties of equal deadlines in scheduling order.
        let number: UInt64
        let fire: @Sendable () async -> Void

        func isBefore(_ other: Entry) -> Bool {
            (deadline, number) < (other.deadline, other.number)
        }
    }

    /// The timers, a binary min-heap by deadline with each call's position in it, and the sleeping task.
    private struct State {
        var heap: [Entry] = []
        var position: [String: Int] = [:]
        var next: UInt64 = 0
        /// The task sleeping until `until`, numbered `generation`: a task whose number is no longer current was
        /// replaced and takes nothing from the heap.
        var sleeper: (task: Task<Void, Never>, until: Date)?
        var generation: UInt64 = 0

        mutating func insert(_ entry: Entry) {
            heap.append(entry)
            position[entry.callID] = heap.count - 1
            siftUp(heap.count - 1)
        }

        /// Removes the call's timer, if any.
        mutating func remove(callID: String) {
            guard let index = position.removeValue(forKey: callID) else { return }
            let last = heap.removeLast()
            guard index < heap.count else { return }
            heap[index] = last
            position[last.callID] = index
            siftDown(index)
            siftUp(index)
        }

        /// Removes and returns the earliest timer.
        mutating func popFirst() -> Entry {
            let first = heap[0]
            remove(callID: first.callID)
            return first
        }

        private mutating func siftUp(_ start: Int) {
            var index = start
            while index > 0 {
                let parent = (index - 1) / 2
                guard heap[index].isBefore(heap[parent]) else { return }
                swapAt(index, parent)
                index = parent
            }
        }

        private mutating func siftDown(_ start: Int) {
            var index = start
            while true {
                var least = index
                let left = 2 * index + 1
                if left < heap.count, heap[left].isBefore(heap[least]) { least = left }
                if left + 1 < heap.count, heap[left + 1].isBefore(heap[least]) { least = left + 1 }
                guard least != index else { return }
                swapAt(index, least)
                index = least
            }
        }

        private mutating func swapAt(_ a: Int, _ b: Int) {
            heap.swapAt(a, b)
            position[heap[a].callID] = a
            position[heap[b].callID] = b
        }
    }

    /// Creates a scheduler with no timers.
    /// - Parameter clock: the server's clock, which deadlines are judged and slept on.
    init(clock: any ServerClock) { self.clock = clock }

    /// Runs `fire`, in a task of its own, at `deadline` unless cancelled first; replaces an earlier timer for the
    /// call.
    func schedule(callID: String, at deadline: Date, fire: @escaping @Sendable () async -> Void) {
        let replaced = state.withLock { state -> Task<Void, Never>? in
            state.remove(callID: callID)
            state.next += 1
            state.insert(Entry(callID: callID, deadline: deadline, number: state.next, fire: fire))
            if let sleeper = state.sleeper, sleeper.until <= deadline { return nil }
            // Nobody sleeps, or only until later: a new task sleeps until this deadline.
            let previous = state.sleeper?.task
            state.generation += 1
            state.sleeper = (startSleeper(until: deadline, generation: state.generation), deadline)
            return previous
        }
        replaced?.cancel()
    }

    /// Cancels the call's timer, if any. The sleeping task is left alone: when it wakes at the cancelled deadline, it
    /// finds nothing due and sleeps until the next.
    func cancel(callID: String) {
        state.withLock { $0.remove(callID: callID) }
    }

    /// Cancels every timer.
    func cancelAll() {
        state.withLock { state -> Task<Void, Never>? in
            state.heap.removeAll()
            state.position.removeAll()
            state.generation += 1
            defer { state.sleeper = nil }
            return state.sleeper?.task
        }?.cancel()
    }

    /// Timers scheduled and not yet fired nor cancelled (tests).
    var count: Int { state.withLock { $0.heap.count } }

    /// A task that sleeps until `until`, fires what is due, and sleeps again until the next deadline, until none is
    /// left or it is replaced. Made under the state's lock.
    private func startSleeper(until first: Date, generation: UInt64) -> Task<Void, Never> {
        let clock = self.clock
        return Task { [weak self] in
            var wake = first
            while true {
                do { try await clock.sleep(until: wake) } catch { return }
                guard let self else { return }
                // The monotonic sleep and the wall clock can disagree by a few ms: what is not due yet waits again,
                // as the call machine ignores a timeout before the deadline.
                let now = clock.now()
                let (due, next) = self.state.withLock { state -> ([Entry], Date?) in
                    guard state.generation == generation else { return ([], nil) }
                    var due: [Entry] = []
                    while let first = state.heap.first, first.deadline <= now { due.append(state.popFirst()) }
                    guard let next = state.heap.first?.deadline else {
                        state.sleeper = nil
                        return (due, nil)
                    }
                    state.sleeper?.until = next
                    return (due, next)
                }
                for entry in due { Task { await entry.fire() } }
                guard let next else { return }
                wake = next
            }
        }
    }
}
