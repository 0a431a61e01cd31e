import Dispatch
import Foundation

/// A fixed number of slots, each holding at most one ``PostgresConnection`` and lent to one operation at a time.
///
/// libpq blocks its thread for the whole round trip (and for as long as a lock is waited on), so the work never
/// runs on Swift's cooperative pool, which has one thread per core: each slot has a serial dispatch queue (its own
/// thread when busy), and the caller awaits it. A slot opens its connection when first lent, and reopens one that
/// failed to open the next time. Callers beyond the pool's size wait their turn in order.
///
/// Each operation has ``operationTimeout`` from the moment it asks for a connection: the wait for a slot,
/// connecting, and every answer of the server all end by then (``PostgresDeadline``), so a server that hangs
/// costs each request that time, never more. A connection whose answer did not come in time is closed, never
/// lent again: its session may still be running the statement, or holding the transaction open.
final class PostgresPool: @unchecked Sendable {
    // @unchecked: `connections` is only touched under `lock`, or (a slot's connection) by the one operation the
    // slot is lent to; `slots` is thread-safe.
    private let lock = NSLock()
    private let target: PostgresTarget
    private let queues: [DispatchQueue]
    private var connections: [PostgresConnection?]
    private let slots: PostgresPoolSlots
    /// The time each operation may take, from asking for a connection to the last answer.
    let operationTimeout: Duration

    /// - Parameters:
    ///   - first: an open connection (the one the schema was migrated on), slot 0's.
    ///   - size: most connections open at once, at least 1.
    ///   - operationTimeout: the time each operation may take, more than zero.
    init(target: PostgresTarget, first: PostgresConnection, size: Int, operationTimeout: Duration) {
        let size = max(1, size)
        self.target = target
        self.operationTimeout = operationTimeout
        queues = (0..<size).map { DispatchQueue(label: "ringer-postgres-\($0)") }
        connections = [first] + Array(repeating: nil, count: size - 1)
        slots = PostgresPoolSlots(count: size)
    }

    /// Runs `body` with a connection, on its slot's thread, within ``operationTimeout``.
    /// - Throws: ``StoreError/timedOut(_:limit:outcomeUnknown:)`` when no connection was free in time, or the
    ///   server did not answer in time; ``StoreError/serverUnreachable(_:outcomeUnknown:)`` when no connection
    ///   can be opened; what `body` throws.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let deadline = PostgresDeadline(limit: operationTimeout)
        let slot = try await slots.borrow(until: deadline) {
            StoreError.timedOut("waiting for a pooled connection", limit: deadline.limit, outcomeUnknown: false)
        }
        return try await withCheckedThrowingContinuation { continuation in
            queues[slot].async {
                defer { self.slots.giveBack(slot) }
                continuation.resume(
                    with: Result {
                        let connection = try self.connection(in: slot, deadline: deadline)
                        defer { self.finish(connection, in: slot) }
                        try connection.begin(deadline)
                        return try body(connection)
                    })
            }
        }
    }

    /// The slot's connection, opened now when it has none. Runs on the slot's queue.
    private func connection(in slot: Int, deadline: PostgresDeadline) throws -> PostgresConnection {
        if let open = lock.withLock({ connections[slot] }) { return open }
        let opened = try PostgresConnection(target, deadline: deadline)
        lock.withLock { connections[slot] = opened }
        return opened
    }

    /// Ends an operation on the slot's connection; one that gave up waiting is dropped (closed) now, so its
    /// server session ends as soon as the server runs again and sees the socket closed.
    private func finish(_ connection: PostgresConnection, in slot: Int) {
        connection.end()
        guard connection.isAbandoned else { return }
        lock.withLock { connections[slot] = nil }
    }
}
