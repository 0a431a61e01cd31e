/// A storage failure. The operation it interrupted changed nothing (it ran in a rolled-back transaction).
public struct StoreError: Error, CustomStringConvertible, Sendable {
    private enum Code: Sendable {
        case database
        case corruptRecord
        case fileLost
    }

    private let code: Code
    /// The operation or C function that failed, e.g. `sqlite3_step`.
    public let operation: String
    /// The database's own message (never contains bound values, so no tokens).
    public let message: String
    /// The database's result code, when there is one.
    public let resultCode: Int32?

    private init(_ code: Code, operation: String, message: String, resultCode: Int32?) {
        self.code = code
        self.operation = operation
        self.message = message
        self.resultCode = resultCode
    }

    /// The database refused or failed an operation.
    public static func database(_ operation: String, code: Int32, message: String) -> StoreError {
        StoreError(.database, operation: operation, message: message, resultCode: code)
    }

    /// A stored row could not be decoded (written by an incompatible version, or damaged).
    public static func corruptRecord(_ what: String) -> StoreError {
        StoreError(.corruptRecord, operation: "decode", message: what, resultCode: nil)
    }

    /// The database file the store opened is no longer at its path (deleted or replaced while running).
    public static func fileLost(_ detail: String) -> StoreError {
        StoreError(.fileLost, operation: "stat", message: detail, resultCode: nil)
    }

    /// True when the database was busy or locked by another writer; retrying may succeed.
    public var isBusy: Bool { resultCode == 5 || resultCode == 6 }

    /// True when the store cannot take writes until an operator acts: the file is read-only (SQLITE_READONLY,
    /// 8), the disk full (SQLITE_FULL, 13), I/O fails (SQLITE_IOERR, 10) or the file cannot be opened
    /// (SQLITE_CANTOPEN, 14), or the file was deleted or replaced (SQLite: "Result and Error Codes"; the
    /// primary code is the low byte of an extended one).
    public var isUnavailable: Bool {
        if code == .fileLost { return true }
        guard let resultCode else { return false }
        return [8, 10, 13, 14].contains(resultCode & 0xff)
    }

    public var description: String {
        switch code {
        case .database: "\(operation) failed (\(resultCode ?? -1)): \(message)"
        case .corruptRecord: "corrupt record: \(message)"
        case .fileLost: message
        }
    }
}
