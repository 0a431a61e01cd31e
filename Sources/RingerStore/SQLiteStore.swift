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
        super.init(source: try SQLiteConnectionSource(path: path, migrating: true))
    }

    /// Opens the database as it is, applying no migration (`ringer doctor`: a newer binary must not migrate the
    /// database of servers still running an older one; ``SQLStore/schemaStatus()`` tells what is pending).
    /// - Throws: ``StoreError`` when the file cannot be opened.
    public init(unmigratedPath path: String) throws {
        super.init(source: try SQLiteConnectionSource(path: path, migrating: false))
    }
}

/// ``SQLiteStore``'s one connection, used by one thread of its own, which commits the work waiting for it together
/// (group commit).
///
/// Why: under `synchronous = FULL` every COMMIT syncs the write-ahead log (a `201` means on disk), and one
/// transaction per call step made that a sync per step, each holding one of the cooperative pool's threads (one a
/// core) blocked in `fsync`: calls per second fell by about 30 % (BENCHMARKS.md, "Durability"). Now the work waits
/// in a queue; the thread takes all that waits, runs each in a savepoint of one transaction (each still all or
/// nothing: a failing one is rolled back to its savepoint alone) and commits once, and only then answers every one
/// of them: one sync for the batch, none on the pool. A failed COMMIT fails the whole batch, and nothing of it is
/// kept. Every batch first checks that the file is still the one opened.
///
/// Work nobody waits for (``submit(_:committed:)``: a push's outcome) does not start a batch of its own: it joins
/// the next batch that somebody waits for, or is committed about ``deferredWindow`` after it came if none comes (after
/// the batch running when it came, if any, and the window from then). At 500
/// calls/s every call's push outcome had cost a commit of its own, one more `fdatasync` and its pages written again
/// (issue 33).
final class SQLiteConnectionSource: SQLConnectionSource, @unchecked Sendable {
    // @unchecked: `connection` is only touched on `queue`; `pending`, `pendingUrgent`, `draining`, `deferredArmed`
    // and `fileLost` only under `lock`.
    private let connection: SQLiteConnection
    /// The connection reads of a few rows run on, on the caller's thread; nil for `:memory:` (a second connection
    /// would open another, empty database).
    private let reader: LockedReader?
    private let queue = DispatchQueue(label: "ringer-sqlite")
    private let lock = NSLock()
    private var pending: [Job] = []
    /// Whether `pending` holds work somebody waits for: only then does a batch start at once.
    private var pendingUrgent = false
    /// Whether the store's thread runs batches or is about to.
    private var draining = false
    /// Whether the commit of waiting deferred work is scheduled (``deferredWindow``).
    private var deferredArmed = false
    /// Set, under `lock`, once a batch found the file deleted or replaced (``checkFile()``, before every batch: at
    /// least once a second in a running server, whose heartbeat is a write); reads fail with it from then on.
    private var fileLost: StoreError?
    /// The database file's path and identity (device, inode) when opened; nil for `:memory:`.
    private let file: (path: String, device: UInt64, inode: UInt64)?

    /// Most pieces of work in one commit, so that a long queue still gets its answers in steps.
    static let maximumBatch = 64

    /// The longest deferred work waits for a batch to join before it is committed alone: short beside the
    /// observers of a push's outcome (metrics, a call's push outcomes read back), long beside the gap between calls
    /// under load.
    static let deferredWindow: DispatchTimeInterval = .milliseconds(20)

    /// One piece of work: runs on the connection, answers once the batch is committed.
    private struct Job {
        /// Runs the work; returns its error, if any (then the batch undoes it).
        let run: (SQLiteConnection) -> (any Error)?
        let commit: ((any Error)?) -> Void
        /// Nobody waits for it: it joins the next batch (``deferredWindow``).
        var deferred = false
    }

    init(path: String, migrating: Bool) throws {
        connection = try SQLiteConnection(path: path)
        if migrating { try SchemaMigrations.migrate(connection) }
        file = Self.identity(of: path).map { (path, $0.device, $0.inode) }
        reader = file == nil ? nil : LockedReader(connection: try SQLiteConnection(path: path, reader: true))
    }

    /// The reading connection behind its lock.
    private final class LockedReader: @unchecked Sendable {
        // @unchecked: `connection` is only touched under `lock`.
        private let connection: SQLiteConnection
        private let lock = NSLock()

        init(connection: SQLiteConnection) { self.connection = connection }

        func read<T>(_ body: (any SQLConnection) throws -> T) rethrows -> T {
            try lock.withLock { try body(connection) }
        }
    }

    /// Runs `body` on the reading connection, on this thread: a point read takes microseconds, less than the two
    /// thread hops of the writes' queue it used to wait in (issue 33).
    func withReadConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    {
        guard let reader else { return try await withConnection(body) }
        // A file the writes found deleted or replaced is not read either: the reader would go on reading the old inode.
        if let lost = lock.withLock({ fileLost }) { throw lost }
        return try reader.read(body)
    }

    /// Runs `body` on the store's thread inside the next batch somebody waits for, or alone about ``deferredWindow``
    /// later; `committed` is told, on that thread, once the batch is committed (nil) or failed. Nobody
    /// waits to be resumed.
    func submit(
        _ body: @escaping @Sendable (any SQLConnection) throws -> Void,
        committed: @escaping @Sendable ((any Error)?) -> Void
    ) {
        // Only the store's thread touches it: set by `run`, read by `commit` after.
        nonisolated(unsafe) var failure: (any Error)?
        enqueue(
            Job(
                run: { connection in
                    do { try body(connection) } catch { failure = error }
                    return failure
                },
                commit: { batchFailure in committed(failure ?? batchFailure) }, deferred: true))
    }

    /// Adds `job` to the next batch, starting the store's thread on it when it is idle and somebody waits for the
    /// work, else making sure the deferred work is committed within ``deferredWindow``.
    private func enqueue(_ job: Job) {
        enum Start { case none, drain, arm }
        let start = lock.withLock { () -> Start in
            pending.append(job)
            if !job.deferred { pendingUrgent = true }
            guard !draining else { return .none }
            if pendingUrgent {
                draining = true
                return .drain
            }
            guard !deferredArmed else { return .none }
            deferredArmed = true
            return .arm
        }
        switch start {
        case .none: break
        case .drain: queue.async { self.drain(flushing: false) }
        case .arm: armDeferred()
        }
    }

    /// Schedules the commit of the deferred work waiting, ``deferredWindow`` from now.
    private func armDeferred() {
        queue.asyncAfter(deadline: .now() + Self.deferredWindow) {
            let start = self.lock.withLock { () -> Bool in
                self.deferredArmed = false
                guard !self.draining, !self.pending.isEmpty else { return false }
                self.draining = true
                return true
            }
            if start { self.drain(flushing: true) }
        }
    }

    /// Runs `body` on the store's thread inside the next batch and returns once that batch is committed (or failed).
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            var outcome: Result<T, any Error>?
            let job = Job(
                run: { connection in
                    let result = Result { try body(connection) }
                    outcome = result
                    if case .failure(let error) = result { return error }
                    return nil
                },
                commit: { failure in
                    // A batch that failed to commit kept nothing, not even what this job did.
                    if let failure, case .success = outcome { outcome = .failure(failure) }
                    continuation.resume(
                        with: outcome
                            ?? .failure(
                                failure
                                    ?? StoreError.database(
                                        "group commit", code: 0,
                                        message: "not run")))
                })
            enqueue(job)
        }
    }

    /// Runs batches until nothing waits, or only deferred work does (`flushing`: that too). On `queue`.
    private func drain(flushing: Bool) {
        while true {
            let (batch, arm) = lock.withLock { () -> ([Job], Bool) in
                guard !pending.isEmpty, pendingUrgent || flushing else {
                    draining = false
                    let arm = !pending.isEmpty && !deferredArmed
                    if arm { deferredArmed = true }
                    return ([], arm)
                }
                var taken: [Job] = []
                if pending.count <= Self.maximumBatch {
                    swap(&taken, &pending)
                    pendingUrgent = false
                } else {
                    taken = Array(pending.prefix(Self.maximumBatch))
                    pending.removeFirst(Self.maximumBatch)
                    pendingUrgent = pending.contains { !$0.deferred }
                }
                return (taken, false)
            }
            if arm { armDeferred() }
            guard !batch.isEmpty else { return }
            let failure = commit(batch)
            for job in batch { job.commit(failure) }
        }
    }

    /// Runs `batch` in one transaction, each job in a savepoint; returns the error that kept the batch from being
    /// committed, if any.
    private func commit(_ batch: [Job]) -> (any Error)? {
        do {
            try checkFile()
        } catch let error as StoreError {
            lock.withLock { fileLost = error }
            return error
        } catch {
            return error
        }
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            return error
        }
        connection.inGroupCommit = true
        defer { connection.inGroupCommit = false }
        for job in batch {
            do {
                try connection.execute("SAVEPOINT ringer_job")
            } catch {
                try? connection.execute("ROLLBACK")
                return error
            }
            // A job that threw keeps nothing, whatever it wrote before (its own transaction rolled back already).
            let failed = job.run(connection)
            if failed != nil { try? connection.execute("ROLLBACK TO ringer_job") }
            try? connection.execute("RELEASE ringer_job")
            // SQLite ended the batch's transaction itself (a full disk, an I/O error): what ran before is gone, and
            // a next job's SAVEPOINT would open a transaction of its own that its RELEASE commits alone. The batch
            // stops here and fails whole, with the error that ended it.
            if connection.isAutocommit {
                return failed ?? StoreError.database("group commit", code: 10, message: "SQLite ended the transaction")
            }
        }
        do {
            try connection.execute("COMMIT")
            return nil
        } catch let error as StoreError where (error.resultCode ?? 0) & 0xff == 10 {
            // An I/O error while syncing may leave the commit record in the WAL, recovered at the next start.
            try? connection.execute("ROLLBACK")
            return StoreError.database(
                "COMMIT", code: error.resultCode ?? 10, message: error.message, outcomeUnknown: true)
        } catch {
            try? connection.execute("ROLLBACK")
            return error
        }
    }

    /// Throws when the file is no longer the one opened: SQLite keeps writing to a deleted file's inode, and all of
    /// it would be gone at the next start. One `stat` (about a microsecond).
    private func checkFile() throws {
        guard let file else { return }
        guard let now = Self.identity(of: file.path) else {
            throw StoreError.fileLost(
                "the database file \(file.path) was deleted while the server runs; "
                    + "what is written now would be lost at the next start")
        }
        guard now.device == file.device, now.inode == file.inode else {
            throw StoreError.fileLost(
                "the database file \(file.path) was replaced by another file while the server runs")
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
