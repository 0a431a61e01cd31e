public import Foundation

/// Moves a server from SQLite to PostgreSQL: copies every row of an SQLite database into an empty PostgreSQL one,
/// in one PostgreSQL transaction (all or nothing), after migrating both to this Ringer's schema.
///
/// Run it with the server stopped (nothing may write the SQLite file meanwhile); then start the servers with the
/// PostgreSQL URL. docs/operations.md, "Moving from SQLite to PostgreSQL".
public enum DatabaseCopy {
    /// The tables copied, parents first; `health_probe` is not (each server writes its own probe).
    static let tables = [
        "users", "devices", "calls", "call_legs", "event_sequences", "events", "push_attempts", "idempotency_keys",
    ]

    /// Copies the rows.
    /// - Parameters:
    ///   - sqlitePath: the SQLite file (migrated to this Ringer's schema first, as a start of the server would).
    ///   - target: an empty PostgreSQL database (migrated first; its tables must hold no row).
    /// - Returns: rows copied per table, in ``tables`` order.
    /// - Throws: ``StoreError`` when either database cannot be opened, is a newer Ringer's, or the target already
    ///   holds rows (nothing is copied then).
    public static func copy(sqlitePath: String, to target: PostgresTarget) throws -> [(table: String, rows: Int)] {
        guard FileManager.default.fileExists(atPath: sqlitePath) else {
            throw StoreError.database("open", code: 14, message: "no SQLite database at \(sqlitePath)")
        }
        // The target first: a wrong URL or a database in use must leave the SQLite file exactly as it was (its
        // migration to this Ringer's schema would make an older Ringer refuse it).
        let destination = try PostgresConnection(target)
        try SchemaMigrations.migrate(destination)
        for table in tables {
            var existing: Int64 = 0
            try destination.query("SELECT count(*) FROM \(table)", []) { existing = $0.integer(0) }
            guard existing == 0 else {
                throw StoreError.postgres(
                    "copy", sqlState: nil,
                    message: "the PostgreSQL table \(table) already holds \(existing) rows; copy into an empty database"
                )
            }
        }
        let source = try SQLiteConnection(path: sqlitePath)
        try SchemaMigrations.migrate(source)
        return try destination.transaction {
            var copied: [(table: String, rows: Int)] = []
            for table in tables {
                let columns = try Self.columns(of: table, in: source)
                let insert =
                    "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
                var rows = 0
                try source.query("SELECT \(columns.joined(separator: ", ")) FROM \(table) ORDER BY rowid", []) { row in
                    try destination.query(insert, (0..<Int32(columns.count)).map { row.value($0) })
                    rows += 1
                }
                copied.append((table, rows))
            }
            // Rows kept their ids: the sequence continues after the largest.
            try destination.execute(
                "SELECT setval(pg_get_serial_sequence('push_attempts', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM push_attempts"
            )
            return copied
        }
    }

    private static func columns(of table: String, in db: SQLiteConnection) throws -> [String] {
        var names: [String] = []
        try db.query("SELECT name FROM pragma_table_info(?)", [.text(table)]) { row in
            if let name = row.text(0) { names.append(name) }
        }
        return names
    }
}
