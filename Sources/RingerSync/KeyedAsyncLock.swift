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
/// Thread-safe. Waiting is not cancellable.
public final class KeyedAsyncLock: Sendable {
    /// A held name: who waits for it next.
    private struct Holder {
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Stripes of the name table.
    public let stripeCount: Int
    private let stripes: [LockedValue<[String: Holder]>]

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
    public func withLocks<T: Sendable>(_ names: some Sequence<String>,
                                       _ body: @Sendable () async throws -> T) async rethrows -> T {
        let ordered = Set(names).sorted()
        for name in ordered { await acquire(name) }
        defer { for name in ordered.reversed() { release(name) } }
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

    private func acquire(_ name: String) async {
        let table = stripe(of: name)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = table.withLock { holders -> Bool in
                if holders[name] != nil {
                    holders[name]?.waiters.append(continuation)
                    return false
                }
                holders[name] = Holder()
                return true
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func release(_ name: String) {
        let next = stripe(of: name).withLock { holders -> CheckedContinuation<Void, Never>? in
            guard var holder = holders[name], !holder.waiters.isEmpty else {
                holders[name] = nil
                return nil
            }
            // The name passes straight to the next waiter: it stays held.
            let next = holder.waiters.removeFirst()
            holders[name] = holder
            return next
        }
        next?.resume()
    }
}
