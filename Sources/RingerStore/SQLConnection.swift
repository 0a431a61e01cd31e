import Foundation

/// A value bound to a placeholder (`?` in the store's SQL; PostgreSQL's `$1 …` are made from them).
enum SQLValue: Sendable {
    case text(String)
    case integer(Int64)
    case real(Double)
    case null

    /// Text, or NULL for nil.
    static func optional(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }
}

/// The current row of a running query; valid only inside the row callback.
protocol SQLRow {
    /// Column `index` (from 0) as text, or nil when NULL.
    func text(_ index: Int32) -> String?
    /// Column `index` as an integer (0 when NULL).
    func integer(_ index: Int32) -> Int64
    /// Column `index` as a double (0 when NULL).
    func real(_ index: Int32) -> Double
    /// Column `index` as the value it holds, of its own type (PostgreSQL rows are read as text).
    func value(_ index: Int32) -> SQLValue
}

extension SQLRow {
    /// Column `index`, seconds since 1970 as the store writes times, or nil when NULL (``real(_:)`` reads NULL as 0;
    /// PostgreSQL rows are read as text, so NULL is told by ``text(_:)``).
    func date(_ index: Int32) -> Date? { text(index).map { _ in Date(timeIntervalSince1970: real(index)) } }
}

/// One database connection as ``SQLStore`` uses it. **Not thread-safe**: each is used by one operation at a time
/// (``SQLiteStore`` behind a lock, ``PostgresStore`` from its pool).
protocol SQLConnection: AnyObject {
    /// Which SQL the connection speaks.
    var dialect: SQLDialect { get }

    /// Runs SQL that returns no rows (may hold several statements).
    /// - Throws: ``StoreError``.
    func execute(_ sql: String) throws

    /// Runs one statement with `?` placeholders, handing each row to `row`.
    /// - Throws: ``StoreError``, or what `row` throws.
    func query(_ sql: String, _ bindings: [SQLValue], row: (any SQLRow) throws -> Void) throws

    /// Rows the last statement changed.
    var changes: Int { get }

    /// Runs `body` in one transaction, rolling back if it throws. A transaction that lost a race the database
    /// settles (PostgreSQL: serialization failure, deadlock) is run again, `body` included.
    /// - Throws: ``StoreError`` or what `body` throws; nothing is kept on failure.
    func transaction<T>(_ body: () throws -> T) throws -> T

    /// Inside a transaction: waits for the named locks, held until it ends. Callers name every key at once; they are
    /// taken in one order, so two transactions never wait for each other in a cycle. SQLite: nothing to do
    /// (`BEGIN IMMEDIATE` already holds the one write lock).
    /// - Parameter keys: e.g. `user:alice`.
    /// - Throws: ``StoreError``.
    func lock(_ keys: [String]) throws

    /// Like ``lock(_:)`` but never waits.
    /// - Returns: false when another transaction holds one of them (the ones taken are kept until the end).
    /// - Throws: ``StoreError``.
    func tryLock(_ keys: [String]) throws -> Bool
}

extension SQLConnection {
    /// ``query(_:_:row:)`` for statements whose rows are not read.
    func query(_ sql: String, _ bindings: [SQLValue] = []) throws {
        try query(sql, bindings) { _ in }
    }
}

/// The SQL that differs between the two databases the store runs on.
enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// The column that orders rows by insertion: SQLite's `rowid`; PostgreSQL has none, so its tables carry
    /// `position BIGSERIAL` (SchemaMigrations).
    var insertionOrder: String {
        switch self {
        case .sqlite: "rowid"
        case .postgres: "position"
        }
    }

    /// Names the index a query must read (SQLite's `INDEXED BY`, after the table's name): without statistics SQLite's
    /// planner does not see that a partial index holds a few rows of many. PostgreSQL chooses from its statistics.
    func indexedBy(_ index: String) -> String {
        switch self {
        case .sqlite: " INDEXED BY \(index)"
        case .postgres: ""
        }
    }

    /// Appended to a `SELECT` that claims rows for this transaction: other nodes skip what one has claimed
    /// (PostgreSQL `FOR UPDATE SKIP LOCKED`). SQLite's write lock already excludes everyone else.
    var claimRows: String {
        switch self {
        case .sqlite: ""
        case .postgres: " FOR UPDATE SKIP LOCKED"
        }
    }
}
