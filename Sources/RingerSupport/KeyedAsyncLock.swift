/// First-in, first-out async locks named by strings (user ids): holders of different names never wait
/// for each other, holders of one name take turns in arrival order.
///
/// ``withLocks(_:_:)`` takes several names in one fixed order (sorted), so two holders that share
/// names can never each wait for the other: no deadlock, whatever names they ask for. A name costs
/// memory only while it is held or waited for. The table is split in ``stripeCount`` stripes, each
/// behind its own short lock, so taking a name never waits on a table-wide lock for long.
///
/// ```swift
/// let locks = KeyedAsyncLock()
/// try await locks.withLocks(["alice", "bob"]) { try await store.change(…) }
/// ```
/// Thread-safe. Waiting is not cancellable; ``withLocks(_:waitingUntil:_:)`` gives up waiting at a deadline.
public final class KeyedAsyncLock: Sendable {
    /// A held name: who waits for it next, in arrival order.
    private struct Holder {
        var waiters: [Waiter] = []
    }

    /// One waiter for a held name; resumed once, with true when the name passed to it, false when its deadline
    /// came first.
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Bool, Never>
        /// The waiter's deadline, cancelled when the name passes to it first (else each contended wait would leave
        /// a task asleep until its deadline).
        var timer: Task<Void, Never>?
    }

    /// Stripes of the name table.
    public let stripeCount: Int
    private let stripes: [LockedValue<[String: Holder]>]
    private let waiterIDs = LockedValue<UInt64>(0)

    /// Creates the lock table.
    /// - Parameter stripes: how many independently locked parts the table has (at least 1).
    public init(stripes: Int = 64) {
        stripeCount = max(1, stripes)
        self.stripes = (0..<stripeCount).map { _ in LockedValue([:]) }
    }

    /// Runs `body` holding every name in `names`, taken one by one in sorted order (duplicates once).
    /// - Parameters:
    ///   - names: the names to hold; empty runs `body` at once.
    ///   - body: the work.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws; every name is released either way.
    public func withLocks<T: Sendable>(
        _ names: some Sequence<String>,
        _ body: @Sendable () async throws -> T
    ) async rethrows -> T {
        let ordered = Set(names).sorted()
        for name in ordered { _ = await acquire(name, until: nil) }
        defer { for name in ordered.reversed() { release(name) } }
        return try await body()
    }

    /// Like ``withLocks(_:_:)``, but gives up waiting at `deadline`: then the names taken so far are released,
    /// `body` does not run, and `timedOut()` is thrown. A holder that is stuck (on a database that stopped
    /// answering) would otherwise make every later holder of its names wait one after the other.
    /// - Parameters:
    ///   - names: the names to hold; empty runs `body` at once.
    ///   - deadline: when to stop waiting; nil waits as long as it takes.
    ///   - timedOut: the error to throw when the deadline comes before the names.
    ///   - body: the work.
    /// - Returns: what `body` returns.
    /// - Throws: `timedOut()`; what `body` throws. Every name taken is released either way.
    public func withLocks<T: Sendable>(
        _ names: some Sequence<String>, waitingUntil deadline: ContinuousClock.Instant?,
        timedOut: () -> any Error,
        _ body: @Sendable () async throws -> T
    ) async throws -> T {
        let ordered = Set(names).sorted()
        var taken: [String] = []
        defer { for name in taken.reversed() { release(name) } }
        for name in ordered {
            guard await acquire(name, until: deadline) else { throw timedOut() }
            taken.append(name)
        }
        return try await body()
    }

    /// Whether someone holds `name` now (tests, diagnostics).
    public func isHeld(_ name: String) -> Bool {
        stripe(of: name).withLock { $0[name] != nil }
    }

    private func stripe(of name: String) -> LockedValue<[String: Holder]> {
        // Hash values are per process, which is all a stripe needs.
        stripes[Int(UInt(bitPattern: name.hashValue) % UInt(stripeCount))]
    }

    /// Takes `name`, waiting in turn until `deadline` at most.
    /// - Returns: true when `name` is now held by the caller; false when the deadline came first.
    private func acquire(_ name: String, until deadline: ContinuousClock.Instant?) async -> Bool {
        let table = stripe(of: name)
        let id = waiterIDs.withLock { next in
            next += 1
            return next
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let resumeNow = table.withLock { holders -> Bool in
                if holders[name] != nil {
                    holders[name]?.waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                holders[name] = Holder()
                return true
            }
            if resumeNow {
                continuation.resume(returning: true)
                return
            }
            guard let deadline else { return }
            let timer = Task { [weak self] in
                do { try await Task.sleep(until: deadline, clock: .continuous) } catch { return }
                self?.expire(id, waitingFor: name)
            }
            // Kept with the waiter, so that the release handing it the name cancels it; a name already handed over
            // meanwhile makes it needless now.
            let stillWaiting = table.withLock { holders -> Bool in
                guard let index = holders[name]?.waiters.firstIndex(where: { $0.id == id }) else { return false }
                holders[name]?.waiters[index].timer = timer
                return true
            }
            if !stillWaiting { timer.cancel() }
        }
    }

    /// Refuses waiter `id` of `name` if it is still waiting.
    private func expire(_ id: UInt64, waitingFor name: String) {
        let waiter = stripe(of: name).withLock { holders -> Waiter? in
            guard let index = holders[name]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return holders[name]?.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: false)
    }

    private func release(_ name: String) {
        let next = stripe(of: name).withLock { holders -> Waiter? in
            guard var holder = holders[name], !holder.waiters.isEmpty else {
                holders[name] = nil
                return nil
            }
            // The name passes straight to the next waiter: it stays held.
            let next = holder.waiters.removeFirst()
            holders[name] = holder
            return next
        }
        next?.timer?.cancel()
        next?.continuation.resume(returning: true)
    }
}
