public import Foundation
import RingerSupport

/// A throw-away PostgreSQL 15 server for tests and the benchmark: a fresh cluster in a temporary folder,
/// listening on 127.0.0.1 on a free port. Clients authenticate as `postgres` with `trust`. For tests, durability
/// is turned off for speed (`fsync`, `synchronous_commit`, `full_page_writes` off) and it takes 200 connections;
/// `ringer-lab bench` starts it ``Durability/asDeployed``, so commits cost what they cost in production.
///
/// Tests share one server per test process, ``shared()``, and each takes its own database from
/// ``makeDatabase(timeout:)``. Tests that stop and start the server (database lost, database back) make their
/// own with ``start(binDirectory:port:durability:timeout:)`` and ``remove()`` it at the end.
///
/// PostgreSQL refuses to run as root, and CI runs as root: then the folder belongs to the `postgres` user and
/// `initdb` and `pg_ctl` run through `runuser -u postgres --` (or `setpriv`). The server is stopped
/// (`pg_ctl stop -m immediate`) and its folder deleted when the test process ends, even when it is killed, by
/// an ``ExitWatcher``. Every wait is bounded; every failure throws a ``PostgresServerError`` that says what
/// failed, how to fix it, and quotes the end of the server's log.
///
/// Thread-safe; ``stop(immediately:timeout:)``, ``start(timeout:)`` and ``remove()`` are meant to be called
/// one at a time by the test that owns the server.
public final class PostgresServer: Sendable {
    /// Where Debian's `postgresql-15` package puts `initdb`, `pg_ctl`, `postgres`, `createdb` and `psql`.
    public static let defaultBinDirectory = URL(fileURLWithPath: "/usr/lib/postgresql/15/bin", isDirectory: true)

    /// The TCP port on 127.0.0.1; the same across ``stop(immediately:timeout:)`` and ``start(timeout:)``.
    public let port: Int
    /// The directory holding the PostgreSQL programs this server runs.
    public let binDirectory: URL
    /// The server's log (`pg_ctl -l`), quoted in errors.
    public let logFile: URL

    private let folder: URL
    private let dataDirectory: URL
    private let identity: Identity
    private let watcher: ExitWatcher
    private let running: LockedValue<Bool>
    /// The processes ``freeze()`` stopped, until ``thaw()`` resumes them.
    private let frozen: LockedValue<[pid_t]>
    private let durability: Durability

    /// How much a commit costs.
    public enum Durability: Sendable {
        /// `fsync`, `synchronous_commit` and `full_page_writes` off, 32 MB of shared buffers, 200 connections:
        /// tests, which lose nothing when the machine crashes.
        case throwAway
        /// PostgreSQL's defaults (every commit flushed to disk), 100 connections: as an operator runs it, for
        /// measurements.
        case asDeployed
    }

    private init(
        port: Int, binDirectory: URL, folder: URL, identity: Identity, watcher: ExitWatcher, durability: Durability
    ) {
        self.durability = durability
        self.port = port
        self.binDirectory = binDirectory
        self.folder = folder
        dataDirectory = folder.appendingPathComponent("data", isDirectory: true)
        logFile = folder.appendingPathComponent("server.log")
        self.identity = identity
        self.watcher = watcher
        running = LockedValue(false)
        frozen = LockedValue([])
    }

    // MARK: The shared server

    private static let sharedStart = LockedValue<Task<PostgresServer, any Error>?>(nil)

    /// The test process's one server, started on first use (a second or two) and shared by every test after.
    /// Do not stop it: tests that need a server going away make their own.
    /// - Returns: The running server.
    /// - Throws: ``PostgresServerError`` when it cannot start; later calls throw the same error at once.
    public static func shared() async throws -> PostgresServer {
        let task = sharedStart.withLock { task in
            if let task { return task }
            let started = Task { try await start() }
            task = started
            return started
        }
        return try await task.value
    }

    // MARK: Life cycle

    /// Creates and starts a server of its own in a fresh temporary folder.
    /// - Parameters:
    ///   - binDirectory: Where `initdb`, `pg_ctl`, `postgres`, `createdb` and `psql` are.
    ///   - port: The port on 127.0.0.1, or nil for a free one (if another process takes it before
    ///     PostgreSQL binds it, a new one is picked, up to three times).
    ///   - durability: What a commit costs: ``Durability/throwAway`` for tests.
    ///   - timeout: Seconds each step (`initdb`, `pg_ctl start`) may take.
    /// - Returns: The running server.
    /// - Throws: ``PostgresServerError``: `.notInstalled`, `.cannotDropRoot`, `.folder`, `.initdbFailed`,
    ///   `.portTaken` (only for a given `port`) or `.startFailed`. Nothing is left behind.
    public static func start(
        binDirectory: URL = defaultBinDirectory, port: Int? = nil, durability: Durability = .throwAway,
        timeout: Double = 30
    ) async throws -> PostgresServer {
        for tool in ["initdb", "pg_ctl", "postgres", "createdb", "psql"] {
            let path = binDirectory.appendingPathComponent(tool).path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw PostgresServerError(
                    .notInstalled, "PostgreSQL 15 is not installed: \(path) is missing",
                    fix: "run `make deps` (or `apt-get install -y postgresql-15`)")
            }
        }
        let identity = try Identity.current()
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("ringer-postgres-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try identity.hand(folder)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw PostgresServerError(
                .folder, "cannot prepare \(folder.path): \(error)",
                fix: "make the temporary directory (TMPDIR) writable")
        }
        let dataDirectory = folder.appendingPathComponent("data", isDirectory: true)
        let pgCtl = binDirectory.appendingPathComponent("pg_ctl").path
        // Runs after this process is gone; `$1` is the folder, the rest the stop command.
        let watcher: ExitWatcher
        do {
            watcher = try ExitWatcher.start(
                #"folder=$1; shift; "$@" >/dev/null 2>&1; rm -rf "$folder""#,
                arguments: [folder.path]
                    + identity.command(
                        pgCtl, ["stop", "-D", dataDirectory.path, "-m", "immediate", "-w", "-t", "10"]))
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw PostgresServerError(.folder, "cannot start the clean-up watcher: \(error)")
        }

        do {
            try await initialize(
                binDirectory: binDirectory, dataDirectory: dataDirectory, folder: folder,
                identity: identity, timeout: timeout)
            var attempt = 0
            while true {
                attempt += 1
                let chosen = try port ?? FixturePort.free()
                let server = PostgresServer(
                    port: chosen, binDirectory: binDirectory, folder: folder, identity: identity,
                    watcher: watcher, durability: durability)
                do {
                    try server.writeSettings()
                    try await server.pgCtlStart(timeout: timeout)
                    return server
                } catch let error as PostgresServerError where error.reason == .portTaken && port == nil && attempt < 3
                {
                    continue
                }
            }
        } catch {
            watcher.cancel()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Stops the server, keeping its data for ``start(timeout:)``; returns at once if it is not running.
    /// - Parameters:
    ///   - immediately: `pg_ctl -m immediate` (like a crash: no checkpoint, recovery at the next start)
    ///     instead of `-m fast` (a clean shutdown). Both end every client connection.
    ///   - timeout: Seconds to wait for the server to be gone.
    /// - Throws: ``PostgresServerError`` `.stopFailed`, with the end of the log.
    public func stop(immediately: Bool = false, timeout: Double = 30) async throws {
        guard running.snapshot else { return }
        // A stopped postmaster would never see pg_ctl's signal.
        thaw()
        let arguments = [
            "stop", "-D", dataDirectory.path, "-m", immediately ? "immediate" : "fast", "-w",
            "-t", String(Int(timeout.rounded(.up))), "-s",
        ]
        let outcome = try await runTool("pg_ctl", arguments, timeout: timeout + 10, failure: .stopFailed)
        guard outcome.status == 0 else {
            throw PostgresServerError(
                .stopFailed, "pg_ctl stop exited with \(outcome.status)",
                log: outcome.standardError + "\n" + logTail())
        }
        running.withLock { $0 = false }
    }

    /// Starts the server again after ``stop(immediately:timeout:)``, on the same port with the same data;
    /// returns at once if it is running.
    /// - Parameter timeout: Seconds to wait for it to accept connections.
    /// - Throws: ``PostgresServerError`` `.portTaken` when another process took the port meanwhile, else
    ///   `.startFailed`.
    public func start(timeout: Double = 30) async throws {
        guard !running.snapshot else { return }
        try await pgCtlStart(timeout: timeout)
    }

    /// Stops the server at once (`-m immediate`), deletes its folder and ends its watcher. The server cannot
    /// be used afterwards. Never throws: it is clean-up.
    public func remove() async {
        thaw()
        if running.snapshot { try? await stop(immediately: true, timeout: 10) }
        watcher.cancel()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Whether the server was started and not stopped since, as far as this object knows.
    public var isRunning: Bool { running.snapshot }

    // MARK: Freezing

    /// Freezes the server as a hung database host looks to its clients (a stalled disk, a paused VM): `SIGSTOP`
    /// to the postmaster first, so it forks no new backend, then to each of its children (every backend and
    /// auxiliary process). Open TCP connections stay up and the kernel still completes new connections into the
    /// listen backlog, but nothing answers: no error, no reset, no close. ``thaw()`` resumes it; ``stop(immediately:timeout:)``
    /// and ``remove()`` thaw first.
    /// - Returns: The process ids stopped, the postmaster's first.
    /// - Throws: ``PostgresServerError`` `.freezeFailed` when the server is not running, its `postmaster.pid`
    ///   cannot be read, or `kill` fails (what was stopped is resumed first).
    @discardableResult
    public func freeze() throws -> [pid_t] {
        guard running.snapshot else {
            throw PostgresServerError(.freezeFailed, "the server on port \(port) is not running")
        }
        guard let postmaster = postmasterPID else {
            throw PostgresServerError(
                .freezeFailed,
                "cannot read the postmaster's process id from \(dataDirectory.path)/postmaster.pid")
        }
        var stopped: [pid_t] = []
        func stop(_ pid: pid_t) throws {
            guard kill(pid, SIGSTOP) == 0 else {
                let code = errno
                for done in stopped { kill(done, SIGCONT) }
                throw PostgresServerError(.freezeFailed, "kill -STOP \(pid) failed: \(String(cString: strerror(code)))")
            }
            stopped.append(pid)
        }
        try stop(postmaster)
        for child in Self.children(of: postmaster) { try stop(child) }
        frozen.withLock { $0 += stopped }
        return stopped
    }

    /// The postmaster's process id (its backends are its children), from the first line of `postmaster.pid`
    /// (PostgreSQL: "Database File Layout"); nil when the server is not running or the file cannot be read.
    public var postmasterPID: pid_t? {
        guard
            let text = try? String(contentsOf: dataDirectory.appendingPathComponent("postmaster.pid"), encoding: .utf8),
            let line = text.split(separator: "\n").first
        else { return nil }
        return pid_t(line.trimmingCharacters(in: .whitespaces))
    }

    /// Whether the postmaster still runs: `pg_ctl` leaves it in a session of its own, not a child of this
    /// process, so its end is seen only by asking (`kill -0`; EPERM means it runs as `postgres`).
    public var postmasterIsAlive: Bool {
        guard let pid = postmasterPID else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// Resumes what ``freeze()`` stopped (`SIGCONT`); nothing when it is not frozen. Never throws: a process
    /// that is gone needs no resuming.
    public func thaw() {
        for pid in frozen.withLock({ pids in
            defer { pids = [] }
            return pids
        }) { kill(pid, SIGCONT) }
    }

    /// The processes whose parent is `parent`, from `/proc/<pid>/stat` (its fourth field, after the command
    /// name in parentheses, which may itself hold spaces and parentheses: proc(5)).
    private static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == parent ? pid : nil
        }
    }

    // MARK: Databases

    /// The connection URL of a database on this server.
    /// - Parameter database: The database name (letters, digits, `_`).
    /// - Returns: `postgres://postgres@127.0.0.1:<port>/<database>`.
    public func url(database: String) -> String {
        "postgres://postgres@127.0.0.1:\(port)/\(database)"
    }

    /// Creates a fresh, empty database for one test (`createdb`, a copy of `template1`).
    /// - Parameter timeout: Seconds `createdb` may take.
    /// - Returns: Its URL, ``url(database:)`` of a name like `test_3f2a…` (37 characters).
    /// - Throws: ``PostgresServerError`` `.clientFailed`, with `createdb`'s output and the end of the log.
    public func makeDatabase(timeout: Double = 30) async throws -> String {
        try await makeDatabase(
            named: "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""), timeout: timeout)
    }

    /// Creates an empty database of a given name (`createdb`, a copy of `template1`).
    /// - Parameters:
    ///   - name: letters, digits and `_`, not yet used on this server.
    ///   - timeout: Seconds `createdb` may take.
    /// - Returns: Its URL, ``url(database:)``.
    /// - Throws: ``PostgresServerError`` `.clientFailed`, with `createdb`'s output and the end of the log.
    public func makeDatabase(named name: String, timeout: Double = 30) async throws -> String {
        let outcome = try await runTool(
            "createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-w", name],
            asServer: false, timeout: timeout, failure: .clientFailed)
        guard outcome.status == 0 else {
            throw PostgresServerError(
                .clientFailed, "createdb \(name) on 127.0.0.1:\(port) exited with \(outcome.status)",
                log: outcome.standardError + "\n" + logTail())
        }
        return url(database: name)
    }

    /// Runs SQL through `psql` (no `.psqlrc`, stop at the first error, unaligned tuples only).
    /// - Parameters:
    ///   - sql: One or more statements.
    ///   - databaseURL: A URL from ``makeDatabase(timeout:)`` or ``url(database:)``.
    ///   - timeout: Seconds `psql` may take.
    /// - Returns: What `psql -A -t` printed: one line per row, columns separated by `|`.
    /// - Throws: ``PostgresServerError`` `.clientFailed`, with `psql`'s stderr (the server's error message).
    public func psql(_ sql: String, on databaseURL: String, timeout: Double = 30) async throws -> String {
        let arguments = ["-X", "-w", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", databaseURL, "-c", sql]
        let outcome = try await runTool("psql", arguments, asServer: false, timeout: timeout, failure: .clientFailed)
        guard outcome.status == 0 else {
            throw PostgresServerError(
                .clientFailed, "psql on \(databaseURL) exited with \(outcome.status)",
                log: outcome.standardError)
        }
        return outcome.standardOutput
    }

    /// The last lines of the server's log, for messages.
    /// - Parameter count: How many lines.
    /// - Returns: Up to `count` non-blank lines; empty when there is no log yet.
    public func logTail(lines count: Int = 20) -> String {
        PostgresServerError.tail(
            String(decoding: (try? Data(contentsOf: logFile)) ?? Data(), as: UTF8.self),
            lines: count)
    }

    // MARK: Steps

    /// `initdb` with trust authentication, user `postgres`, UTF-8 in the C locale, and no fsync.
    private static func initialize(
        binDirectory: URL, dataDirectory: URL, folder: URL, identity: Identity,
        timeout: Double
    ) async throws {
        let arguments = [
            "-D", dataDirectory.path, "--auth=trust", "--username=postgres", "--encoding=UTF8",
            "--locale=C", "--no-sync", "--no-instructions",
        ]
        let command = identity.command(binDirectory.appendingPathComponent("initdb").path, arguments)
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(command, in: folder, timeout: timeout)
        } catch {
            throw PostgresServerError(.initdbFailed, "initdb in \(dataDirectory.path) did not finish: \(error)")
        }
        guard outcome.status == 0 else {
            let fix =
                identity.isRoot
                ? "initdb runs as user postgres, which must be able to enter every parent of \(folder.path) (TMPDIR)"
                : nil
            throw PostgresServerError(
                .initdbFailed, "initdb in \(dataDirectory.path) exited with \(outcome.status)",
                fix: fix, log: outcome.standardError + "\n" + outcome.standardOutput)
        }
    }

    /// Writes this server's settings to `data/ringer-test.conf`, which `postgresql.conf` includes (last, so
    /// they win). Rewritten, not appended, when a start is retried on another port.
    private func writeSettings() throws {
        var settings = """
            listen_addresses = '127.0.0.1'
            port = \(port)
            unix_socket_directories = '\(folder.path)'
            logging_collector = off

            """
        switch durability {
        case .throwAway:
            settings += """
                max_connections = 200
                shared_buffers = 32MB
                fsync = off
                synchronous_commit = off
                full_page_writes = off

                """
        case .asDeployed:
            settings += "max_connections = 100\n"
        }
        let include = dataDirectory.appendingPathComponent("postgresql.conf")
        do {
            try settings.write(
                to: dataDirectory.appendingPathComponent("ringer-test.conf"), atomically: false,
                encoding: .utf8)
            let conf = try String(contentsOf: include, encoding: .utf8)
            if !conf.contains("include 'ringer-test.conf'") {
                let handle = try FileHandle(forWritingTo: include)
                defer { try? handle.close() }
                try handle.seekToEnd()
                try handle.write(contentsOf: Data("\ninclude 'ringer-test.conf'\n".utf8))
            }
        } catch {
            throw PostgresServerError(.folder, "cannot write the settings in \(dataDirectory.path): \(error)")
        }
    }

    /// `pg_ctl start -w`: returns once the server accepts connections.
    private func pgCtlStart(timeout: Double) async throws {
        let arguments = [
            "start", "-D", dataDirectory.path, "-l", logFile.path, "-w",
            "-t", String(Int(timeout.rounded(.up))), "-s",
        ]
        let outcome = try await runTool("pg_ctl", arguments, timeout: timeout + 10, failure: .startFailed)
        guard outcome.status == 0 else {
            let log = logTail()
            if log.contains("Address already in use") {
                throw PostgresServerError(
                    .portTaken, "port \(port) on 127.0.0.1 is taken by another process",
                    fix: "stop that process, or let the fixture pick a free port", log: log)
            }
            // A server still starting when pg_ctl gave up must not run on unseen.
            _ = try? await runTool(
                "pg_ctl", ["stop", "-D", dataDirectory.path, "-m", "immediate", "-w", "-t", "10"],
                timeout: 20, failure: .stopFailed)
            throw PostgresServerError(
                .startFailed,
                "PostgreSQL did not start on 127.0.0.1:\(port) within \(timeout) s "
                    + "(pg_ctl exited with \(outcome.status); log \(logFile.path))",
                log: outcome.standardError + "\n" + outcome.standardOutput + "\n" + log)
        }
        running.withLock { $0 = true }
    }

    /// Runs a tool from the bin directory, as the server's user (`asServer`) or as this process's user
    /// (clients, which log in over TCP). The postmaster that `pg_ctl start` leaves running inherits none of this
    /// process's descriptors (``ChildProcess`` closes them), so it holds no test's socket or pipe open.
    private func runTool(
        _ tool: String, _ arguments: [String], asServer: Bool = true, timeout: Double,
        failure: PostgresServerError.Reason
    ) async throws -> ChildProcess.Outcome {
        let path = binDirectory.appendingPathComponent(tool).path
        let command = asServer ? identity.command(path, arguments) : [path] + arguments
        do {
            return try await ChildProcess.run(command, in: folder, timeout: timeout)
        } catch {
            throw PostgresServerError(
                failure, "\(tool) \(arguments.first ?? "") did not finish: \(error)", log: logTail())
        }
    }
}

extension PostgresServer {
    /// Who runs `initdb` and `pg_ctl`: this process's user, or `postgres` when this process is root.
    struct Identity: Sendable {
        /// `runuser -u postgres --` or `setpriv …`, empty when not root.
        let prefix: [String]
        let owner: (uid: uid_t, gid: gid_t)?

        var isRoot: Bool { owner != nil }

        static func current() throws -> Identity {
            guard geteuid() == 0 else { return Identity(prefix: [], owner: nil) }
            guard let entry = getpwnam("postgres") else {
                throw PostgresServerError(
                    .cannotDropRoot,
                    "running as root, and PostgreSQL refuses root, but there is no user postgres",
                    fix: "run `make deps` (the postgresql-15 package creates the user)")
            }
            let owner = (uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
            let fileManager = FileManager.default
            if let runuser = ["/usr/sbin/runuser", "/sbin/runuser"].first(where: fileManager.isExecutableFile(atPath:))
            {
                return Identity(prefix: [runuser, "-u", "postgres", "--"], owner: owner)
            }
            if let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first(where: fileManager.isExecutableFile(atPath:)) {
                return Identity(
                    prefix: [setpriv, "--reuid=postgres", "--regid=postgres", "--init-groups", "--"],
                    owner: owner)
            }
            throw PostgresServerError(
                .cannotDropRoot, "running as root, and neither runuser nor setpriv is installed",
                fix: "apt-get install -y util-linux")
        }

        /// `tool arguments`, run as the server's user.
        func command(_ tool: String, _ arguments: [String]) -> [String] {
            prefix + [tool] + arguments
        }

        /// Makes `folder` the server user's (a no-op when not root).
        func hand(_ folder: URL) throws {
            guard let owner else { return }
            guard chown(folder.path, owner.uid, owner.gid) == 0 else {
                throw PostgresServerError(.folder, "chown postgres \(folder.path) failed with errno \(errno)")
            }
        }
    }
}
