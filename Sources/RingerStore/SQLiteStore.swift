public import Foundation

/// The embedded store: one SQLite file in WAL mode, schema created and migrated on open. For one server; several
/// servers need ``PostgresStore``.
///
/// Thread-safe: one connection behind a lock. SQLite writes are sub-millisecond on a local disk, so
/// callers on the cooperative pool hold it only briefly.
public final class SQLiteStore: SQLStore, @unchecked Sendable {
    /// Opens or creates the database and applies pending migrations.
    /// - Parameter path: the database file (created if missing), or `:memory:`.
    /// - Throws: ``StoreError`` when the file cannot be opened or migrated; ``StoreError/newerSchema(found:known:)``
    ///   for a file a newer Ringer wrote.
    public init(path: String) throws {
        super.init(source: try SQLiteConnectionSource(path: path))
    }
}

/// ``SQLiteStore``'s one connection behind a lock, checking before each use that the file is still the one opened.
final class SQLiteConnectionSource: SQLConnectionSource, @unchecked Sendable {
    // @unchecked: `connection` is only touched while holding `lock`.
    private let lock = NSLock()
    private let connection: SQLiteConnection
    /// The database file's path and identity (device, inode) when opened; nil for `:memory:`.
    private let file: (path: String, device: UInt64, inode: UInt64)?

    init(path: String) throws {
        connection = try SQLiteConnection(path: path)
        try SchemaMigrations.migrate(connection)
        file = Self.identity(of: path).map { (path, $0.device, $0.inode) }
    }

    /// Runs `body` at once on the caller's thread. Every use first checks the file is still the one opened:
    /// SQLite keeps writing to a deleted file's inode, and all of it would be gone at the next start. One `stat`
    /// (about a microsecond).
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try lock.withLock {
            if let file {
                guard let now = Self.identity(of: file.path) else {
                    throw StoreError.fileLost("the database file \(file.path) was deleted while the server runs; "
                                              + "what is written now would be lost at the next start")
                }
                guard now.device == file.device, now.inode == file.inode else {
                    throw StoreError.fileLost("the database file \(file.path) was replaced by another file while the server runs")
                }
            }
            return try body(connection)
        }
    }

    /// A file's device and inode; nil for `:memory:` or a file that is not there.
    private static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        guard path != ":memory:", !path.isEmpty else { return nil }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}
