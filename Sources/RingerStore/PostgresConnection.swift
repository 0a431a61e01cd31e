import CPostgres
import Foundation

/// One libpq connection. **Not thread-safe**: ``PostgresPool`` hands it to one operation at a time.
///
/// Statements are sent with `PQexecParams` in text format: every value travels as text and the server infers
/// each placeholder's type from its column, so no value is ever spliced into SQL. A connection that broke is
/// reset (`PQreset`) the next time it is used.
final class PostgresConnection: SQLConnection {
    let dialect = SQLDialect.postgres
    private let handle: OpaquePointer
    private let target: PostgresTarget
    private(set) var changes = 0
    /// The `?` statements of the store as `$n` statements, converted once each.
    private var converted: [String: String] = [:]
    /// Runs of a transaction that lost a serialization or deadlock race, at most.
    static let transactionAttempts = 4

    /// Connects, waiting at most the target's connect timeout.
    /// - Throws: ``StoreError/serverUnreachable(_:)`` with libpq's reason (never the password).
    init(_ target: PostgresTarget) throws {
        self.target = target
        let keywords = ["dbname", "connect_timeout", "application_name", "client_encoding"]
        let values = [target.url, "\(target.connectTimeoutSeconds)", "ringer", "UTF8"]
        // expand_dbname 1: the dbname value is the whole `postgres://` URL, parsed by libpq.
        let connection = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
        }
        guard let connection else { throw StoreError.serverUnreachable("libpq is out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = target.redacted(Self.message(of: connection))
            PQfinish(connection)
            throw StoreError.serverUnreachable(reason)
        }
        CPostgres_silenceNotices(connection)
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// True while the connection is up (as libpq last saw it).
    var isOpen: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Reconnects a connection that broke; waits at most the connect timeout.
    /// - Throws: ``StoreError/serverUnreachable(_:)``.
    func reconnectIfNeeded() throws {
        guard !isOpen else { return }
        PQreset(handle)
        guard isOpen else { throw StoreError.serverUnreachable(target.redacted(Self.message(of: handle))) }
        CPostgres_silenceNotices(handle)
    }

    func execute(_ sql: String) throws {
        try reconnectIfNeeded()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, "PQexec")
    }

    func query(_ sql: String, _ bindings: [SQLValue], row: (any SQLRow) throws -> Void) throws {
        try reconnectIfNeeded()
        let statement = numbered(sql)
        var texts: [String?] = []
        texts.reserveCapacity(bindings.count)
        for value in bindings {
            switch value {
            case .text(let text):
                // libpq takes C strings: a NUL would cut the value short, and PostgreSQL text cannot hold one.
                guard !text.utf8.contains(0) else { throw StoreError.unstorableText("a value with a NUL character") }
                texts.append(text)
            case .integer(let number): texts.append(String(number))
            // Swift prints the shortest text that reads back as the same double; PostgreSQL reads it exactly.
            case .real(let number): texts.append("\(number)")
            case .null: texts.append(nil)
            }
        }
        let result = withOptionalCStrings(texts) { values in
            PQexecParams(handle, statement, Int32(values.count), nil, values, nil, nil, 0)
        }
        defer { PQclear(result) }
        try check(result, "PQexecParams")
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        let rows = PQntuples(result)
        for index in 0..<rows {
            try row(PostgresRow(result: result, row: index))
        }
    }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            try execute("BEGIN")
            do {
                let value = try body()
                try execute("COMMIT")
                return value
            } catch let error as StoreError where error.isBusy && attempt < Self.transactionAttempts {
                // A lost race (40001, 40P01): nothing was kept, so the whole transaction runs again.
                try? execute("ROLLBACK")
                attempt += 1
            } catch {
                if isOpen { try? execute("ROLLBACK") }
                throw error
            }
        }
    }

    func lock(_ keys: [String]) throws {
        for key in Set(keys).sorted() {
            try query("SELECT pg_advisory_xact_lock(\(PostgresLocks.namespace), hashtext(?))", [.text(key)])
        }
    }

    func tryLock(_ keys: [String]) throws -> Bool {
        for key in Set(keys).sorted() {
            var taken = false
            try query("SELECT pg_try_advisory_xact_lock(\(PostgresLocks.namespace), hashtext(?))", [.text(key)]) {
                taken = $0.text(0) == "t"
            }
            if !taken { return false }
        }
        return true
    }

    // MARK: Internals

    /// `?` placeholders as PostgreSQL's `$1, $2 …`. The store's SQL has no `?` inside a quoted literal; a quoted
    /// one would be skipped all the same.
    private func numbered(_ sql: String) -> String {
        if let done = converted[sql] { return done }
        var output = ""
        output.reserveCapacity(sql.utf8.count + 16)
        var number = 0, quoted = false
        for character in sql {
            if character == "'" { quoted.toggle() }
            if character == "?", !quoted {
                number += 1
                output += "$\(number)"
            } else {
                output.append(character)
            }
        }
        converted[sql] = output
        return output
    }

    private func check(_ result: OpaquePointer?, _ function: String) throws {
        guard let result else {
            throw isOpen ? StoreError.postgres(function, sqlState: nil, message: Self.message(of: handle))
                : StoreError.serverUnreachable(target.redacted(Self.message(of: handle)))
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return
        default:
            let sqlState = PQresultErrorField(result, CPostgres_DIAG_SQLSTATE).map { String(cString: $0) }
            guard isOpen else { throw StoreError.serverUnreachable(target.redacted(Self.message(of: handle))) }
            let primary = PQresultErrorField(result, CPostgres_DIAG_MESSAGE_PRIMARY).map { String(cString: $0) }
            throw StoreError.postgres(function, sqlState: sqlState, message: primary ?? Self.message(of: handle))
        }
    }

    private static func message(of connection: OpaquePointer) -> String {
        PQerrorMessage(connection).map { String(cString: $0) }?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "no reason given"
    }
}

/// The store's advisory locks, all under one first key so they never collide with another application's
/// locks in the same database (PostgreSQL: "Advisory Locks"). Second keys: 0 is the schema migration's,
/// otherwise `hashtext` of a name such as `user:alice`.
enum PostgresLocks {
    /// "RING" as a 32-bit integer.
    static let namespace: Int32 = 0x5249_4E47
}

/// One result row, read as text (the format every statement asks for).
private struct PostgresRow: SQLRow {
    let result: OpaquePointer?
    let row: Int32

    func text(_ index: Int32) -> String? {
        guard PQgetisnull(result, row, index) == 0, let value = PQgetvalue(result, row, index) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self),
                                                    count: Int(PQgetlength(result, row, index))), as: UTF8.self)
    }

    func integer(_ index: Int32) -> Int64 { text(index).flatMap { Int64($0) } ?? 0 }

    func real(_ index: Int32) -> Double { text(index).flatMap { Double($0) } ?? 0 }

    func value(_ index: Int32) -> SQLValue { text(index).map(SQLValue.text) ?? .null }
}

/// C strings for `strings` and a NULL after them (libpq's keyword and value lists), valid inside `body` only.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    withOptionalCStrings(strings.map { Optional($0) } + [nil], body)
}

/// C strings (NULL for nil) for `strings`, valid inside `body` only.
private func withOptionalCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { $0.map { strdup($0)! } }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { $0.map { UnsafePointer($0) } })
}
