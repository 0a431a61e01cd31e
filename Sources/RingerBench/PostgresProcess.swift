import Foundation
import SocketSupport

/// A throw-away PostgreSQL 15 for the cluster part of `ringer-lab bench`: `initdb` into a fresh temporary folder
/// (trust authentication, user `postgres`), then `postgres -D …` as a child process listening on 127.0.0.1 on a
/// free port, and one fresh database per set-up from ``makeDatabase(_:)``. Durability is PostgreSQL's default
/// (`fsync` and `synchronous_commit` on), as an operator runs it, so commits cost what they cost in production
/// on this disk.
///
/// PostgreSQL refuses to run as root: then the folder is handed to the `postgres` user (Debian's package makes
/// it) and `initdb` and `postgres` run through `setpriv` (which execs, so the child is the postmaster) or
/// `runuser`. The postmaster's pid comes from its `postmaster.pid`, whichever wrapper started it.
struct PostgresProcess: Sendable {
    /// Where Debian's `postgresql-15` package puts the programs.
    static let binDirectory = "/usr/lib/postgresql/15/bin"

    let process: SpawnedProcess
    /// The port on 127.0.0.1.
    let port: Int
    /// The postmaster's pid (its backends are its children: ``ProcessTreeCPU``).
    let postmaster: pid_t
    private let folder: URL

    /// Runs `initdb` and starts the server; waits until it accepts connections.
    /// - Parameter directory: where its logs go (the fixture folder).
    /// - Throws: ``BenchmarkError`` when PostgreSQL 15 is missing, running as root without a `postgres` user,
    ///   `initdb` fails, or the server does not accept connections within 30 s (with the end of its log).
    static func start(logsIn directory: URL) async throws -> PostgresProcess {
        for tool in ["initdb", "postgres", "createdb", "psql"]
        where !FileManager.default.isExecutableFile(atPath: "\(binDirectory)/\(tool)") {
            throw BenchmarkError.setup(
                "PostgreSQL 15 is not installed (\(binDirectory)/\(tool) is missing): run `make deps`")
        }
        let prefix = try userPrefix()
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("ringer-bench-postgres-\(UUID().uuidString)", isDirectory: true)
        let data = folder.appendingPathComponent("data", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            if geteuid() == 0, let user = getpwnam("postgres"),
                chown(folder.path, user.pointee.pw_uid, user.pointee.pw_gid) != 0
            {
                throw BenchmarkError.setup("chown postgres \(folder.path) failed: errno \(errno)")
            }
            let initdb = try SpawnedProcess(
                prefix + [
                    "\(binDirectory)/initdb", "-D", data.path, "--auth=trust", "--username=postgres",
                    "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions",
                ],
                standardOutput: directory.appendingPathComponent("initdb.out"),
                standardError: directory.appendingPathComponent("initdb.err"))
            let exit = await initdb.finish(within: .seconds(60))
            guard exit.status == 0 else {
                throw BenchmarkError.setup("initdb exited with status \(exit.status): \(initdb.standardErrorTail())")
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        let port: Int
        let process: SpawnedProcess
        do {
            port = try LoopbackPort.free()
            process = try SpawnedProcess(
                prefix + [
                    "\(binDirectory)/postgres", "-D", data.path, "-c", "listen_addresses=127.0.0.1",
                    "-c", "port=\(port)", "-c", "unix_socket_directories=\(folder.path)",
                    "-c", "max_connections=100", "-c", "logging_collector=off",
                ],
                standardOutput: directory.appendingPathComponent("postgres.out"),
                standardError: directory.appendingPathComponent("postgres.log"))
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        do {
            _ = try await process.awaitOutput(
                in: process.standardError, within: .seconds(30), what: "accept connections"
            ) {
                $0.contains("database system is ready to accept connections") ? true : nil
            }
            let pidFile =
                (try? String(contentsOf: data.appendingPathComponent("postmaster.pid"), encoding: .utf8)) ?? ""
            guard let postmaster = pidFile.split(separator: "\n").first.flatMap({ pid_t($0) }) else {
                throw BenchmarkError.setup("cannot read the postmaster's pid in \(data.path)/postmaster.pid")
            }
            return PostgresProcess(process: process, port: port, postmaster: postmaster, folder: folder)
        } catch {
            process.send(SIGKILL)
            _ = await process.finish(within: .seconds(5))
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Creates an empty database (`createdb`, a copy of `template1`).
    /// - Parameters:
    ///   - name: letters, digits and `_`.
    ///   - directory: where `createdb`'s output goes.
    /// - Returns: `postgres://postgres@127.0.0.1:<port>/<name>`.
    /// - Throws: ``BenchmarkError/setup(_:)`` with `createdb`'s stderr when it fails.
    func makeDatabase(_ name: String, logsIn directory: URL) async throws -> String {
        let createdb = try SpawnedProcess(
            ["\(Self.binDirectory)/createdb", "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-w", name],
            standardOutput: directory.appendingPathComponent("createdb.out"),
            standardError: directory.appendingPathComponent("createdb.err"))
        let exit = await createdb.finish(within: .seconds(30))
        guard exit.status == 0 else {
            throw BenchmarkError.setup(
                "createdb \(name) exited with status \(exit.status): \(createdb.standardErrorTail())")
        }
        return "postgres://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// Reads the server's next transaction id and WAL position (``StoreCounters/postgresQuery``) with `psql`.
    /// - Parameters:
    ///   - name: the database.
    ///   - directory: where `psql`'s output goes.
    /// - Returns: the counters; nil when `psql` fails (the figures are then left out, not the run).
    func counters(database name: String, logsIn directory: URL) async -> (writeTransactions: Int, walBytes: Double)? {
        guard
            let psql = try? SpawnedProcess(
                [
                    "\(Self.binDirectory)/psql", "-X", "-w", "-q", "-A", "-t", "-h", "127.0.0.1", "-p", String(port),
                    "-U", "postgres",
                    "-d", name, "-c", StoreCounters.postgresQuery,
                ],
                standardOutput: directory.appendingPathComponent("psql.out"),
                standardError: directory.appendingPathComponent("psql.err"))
        else { return nil }
        guard await psql.finish(within: .seconds(10)).status == 0 else { return nil }
        return StoreCounters.parsePostgres((try? String(contentsOf: psql.standardOutput, encoding: .utf8)) ?? "")
    }

    /// CPU seconds the postmaster and its backends have used so far; nil once it has ended.
    func cpuSecondsSoFar() -> Double? { ProcessTreeCPU.secondsSoFar(pid: postmaster) }

    /// - Throws: ``BenchmarkError/sender(_:_:)`` if the server has died.
    func checkRunning() throws {
        if let exit = process.exitIfEnded {
            throw BenchmarkError.sender("postgres", "died with status \(exit.status): \(process.standardErrorTail())")
        }
    }

    /// Fast shutdown (SIGINT to the postmaster: ends every session, no wait for clients), SIGKILL after
    /// 15 s; then deletes the folder.
    func stop() async {
        if process.exitIfEnded == nil { kill(postmaster, SIGINT) }
        _ = await process.finish(within: .seconds(15))
        try? FileManager.default.removeItem(at: folder)
    }

    /// How to run a program as `postgres` when this process is root; empty otherwise.
    private static func userPrefix() throws -> [String] {
        guard geteuid() == 0 else { return [] }
        guard getpwnam("postgres") != nil else {
            throw BenchmarkError.setup(
                "running as root, which PostgreSQL refuses, and there is no user postgres: run `make deps`")
        }
        let files = FileManager.default
        if let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first(where: files.isExecutableFile(atPath:)) {
            return [setpriv, "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]
        }
        if let runuser = ["/usr/sbin/runuser", "/sbin/runuser"].first(where: files.isExecutableFile(atPath:)) {
            return [runuser, "-u", "postgres", "--"]
        }
        throw BenchmarkError.setup(
            "running as root, and neither setpriv nor runuser is installed: apt-get install -y util-linux")
    }
}
