import Foundation

/// Which of a pool's slots are free, and who waits for one: each slot is lent to one borrower at a time, in
/// the order they asked, and a borrower still waiting at its deadline is refused instead of waiting on.
///
/// A slot is never lost: it goes either back to the free list or to exactly one waiter, and a waiter is
/// resumed exactly once (with a slot, or with its timeout), whichever of ``giveBack(_:)`` and its deadline
/// takes it from the list first. Thread-safe: every field is touched under `lock`.
final class PostgresPoolSlots: @unchecked Sendable {
    // @unchecked: `idle`, `waiters` and `nextWaiter` are only touched while holding `lock`.
    private let lock = NSLock()
    private var idle: [Int]
    private var waiters: [Waiter] = []
    private var nextWaiter = 0

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Int, any Error>
        var timer: Task<Void, Never>?
    }

    /// - Parameter count: how many slots, numbered from 0; all free.
    init(count: Int) {
        idle = Array((0..<count).reversed())
    }

    /// The free slots (tests, diagnostics).
    var freeCount: Int { lock.withLock { idle.count } }

    /// Borrowers waiting for a slot now (tests, diagnostics).
    var waitingCount: Int { lock.withLock { waiters.count } }

    /// A free slot, at once if there is one, else the next one given back, waiting until `deadline` at most.
    /// - Parameters:
    ///   - deadline: when to stop waiting.
    ///   - timedOut: the error thrown when the deadline comes first.
    /// - Returns: the slot, the borrower's until it calls ``giveBack(_:)``.
    /// - Throws: `timedOut()` when no slot was free by `deadline`.
    func borrow(until deadline: PostgresDeadline, timedOut: @escaping @Sendable () -> any Error) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let waiting: Int? = lock.withLock {
                if let slot = idle.popLast() {
                    continuation.resume(returning: slot)
                    return nil
                }
                nextWaiter += 1
                waiters.append(Waiter(id: nextWaiter, continuation: continuation))
                return nextWaiter
            }
            guard let waiting else { return }
            let timer = Task { [weak self] in
                try? await Task.sleep(until: deadline.instant, clock: .continuous)
                guard !Task.isCancelled else { return }
                self?.expire(waiting, with: timedOut())
            }
            let served = lock.withLock {
                guard let index = waiters.firstIndex(where: { $0.id == waiting }) else { return true }
                waiters[index].timer = timer
                return false
            }
            // Given a slot before its timer was stored: the timer has nothing left to do.
            if served { timer.cancel() }
        }
    }

    /// Gives a borrowed slot to the longest waiting borrower, or back to the free list.
    /// - Parameter slot: a slot ``borrow(until:timedOut:)`` returned, given back once.
    func giveBack(_ slot: Int) {
        let waiter: Waiter? = lock.withLock {
            guard !waiters.isEmpty else {
                idle.append(slot)
                return nil
            }
            return waiters.removeFirst()
        }
        guard let waiter else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(returning: slot)
    }

    /// Refuses waiter `id` if it is still waiting.
    private func expire(_ id: Int, with error: any Error) {
        let waiter: Waiter? = lock.withLock {
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return waiters.remove(at: index)
        }
        waiter?.continuation.resume(throwing: error)
    }
}
