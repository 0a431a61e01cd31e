public import Foundation

/// The store for several servers on one PostgreSQL database (the source of truth of a cluster): the same rules
/// as ``SQLiteStore`` (``SQLStore``), with every race between servers settled by the database.
///
/// Each operation borrows a connection from a pool and runs on that connection's own thread (libpq blocks).
/// Each has ``operationTimeout`` in all, from asking for a connection to the last answer; past it, it throws
/// ``StoreError/timedOut(_:limit:outcomeUnknown:)`` (``StoreError/isUnavailable``), whatever the server does.
/// The schema is migrated when the store opens, once however many servers open it together, with no limit
/// but the connect timeout (another server may be migrating).
public final class PostgresStore: SQLStore, @unchecked Sendable {
    /// Where it connects (the password hidden in its description).
    public let target: PostgresTarget
    /// The time each operation may take: waiting for a pooled connection, connecting, and every answer.
    public let operationTimeout: Duration

    /// The default ``operationTimeout``: a store operation takes milliseconds, so a server silent this long is
    /// treated as gone, and a request answers 503 well before clients and balancers give up on it.
    public static let defaultOperationTimeout: Duration = .seconds(2)

    /// Connects, migrates the schema, and keeps up to `poolSize` connections.
    /// - Parameters:
    ///   - target: the database.
    ///   - poolSize: most connections open at once (each a PostgreSQL backend process), at least 1.
    ///   - operationTimeout: the time each operation may take, more than zero (1 ms at least).
    /// - Throws: ``StoreError/serverUnreachable(_:outcomeUnknown:)`` when the server cannot be reached or
    ///   refuses the login, ``StoreError/timedOut(_:limit:outcomeUnknown:)`` when it does not answer the
    ///   connect in time; ``StoreError/newerSchema(found:known:)`` for a database a newer Ringer wrote;
    ///   ``StoreError`` otherwise.
    ///   - migrating: false to apply no migration (`ringer doctor`; ``SQLStore/schemaStatus()`` tells what is pending).
    public init(
        target: PostgresTarget, poolSize: Int = 8, operationTimeout: Duration = defaultOperationTimeout,
        migrating: Bool = true
    ) throws {
        self.target = target
        self.operationTimeout = max(operationTimeout, .milliseconds(1))
        let first = try PostgresConnection(target)
        if migrating { try SchemaMigrations.migrate(first) }
        super.init(
            source: PostgresPool(target: target, first: first, size: poolSize, operationTimeout: self.operationTimeout))
    }
}

extension PostgresPool: SQLConnectionSource {
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await withConnection { (connection: PostgresConnection) in try body(connection) }
    }
}
