/// A storage failure. The operation it interrupted changed nothing (it ran in a rolled-back transaction),
/// unless ``isOutcomeUnknown``: PostgreSQL stopped answering after it was asked to commit.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable {
        case database
        case corruptRecord
        case fileLost
        case newerSchema
        case serverUnreachable
        case timedOut
        case unstorableText
    }

    private let code: Code
    /// The operation or C function that failed, e.g. `sqlite3_step`.
    public let operation: String
    /// The database's own message (never contains bound values, so no tokens).
    public let message: String
    /// SQLite's result code, when there is one.
    public let resultCode: Int32?
    /// PostgreSQL's SQLSTATE (e.g. `40P01`), when there is one (PostgreSQL: "Appendix A. Error Codes").
    public let sqlState: String?
    /// True when the change may or may not have been committed: PostgreSQL was asked to commit it (`COMMIT`,
    /// or a statement outside a transaction) and its answer never came. Never reported as a success; nothing
    /// committed is undone either.
    public let isOutcomeUnknown: Bool

    private init(
        _ code: Code, operation: String, message: String, resultCode: Int32?, sqlState: String? = nil,
        outcomeUnknown: Bool = false
    ) {
        self.code = code
        self.operation = operation
        self.message = message
        self.resultCode = resultCode
        self.sqlState = sqlState
        isOutcomeUnknown = outcomeUnknown
    }

    /// The database refused or failed an operation.
    /// - Parameter outcomeUnknown: the operation was a COMMIT that failed in a way that may still have kept it
    ///   (SQLite's I/O error while syncing: the commit record may already be in the WAL, recovered at the next
    ///   start) (``isOutcomeUnknown``).
    public static func database(
        _ operation: String, code: Int32, message: String, outcomeUnknown: Bool = false
    ) -> StoreError {
        StoreError(.database, operation: operation, message: message, resultCode: code, outcomeUnknown: outcomeUnknown)
    }

    /// A stored row could not be decoded (written by an incompatible version, or damaged).
    public static func corruptRecord(_ what: String) -> StoreError {
        StoreError(.corruptRecord, operation: "decode", message: what, resultCode: nil)
    }

    /// PostgreSQL refused or failed a statement.
    /// - Parameters:
    ///   - operation: the libpq function, e.g. `PQexecParams`.
    ///   - sqlState: the five-character SQLSTATE, when the server sent one.
    ///   - message: the server's primary message (never the statement's bound values).
    public static func postgres(_ operation: String, sqlState: String?, message: String) -> StoreError {
        StoreError(.database, operation: operation, message: message, resultCode: nil, sqlState: sqlState)
    }

    /// The PostgreSQL server cannot be reached, or the connection to it broke.
    /// - Parameters:
    ///   - detail: libpq's reason, with no password in it.
    ///   - outcomeUnknown: the connection broke after a commit was asked for, before its answer
    ///     (``isOutcomeUnknown``).
    public static func serverUnreachable(_ detail: String, outcomeUnknown: Bool = false) -> StoreError {
        StoreError(
            .serverUnreachable, operation: "connect", message: detail, resultCode: nil, outcomeUnknown: outcomeUnknown)
    }

    /// PostgreSQL did not answer within the store's time for one operation (a server that hangs, or a network
    /// that drops everything): the operation gave up, and its connection was closed.
    /// - Parameters:
    ///   - operation: what was waited for: `connect`, `waiting for a pooled connection`, or the libpq function
    ///     that sent the statement.
    ///   - limit: the time the operation had (shown to the millisecond, e.g. `no answer within 2 s`).
    ///   - outcomeUnknown: a commit was asked for and not answered (``isOutcomeUnknown``).
    public static func timedOut(_ operation: String, limit: Duration, outcomeUnknown: Bool) -> StoreError {
        StoreError(
            .timedOut, operation: operation, message: "no answer within \(PostgresDeadline.text(of: limit))",
            resultCode: nil, outcomeUnknown: outcomeUnknown)
    }

    /// The database was written by a newer Ringer (its schema is at a version this one does not know). It is
    /// never migrated down: run the newer Ringer, or restore a backup taken before the upgrade.
    public static func newerSchema(found: Int, known: Int) -> StoreError {
        StoreError(
            .newerSchema, operation: "migrate",
            message:
                "the database is at schema version \(found), written by a newer Ringer; this one knows versions up to \(known) "
                + "and never migrates a database down (run the newer Ringer, or restore a backup taken before the upgrade)",
            resultCode: nil)
    }

    /// Text PostgreSQL cannot hold (an embedded NUL): refused whole rather than stored cut short.
    public static func unstorableText(_ what: String) -> StoreError {
        StoreError(.unstorableText, operation: "bind", message: what, resultCode: nil)
    }

    /// The database file the store opened is no longer at its path (deleted or replaced while running).
    public static func fileLost(_ detail: String) -> StoreError {
        StoreError(.fileLost, operation: "stat", message: detail, resultCode: nil)
    }

    /// True when the database was busy or locked by another writer, or (PostgreSQL) a transaction lost a
    /// serialization or deadlock race more often than the store retries it; retrying may succeed.
    public var isBusy: Bool {
        resultCode == 5 || resultCode == 6 || ["40001", "40P01", "55P03"].contains(sqlState ?? "")
    }

    /// True when the database is a newer Ringer's (``newerSchema(found:known:)``).
    public var isNewerSchema: Bool { code == .newerSchema }

    /// True when the store cannot take writes until an operator acts: the file is read-only (SQLITE_READONLY,
    /// 8), the disk full (SQLITE_FULL, 13), I/O fails (SQLITE_IOERR, 10) or the file cannot be opened
    /// (SQLITE_CANTOPEN, 14), or the file was deleted or replaced (SQLite: "Result and Error Codes"; the
    /// primary code is the low byte of an extended one).
    ///
    /// PostgreSQL: the server is unreachable or the connection broke, or the server says it cannot take the
    /// work now: SQLSTATE classes 08 (connection exception), 53 (insufficient resources: disk full, out of
    /// memory, too many connections) and 57 (operator intervention: shutting down, starting up), and 25006
    /// (read-only transaction: a standby after a failover) (PostgreSQL: "Appendix A. Error Codes").
    ///
    /// A PostgreSQL that did not answer in time (``timedOut(_:limit:outcomeUnknown:)``) is unavailable too.
    public var isUnavailable: Bool {
        if code == .fileLost || code == .serverUnreachable || code == .timedOut { return true }
        if let sqlState {
            return ["08", "53", "57"].contains(String(sqlState.prefix(2))) || sqlState == "25006"
        }
        guard let resultCode else { return false }
        return [8, 10, 13, 14].contains(resultCode & 0xff)
    }

    /// What ``description`` adds when ``isOutcomeUnknown``.
    private static let outcomeNote = "; the change may or may not have been committed"

    public var description: String {
        switch code {
        case .database:
            (sqlState ?? resultCode.map({ "\($0)" })).map { "\(operation) failed (\($0)): \(message)" }
                ?? "\(operation) failed: \(message)"
                + (isOutcomeUnknown ? Self.outcomeNote : "")
        case .corruptRecord: "corrupt record: \(message)"
        case .fileLost, .newerSchema: message
        case .serverUnreachable: "PostgreSQL cannot be reached: \(message)" + (isOutcomeUnknown ? Self.outcomeNote : "")
        case .timedOut:
            "PostgreSQL did not answer (\(operation)): \(message)" + (isOutcomeUnknown ? Self.outcomeNote : "")
        case .unstorableText: "cannot store \(message): PostgreSQL text cannot hold a NUL character"
        }
    }
}
