import CSQLite
import Foundation

/// One SQLite connection. **Not thread-safe**: ``SQLiteStore`` serialises every use behind its lock.
///
/// Every `sqlite3_*` result goes through ``check(_:_:)`` so failures carry the function name and
/// SQLite's message.
final class SQLiteConnection: SQLConnection {
    let dialect = SQLDialect.sqlite
    private let handle: OpaquePointer
    /// Prepared statements by their SQL, kept for the connection's life: preparing one costs more than running most
    /// of the store's (a call's nine statements were prepared and finalised on every call, issue 33). A statement in
    /// use is taken out, so a query nested in another's row callback prepares its own.
    private var statements: [String: OpaquePointer] = [:]

    /// Statements kept at most: the store's SQL is a fixed set.
    static let statementCacheLimit = 256
    /// Placeholders a kept statement has at most: a few statements are built with as many placeholders as a list has
    /// entries (the retention sweep's `IN` lists, up to 500), one text per length, which would fill the cache with
    /// statements seldom run again.
    static let cachedBindingsLimit = 32

    /// Opens (creating if needed) the database file and sets WAL mode, a busy timeout and foreign keys.
    /// - Parameters:
    ///   - path: a file path, or `:memory:`.
    /// - Throws: ``StoreError`` when the file cannot be opened.
    ///   - reader: a second connection that only reads (``SQLiteConnectionSource``'s reads): `PRAGMA query_only`.
    init(path: String, reader: Bool = false) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (reader ? 0 : SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw StoreError.database("sqlite3_open_v2", code: rc, message: message)
        }
        handle = db
        // First, before any statement: another connection closing (the last one of a WAL database checkpoints and
        // removes the log under an exclusive lock) made an opening one's first PRAGMA fail at once with "database is
        // locked" (StoreConformanceTests, a loaded run once the store had a reading connection too).
        sqlite3_busy_timeout(db, 5_000)
        try execute("PRAGMA journal_mode = WAL")
        // FULL: every COMMIT syncs the write-ahead log before it returns, so a call answered `201` is on disk. NORMAL
        // syncs the log only at checkpoints, and a file-system failure lost calls already acknowledged (issue 26; 7 of
        // 115 answered in the last 170 ms). The cost is one fsync per transaction (BENCHMARKS.md, "Durability").
        try execute("PRAGMA synchronous = FULL")
        try execute("PRAGMA foreign_keys = ON")
        // The group commit runs each job in a savepoint, whose statement journal (the pages as they were before the
        // job) spilled to a temporary file past 64 KiB: a new call writes more, and every call then opened, wrote
        // and deleted a file (about 10 writes a call, issue 33). In memory it is a few pages a job, freed at COMMIT.
        try execute("PRAGMA temp_store = MEMORY")
        if reader { try execute("PRAGMA query_only = ON") }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs SQL that returns no rows (may hold several statements).
    /// - Throws: ``StoreError`` on failure.
    func execute(_ sql: String) throws {
        // One statement (a transaction's BEGIN, COMMIT, SAVEPOINT…, run for every call) is prepared once; a script of
        // several (the migrations) goes to sqlite3_exec.
        guard sql.contains(";") else { return try query(sql, []) }
        try check(sqlite3_exec(handle, sql, nil, nil, nil), "sqlite3_exec")
    }

    /// Prepares, binds and runs one statement, handing each row to `row`.
    /// - Parameters:
    ///   - sql: one statement with `?` placeholders.
    ///   - bindings: values for the placeholders, in order.
    ///   - row: called once per result row.
    /// - Throws: ``StoreError`` on failure, or what `row` throws.
    func query(_ sql: String, _ bindings: [SQLValue], row: (any SQLRow) throws -> Void) throws {
        var prepared = statements.removeValue(forKey: sql)
        if prepared == nil {
            try check(sqlite3_prepare_v2(handle, sql, -1, &prepared, nil), "sqlite3_prepare_v2")
        }
        // SQL with no statement in it (only blanks or a comment) prepares to nothing: nothing to run.
        guard let statement = prepared else { return }
        defer {
            // Reset at once: a statement left stepping keeps its read transaction, and its bindings their copies.
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            if bindings.count <= Self.cachedBindingsLimit, statements[sql] == nil,
                statements.count < Self.statementCacheLimit
            {
                statements[sql] = statement
            } else {
                sqlite3_finalize(statement)
            }
        }
        for (index, value) in bindings.enumerated() {
            try check(Self.bind(value, to: statement, at: Int32(index + 1)), "sqlite3_bind")
        }
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else {
                try check(rc, "sqlite3_step")
                return
            }
            try row(SQLiteRow(statement: statement))
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    ///
    /// IMMEDIATE takes the write lock up front, so two writers never deadlock upgrading read locks.
    /// - Throws: ``StoreError`` or what `body` throws; nothing is kept on failure.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        // Inside a group commit (SQLiteConnectionSource) the batch's transaction is already open: a savepoint gives
        // this one its own all-or-nothing, and the batch's COMMIT makes it durable with the others.
        if inGroupCommit {
            try execute("SAVEPOINT ringer_transaction")
            do {
                let value = try body()
                try execute("RELEASE ringer_transaction")
                return value
            } catch {
                try? execute("ROLLBACK TO ringer_transaction")
                try? execute("RELEASE ringer_transaction")
                throw error
            }
        }
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Whether no transaction is open: SQLite ends one by itself when a statement fails with SQLITE_FULL,
    /// SQLITE_IOERR, SQLITE_NOMEM or SQLITE_BUSY ("Result and Error Codes"), which a group commit must notice.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Whether a group commit's transaction is open (``SQLiteConnectionSource``), so that ``transaction(_:)`` nests.
    var inGroupCommit = false

    /// Number of rows the last statement changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Nothing to take: `BEGIN IMMEDIATE` holds the database's one write lock for the whole transaction.
    func lock(_ keys: [String]) throws {}

    /// Always true, as ``lock(_:)``.
    func tryLock(_ keys: [String]) throws -> Bool { true }

    private static func bind(_ value: SQLValue, to statement: OpaquePointer?, at index: Int32) -> Int32 {
        switch value {
        // The byte count, not -1: SQLite would stop at an embedded NUL and store less than was acknowledged.
        case .text(let text):
            text.utf8CString.withUnsafeBufferPointer { buffer in
                sqlite3_bind_text(statement, index, buffer.baseAddress, Int32(buffer.count - 1), CSQLite_transient())
            }
        case .integer(let value): sqlite3_bind_int64(statement, index, value)
        case .real(let value): sqlite3_bind_double(statement, index, value)
        case .null: sqlite3_bind_null(statement, index)
        }
    }

    private func check(_ rc: Int32, _ function: String) throws {
        guard rc != SQLITE_OK, rc != SQLITE_DONE, rc != SQLITE_ROW else { return }
        throw StoreError.database(function, code: rc, message: String(cString: sqlite3_errmsg(handle)))
    }
}

/// The current row of a running SQLite query; valid only inside the row callback.
private struct SQLiteRow: SQLRow {
    let statement: OpaquePointer?

    /// Column `index` as text, or nil when NULL.
    func text(_ index: Int32) -> String? {
        guard sqlite3_column_type(statement, index) != SQLITE_NULL,
            let pointer = sqlite3_column_text(statement, index)
        else { return nil }
        // Every byte the column holds, an embedded NUL included (`String(cString:)` would stop there).
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Column `index` as an integer (0 when NULL).
    func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(statement, index) }

    /// Column `index` as a double (0 when NULL).
    func real(_ index: Int32) -> Double { sqlite3_column_double(statement, index) }

    func value(_ index: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(integer(index))
        case SQLITE_FLOAT: .real(real(index))
        default: text(index).map(SQLValue.text) ?? .null
        }
    }
}
