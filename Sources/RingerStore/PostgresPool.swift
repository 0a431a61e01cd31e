import Dispatch
import Foundation

/// A fixed number of slots, each holding at most one ``PostgresConnection`` and lent to one operation at a time.
///
/// libpq blocks its thread for the whole round trip (and for as long as a lock is waited on), so the work never
/// runs on Swift's cooperative pool, which has one thread per core: each slot has a serial dispatch queue (its own
/// thread when busy), and the caller awaits it. A slot opens its connection when first lent, and reopens one that
/// failed to open the next time. Callers beyond the pool's size wait their turn in order.
final class PostgresPool: @unchecked Sendable {
    // @unchecked: `connections`, `idle` and `waiters` are only touched under `lock`, or (a slot's connection)
    // by the one operation the slot is lent to.
    private let lock = NSLock()
    private let target: PostgresTarget
    private let queues: [DispatchQueue]
    private var connections: [PostgresConnection?]
    private var idle: [Int]
    private var waiters: [CheckedContinuation<Int, Never>] = []

    /// - Parameters:
    ///   - first: an open connection (the one the schema was migrated on), slot 0's.
    ///   - size: most connections open at once, at least 1.
    init(target: PostgresTarget, first: PostgresConnection, size: Int) {
        let size = max(1, size)
        self.target = target
        queues = (0..<size).map { DispatchQueue(label: "ringer-postgres-\($0)") }
        connections = [first] + Array(repeating: nil, count: size - 1)
        idle = Array((0..<size).reversed())
    }

    /// Runs `body` with a connection, on its slot's thread.
    /// - Throws: ``StoreError/serverUnreachable(_:)`` when no connection can be opened; what `body` throws.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let slot = await borrow()
        return try await withCheckedThrowingContinuation { continuation in
            queues[slot].async {
                defer { self.giveBack(slot) }
                continuation.resume(with: Result {
                    try body(try self.connection(in: slot))
                })
            }
        }
    }

    /// The slot's connection, opened now when it has none. Runs on the slot's queue.
    private func connection(in slot: Int) throws -> PostgresConnection {
        if let open = lock.withLock({ connections[slot] }) { return open }
        let opened = try PostgresConnection(target)
        lock.withLock { connections[slot] = opened }
        return opened
    }

    private func borrow() async -> Int {
        await withCheckedContinuation { continuation in
            let slot: Int? = lock.withLock {
                if let slot = idle.popLast() { return slot }
                waiters.append(continuation)
                return nil
            }
            if let slot { continuation.resume(returning: slot) }
        }
    }

    private func giveBack(_ slot: Int) {
        let waiter: CheckedContinuation<Int, Never>? = lock.withLock {
            guard !waiters.isEmpty else {
                idle.append(slot)
                return nil
            }
            return waiters.removeFirst()
        }
        waiter?.resume(returning: slot)
    }
}
