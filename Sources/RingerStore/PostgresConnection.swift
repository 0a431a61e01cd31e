import CPostgres
import Foundation

/// One libpq connection. **Not thread-safe**: ``PostgresPool`` hands it to one operation at a time.
///
/// Statements are sent with `PQsendQueryParams` in text format: every value travels as text and the server infers
/// each placeholder's type from its column, so no value is ever spliced into SQL. A connection that broke is
/// reconnected (`PQresetStart`) the next time it is used.
///
/// The connection is in libpq's non-blocking mode and every wait is a `poll(2)` on its socket, bounded by
/// ``deadline`` when there is one: a server that hangs with TCP still up (a stalled disk, a paused host) never
/// answers, and its own `statement_timeout` cannot fire while it is stopped, so only the client can end the wait
/// (PostgreSQL: "Asynchronous Command Processing", "Connection Status Functions"). A wait that passes the
/// deadline throws ``StoreError/timedOut(_:limit:outcomeUnknown:)`` and leaves the connection
/// ``isAbandoned``: whatever the server was doing, the session's state is unknown, so it is never used again
/// (the pool closes it; libpq's `PQcancel` would block on the same hung server).
final class PostgresConnection: SQLConnection {
    let dialect = SQLDialect.postgres
    private let handle: OpaquePointer
    private let target: PostgresTarget
    private(set) var changes = 0
    /// The `?` statements of the store as `$n` statements, converted once each.
    private var converted: [String: String] = [:]
    /// Runs of a transaction that lost a serialization or deadlock race, at most.
    static let transactionAttempts = 4
    /// When the current operation gives up waiting for the server; nil waits as long as the server takes (the
    /// schema migration at start, `ringer copy-database`). Set by ``begin(_:)``.
    private(set) var deadline: PostgresDeadline?
    /// True once a wait passed ``deadline``: the connection must not be used again.
    private(set) var isAbandoned = false
    /// Between this connection's `BEGIN` and its `COMMIT` or `ROLLBACK`.
    private var inTransaction = false
    /// The server-side limits the session was given (``sessionLimits(_:)``), nil before the first operation.
    private var sessionLimit: Duration?

    /// Connects, waiting at most the target's connect timeout, and no later than `deadline`.
    /// - Parameter deadline: the operation's deadline, nil outside an operation.
    /// - Throws: ``StoreError/serverUnreachable(_:outcomeUnknown:)`` with libpq's reason (never the password);
    ///   ``StoreError/timedOut(_:limit:outcomeUnknown:)`` when the server did not answer in time.
    init(_ target: PostgresTarget, deadline: PostgresDeadline? = nil) throws {
        self.target = target
        let keywords = ["dbname", "connect_timeout", "application_name", "client_encoding"]
        let values = [target.url, "\(target.connectTimeoutSeconds)", "ringer", "UTF8"]
        // expand_dbname 1: the dbname value is the whole `postgres://` URL, parsed by libpq.
        let connection = withCStrings(keywords) { keywordPointers in
            withCStrings(values) { valuePointers in PQconnectStartParams(keywordPointers, valuePointers, 1) }
        }
        guard let connection else { throw StoreError.serverUnreachable("libpq is out of memory") }
        do {
            guard PQstatus(connection) != CONNECTION_BAD else {
                throw StoreError.serverUnreachable(target.redacted(Self.message(of: connection)))
            }
            try Self.finishConnecting(connection, target: target, deadline: deadline, step: PQconnectPoll)
        } catch {
            PQfinish(connection)
            throw error
        }
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// True while the connection is up (as libpq last saw it) and has not given up on an answer.
    var isOpen: Bool { !isAbandoned && !endedByServer && PQstatus(handle) == CONNECTION_OK }
    /// True once the server said, while the connection was idle, that it ended the session.
    private var endedByServer = false

    /// Starts one operation of the pool: its waits end by `deadline`; a broken connection is reconnected; and a
    /// new session is given the server-side limits (``sessionLimits(_:)``).
    /// - Throws: ``StoreError``, as a statement does.
    func begin(_ deadline: PostgresDeadline) throws {
        self.deadline = deadline
        // The connection sat idle in the pool since its last operation: what the server said meanwhile counts.
        readWhatTheServerSaidWhileIdle()
        try reconnectIfNeeded()
        if sessionLimit != deadline.limit {
            try execute(Self.sessionLimits(deadline.limit))
            sessionLimit = deadline.limit
        }
    }

    /// Ends the operation ``begin(_:)`` started: waits are unbounded again.
    func end() {
        deadline = nil
    }

    /// The settings that make the server end, by itself, what a client that gave up left behind, once it runs:
    /// a statement still running past `limit` (`statement_timeout`, which bounds lock waits too, so no separate
    /// `lock_timeout`), and a transaction left open and idle past `limit` (`idle_in_transaction_session_timeout`),
    /// which would hold its advisory locks. The client gave up by then anyway: both clocks start after the
    /// operation's (PostgreSQL: "Client Connection Defaults").
    /// - Parameter limit: the operation's time.
    /// - Returns: `SET` statements, milliseconds rounded up.
    static func sessionLimits(_ limit: Duration) -> String {
        let milliseconds = PostgresDeadline(limit: limit).limitMilliseconds
        return "SET statement_timeout = \(milliseconds); SET idle_in_transaction_session_timeout = \(milliseconds)"
    }

    /// Whether a statement whose answer never came may have changed the database: `COMMIT`, or a statement
    /// outside a transaction (it commits by itself) that can write. Inside a transaction nothing is kept until
    /// `COMMIT`, and the server rolls back a session whose client is gone.
    /// - Parameters:
    ///   - sql: the statement (or statements) sent.
    ///   - inTransaction: whether it ran between `BEGIN` and `COMMIT`.
    static func mayHaveCommitted(_ sql: String, inTransaction: Bool) -> Bool {
        let first = sql.drop(while: \.isWhitespace).prefix(while: \.isLetter).uppercased()
        if first == "COMMIT" || first == "END" { return true }
        return !inTransaction && !["SELECT", "SET", "SHOW", "BEGIN", "START", "ROLLBACK", "ABORT"].contains(first)
    }

    /// Reconnects a connection that broke, or gave up on an answer; waits at most the connect timeout, and no
    /// later than the deadline.
    /// - Throws: ``StoreError/serverUnreachable(_:outcomeUnknown:)``, ``StoreError/timedOut(_:limit:outcomeUnknown:)``.
    func reconnectIfNeeded() throws {
        guard !isOpen else { return }
        guard PQresetStart(handle) == 1 else {
            throw StoreError.serverUnreachable(target.redacted(Self.message(of: handle)))
        }
        try Self.finishConnecting(handle, target: target, deadline: deadline, step: PQresetPoll)
        isAbandoned = false
        endedByServer = false
        inTransaction = false
        // A new session: the server-side limits are set again.
        sessionLimit = nil
    }

    /// Run by ``begin(_:)``, once per operation: the statements of an operation follow each other, only the pool's
    /// idle time between operations lets news wait unread.
    ///
    /// An idle connection learns that the server ended its session (a restart or a failover sends `FATAL:
    /// terminating connection due to administrator command`, then closes) only when it next reads; libpq still says
    /// `CONNECTION_OK` until then, and takes an error that comes while idle as a notice. So what waits on an idle
    /// connection is read, to the end of the stream if it came, before the connection is trusted: the first operation
    /// after the server is back reconnects instead of failing on that old news (found when a pooled connection left
    /// idle through a restart failed `PostgresStoreTests.aServerLostWhileRunning…` under load). A bounded number of
    /// reads: a server that keeps talking to an idle connection is not waited out here.
    private func readWhatTheServerSaidWhileIdle() {
        guard !isAbandoned, !endedByServer, !inTransaction, PQstatus(handle) == CONNECTION_OK else { return }
        var waiting = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        // Bytes TLS already decrypted never wake poll (CPostgres_tlsBytesPending).
        for _ in 0..<8 {
            guard CPostgres_tlsBytesPending(handle) > 0 || poll(&waiting, 1, 0) > 0 else { return }
            // The end of the stream: libpq marks the connection bad, and the next use reconnects.
            guard PQconsumeInput(handle) == 1 else { return }
            while PQisBusy(handle) == 0, let result = PQgetResult(handle) {
                if PQresultStatus(result) == PGRES_FATAL_ERROR { endedByServer = true }
                PQclear(result)
            }
        }
    }

    func execute(_ sql: String) throws {
        try reconnectIfNeeded()
        let result = try roundTrip(sql, "PQsendQuery") { PQsendQuery($0, sql) }
        defer { PQclear(result) }
        try check(result, "PQsendQuery", sql)
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
        let result = try roundTrip(sql, "PQsendQueryParams") { connection in
            withOptionalCStrings(texts) { values in
                PQsendQueryParams(connection, statement, Int32(values.count), nil, values, nil, nil, 0)
            }
        }
        defer { PQclear(result) }
        try check(result, "PQsendQueryParams", sql)
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
            inTransaction = true
            defer { inTransaction = false }
            do {
                let value = try body()
                // An answer that never comes leaves the outcome unknown: thrown as such, never retried here.
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
        var number = 0
        var quoted = false
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

    /// Sends one command and collects its answer, waiting no later than ``deadline``. Keeps libpq's `PQexec`
    /// rule for several results (a string of statements): the first error, else the last result.
    /// - Parameters:
    ///   - sql: the statement as written (for ``mayHaveCommitted(_:inTransaction:)``).
    ///   - function: the libpq function `send` calls, for errors.
    ///   - send: queues the command (`PQsendQuery…`); returns 1 when it was queued.
    /// - Returns: the result, for the caller to `PQclear`.
    /// - Throws: ``StoreError/serverUnreachable(_:outcomeUnknown:)`` when the connection broke;
    ///   ``StoreError/timedOut(_:limit:outcomeUnknown:)`` when the deadline passed (the connection is then
    ///   ``isAbandoned``); either says whether the statement may have been committed.
    private func roundTrip(_ sql: String, _ function: String, send: (OpaquePointer) -> Int32) throws -> OpaquePointer {
        guard !isAbandoned else {
            throw StoreError.serverUnreachable("the connection gave up on an earlier answer")
        }
        guard send(handle) == 1 else {
            // Nothing reached the server.
            throw isOpen
                ? StoreError.postgres(function, sqlState: nil, message: Self.message(of: handle))
                : StoreError.serverUnreachable(target.redacted(Self.message(of: handle)))
        }
        let inDoubt = Self.mayHaveCommitted(sql, inTransaction: inTransaction)
        var kept: OpaquePointer?
        do {
            // Non-blocking mode: what did not fit in the socket is sent as it drains; input is read meanwhile so
            // the server never waits on a full buffer of ours ("Asynchronous Command Processing").
            while true {
                let flushed = PQflush(handle)
                if flushed == 0 { break }
                guard flushed == 1 else { throw lost(inDoubt) }
                let ready = try wait(for: Int16(POLLIN | POLLOUT), function, inDoubt: inDoubt)
                if ready & Int16(POLLIN) != 0, PQconsumeInput(handle) == 0 { throw lost(inDoubt) }
            }
            while true {
                while PQisBusy(handle) == 1 {
                    // Bytes TLS already decrypted never wake poll: read them first (CPostgres_tlsBytesPending).
                    if CPostgres_tlsBytesPending(handle) == 0 {
                        _ = try wait(for: Int16(POLLIN), function, inDoubt: inDoubt)
                    }
                    guard PQconsumeInput(handle) == 1 else { throw lost(inDoubt) }
                }
                guard let next = PQgetResult(handle) else { break }
                if let previous = kept {
                    if PQresultStatus(previous) == PGRES_FATAL_ERROR {
                        PQclear(next)
                        continue
                    }
                    PQclear(previous)
                }
                kept = next
            }
        } catch {
            PQclear(kept)
            throw error
        }
        guard let kept else { throw lost(inDoubt) }
        return kept
    }

    /// Waits until the socket is ready for `events` (or has an error to read), no later than ``deadline``.
    /// - Returns: the `revents` poll reported.
    /// - Throws: ``StoreError/timedOut(_:limit:outcomeUnknown:)`` once the deadline passed, leaving the
    ///   connection ``isAbandoned``; ``StoreError/serverUnreachable(_:outcomeUnknown:)`` when there is no socket.
    private func wait(for events: Int16, _ function: String, inDoubt: Bool) throws -> Int16 {
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw lost(inDoubt) }
        guard let ready = try Self.pollSocket(socket, for: events, until: deadline) else {
            isAbandoned = true
            throw StoreError.timedOut(function, limit: deadline?.limit ?? .zero, outcomeUnknown: inDoubt)
        }
        return ready
    }

    /// The connection broke (libpq's reason), or an answer never came whole.
    private func lost(_ inDoubt: Bool) -> StoreError {
        StoreError.serverUnreachable(target.redacted(Self.message(of: handle)), outcomeUnknown: inDoubt)
    }

    /// Drives a connection libpq started (`PQconnectStartParams`, `PQresetStart`) until it is up, waiting at most
    /// the target's connect timeout and no later than `deadline`: libpq's own `connect_timeout` bounds only its
    /// blocking calls, in whole seconds per address ("Connecting to a Database Server", `PQconnectPoll`).
    /// - Throws: ``StoreError/serverUnreachable(_:outcomeUnknown:)`` with libpq's reason;
    ///   ``StoreError/timedOut(_:limit:outcomeUnknown:)`` when the server did not answer in time.
    private static func finishConnecting(
        _ connection: OpaquePointer, target: PostgresTarget, deadline: PostgresDeadline?,
        step: (OpaquePointer?) -> PostgresPollingStatusType
    ) throws {
        let bound = PostgresDeadline(limit: .seconds(target.connectTimeoutSeconds)).earlier(deadline)
        // libpq: begin as if the last step had asked to write.
        var status = PGRES_POLLING_WRITING
        while true {
            switch status {
            case PGRES_POLLING_OK:
                CPostgres_silenceNotices(connection)
                guard PQsetnonblocking(connection, 1) == 0 else {
                    throw StoreError.serverUnreachable(target.redacted(message(of: connection)))
                }
                return
            case PGRES_POLLING_FAILED:
                throw StoreError.serverUnreachable(target.redacted(message(of: connection)))
            default:
                // The socket may change from one step to the next (another address, another host).
                let socket = PQsocket(connection)
                guard socket >= 0 else { throw StoreError.serverUnreachable(target.redacted(message(of: connection))) }
                let events = Int16(status == PGRES_POLLING_READING ? POLLIN : POLLOUT)
                guard try pollSocket(socket, for: events, until: bound) != nil else {
                    throw StoreError.timedOut("connect", limit: bound.limit, outcomeUnknown: false)
                }
            }
            status = step(connection)
        }
    }

    /// Polls one socket until it is ready for `events`, or has an error or hang-up to report, or `deadline` passes.
    /// - Returns: the `revents`; nil when the deadline passed first (never without a deadline).
    /// - Throws: ``StoreError/serverUnreachable(_:outcomeUnknown:)`` when `poll` itself fails.
    private static func pollSocket(
        _ socket: Int32, for events: Int16, until deadline: PostgresDeadline?
    ) throws -> Int16? {
        var descriptor = pollfd(fd: socket, events: events, revents: 0)
        while true {
            let count = poll(&descriptor, 1, deadline?.pollTimeout ?? -1)
            if count > 0 { return descriptor.revents }
            if count < 0 {
                let code = errno
                guard code == EINTR else {
                    throw StoreError.serverUnreachable("poll: \(String(cString: strerror(code)))")
                }
                continue
            }
            if let deadline, deadline.hasPassed() { return nil }
        }
    }

    /// Throws the error a result holds: ``StoreError/serverUnreachable(_:outcomeUnknown:)`` when the connection
    /// broke on the way (`sql` may have been committed if ``mayHaveCommitted(_:inTransaction:)``), else the
    /// server's ``StoreError/postgres(_:sqlState:message:)``.
    private func check(_ result: OpaquePointer, _ function: String, _ sql: String) throws {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return
        default:
            let sqlState = PQresultErrorField(result, CPostgres_DIAG_SQLSTATE).map { String(cString: $0) }
            guard isOpen else { throw lost(Self.mayHaveCommitted(sql, inTransaction: inTransaction)) }
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
        return String(
            decoding: UnsafeBufferPointer(
                start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self),
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
