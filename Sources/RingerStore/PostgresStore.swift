public import Foundation

/// The store for several servers on one PostgreSQL database (the source of truth of a cluster): the same rules
/// as ``SQLiteStore`` (``SQLStore``), with every race between servers settled by the database.
///
/// Each operation borrows a connection from a pool and runs on that connection's own thread (libpq blocks).
/// The schema is migrated when the store opens, once however many servers open it together.
public final class PostgresStore: SQLStore, @unchecked Sendable {
    /// Where it connects (the password hidden in its description).
    public let target: PostgresTarget

    /// Connects, migrates the schema, and keeps up to `poolSize` connections.
    /// - Parameters:
    ///   - target: the database.
    ///   - poolSize: most connections open at once (each a PostgreSQL backend process), at least 1.
    /// - Throws: ``StoreError/serverUnreachable(_:)`` when the server cannot be reached or refuses the login;
    ///   ``StoreError/newerSchema(found:known:)`` for a database a newer Ringer wrote; ``StoreError`` otherwise.
    public init(target: PostgresTarget, poolSize: Int = 8) throws {
        self.target = target
        let first = try PostgresConnection(target)
        try SchemaMigrations.migrate(first)
        super.init(source: PostgresPool(target: target, first: first, size: poolSize))
    }
}

extension PostgresPool: SQLConnectionSource {
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await withConnection { (connection: PostgresConnection) in try body(connection) }
    }
}
