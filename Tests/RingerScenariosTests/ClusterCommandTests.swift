import Foundation
#if canImport(Glibc)
import Glibc
#endif
import RingerScenarios
import RingerTestSupport
import Testing

/// `ringer scenario --nodes` and `ringer explore --nodes` as a user runs them, the built `ringer` a child process:
/// what a run stopped from outside leaves behind (nothing), and how bad cluster settings are refused. Starts
/// `ringer serve` nodes on the test PostgreSQL and a Redis of its own; serial, and run beside the spec suite in
/// `make test`, out of the parallel run. Budget: about 40 s.
@Suite(.serialized) struct ClusterCommandTests {
    /// `ringer_run_…` databases on the test PostgreSQL now.
    private static func scratchDatabases(_ postgres: PostgresServer) async throws -> Set<String> {
        let rows = try await postgres.psql("select datname from pg_database where datname like 'ringer_run_%'",
                                           on: postgres.url(database: "postgres"))
        return Set(rows.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    /// Pids of the live (not zombie) processes whose parent is `parent`, from /proc/<pid>/stat.
    private static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let fields = statFields(pid) else { return false }
            return fields.count > 1 && fields[0] != "Z" && Int32(fields[1]) == parent
        }
    }

    /// Whether `pid` still runs (a zombie does not count).
    private static func isAlive(_ pid: pid_t) -> Bool {
        guard let fields = statFields(pid) else { return false }
        return fields.first != "Z"
    }

    /// The fields of /proc/<pid>/stat after the command name: state, ppid, …
    private static func statFields(_ pid: pid_t) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// Starts `ringer scenario --nodes 2` on a cluster file (30 scenario s at scale 1, so it is mid-run), waits until
    /// both nodes serve, sends `signal` to the `ringer scenario` process alone (as `kill`, a CI job's timeout or
    /// `timeout(1)` does), and returns what outlived it, cleaning that up.
    /// - Returns: the exit status, the nodes still alive 15 s after the command ended, the databases it left.
    private static func stopMidRun(with signal: Int32) async throws -> (status: Int32?, nodes: [pid_t], databases: Set<String>) {
        let postgres = try await PostgresServer.shared()
        let redis = try RedisServer()
        let before = try await scratchDatabases(postgres)
        let process = Process()
        process.executableURL = try BuiltRinger.url()
        process.arguments = ["scenario", "--nodes", "2", "--time-scale", "1",
                             ScenarioFolder.file("cluster/41_answered_call_outlives_the_callees_node.json")]
        // The URLs from the environment, as an operator keeps a password out of `ps`.
        process.environment = ProcessInfo.processInfo.environment.merging([
            "RINGER_SCENARIO_DATABASE": postgres.url(database: "postgres"), "RINGER_SCENARIO_REDIS": redis.url]) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let parent = process.processIdentifier
        var nodes: [pid_t] = []
        let started = await eventually(within: 30) {
            nodes = children(of: parent)
            return nodes.count >= 2
        }
        #expect(started, "ringer scenario never started its two nodes")
        // Both nodes healthy and the time line running.
        try await Task.sleep(for: .seconds(3))
        kill(parent, signal)
        let ended = await eventually(within: 20) { !process.isRunning }
        #expect(ended, "ringer scenario did not end on signal \(signal)")
        if !ended { kill(parent, SIGKILL) }
        process.waitUntilExit()
        let status: Int32? = ended && process.terminationReason == .exit ? process.terminationStatus : nil

        let left = await eventually(within: 15) { nodes.allSatisfy { !isAlive($0) } } ? [] : nodes.filter(isAlive)
        let databases = try await scratchDatabases(postgres).subtracting(before)
        for pid in left { kill(pid, SIGKILL) }
        for name in databases {
            _ = try? await postgres.psql("drop database if exists \(name) with (force)", on: postgres.url(database: "postgres"))
        }
        withExtendedLifetime(redis) {}
        return (status, left, databases)
    }

    @Test func aScenarioRunEndedBySIGTERMStopsItsNodesAndDropsItsDatabase() async throws {
        let (status, nodes, databases) = try await Self.stopMidRun(with: SIGTERM)
        #expect(status == 143, "exit status 128 + SIGTERM")
        #expect(nodes.isEmpty, "ringer serve node(s) \(nodes) outlived ringer scenario stopped by SIGTERM")
        #expect(databases.isEmpty, "database(s) \(databases.sorted()) outlived ringer scenario stopped by SIGTERM")
    }

    @Test func aScenarioRunEndedBySIGINTStopsItsNodesAndDropsItsDatabase() async throws {
        let (status, nodes, databases) = try await Self.stopMidRun(with: SIGINT)
        #expect(status == 130, "exit status 128 + SIGINT")
        #expect(nodes.isEmpty, "ringer serve node(s) \(nodes) outlived ringer scenario stopped by SIGINT")
        #expect(databases.isEmpty, "database(s) \(databases.sorted()) outlived ringer scenario stopped by SIGINT")
    }

    /// `SIGKILL` cannot be caught: the database stays (the test drops it), but the nodes see their parent go
    /// (`--test-parent-pid`) and drain and exit on their own.
    @Test func theNodesOfAScenarioRunKilledWithSIGKILLEndThemselves() async throws {
        let (_, nodes, _) = try await Self.stopMidRun(with: SIGKILL)
        #expect(nodes.isEmpty, "ringer serve node(s) \(nodes) outlived ringer scenario killed by SIGKILL")
    }

    /// A Redis that cannot be reached is named at once (exit 2), before any node waits its start timeout for it.
    @Test func aClusterRunOnARedisThatCannotBeReachedIsRefusedAtOnce() async throws {
        let postgres = try await PostgresServer.shared()
        let closed = try ClosedPort.freePort()
        let began = ContinuousClock.now
        let refused = try await ChildProcess.run([try BuiltRinger.url().path, "explore", "--nodes", "2",
                                                  "--database", postgres.url(database: "postgres"),
                                                  "--redis", "redis://127.0.0.1:\(closed)"], timeout: 60)
        #expect(refused.status == 2, "\(refused.standardOutput)\(refused.standardError)")
        #expect(refused.standardError.contains("cannot connect to Redis at 127.0.0.1:\(closed)"), "\(refused.standardError)")
        #expect(ContinuousClock.now - began < .seconds(10))
    }

    @Test(arguments: [
        (["--nodes", "2", "--database", "postgres://127.0.0.1/postgres", "--redis", "redis://"], "no host"),
        (["--nodes", "2", "--database", "postgres://127.0.0.1/postgres", "--redis", "rediss://example.com"], "rediss://"),
        (["--nodes", "2", "--database", "postgres://127.0.0.1/postgres"], "--nodes needs --database"),
        (["--nodes", "2", "--database", "mysql://127.0.0.1/postgres", "--redis", "redis://127.0.0.1"], "--database needs a postgres://"),
        (["--database", "postgres://127.0.0.1/postgres", "--redis", "redis://127.0.0.1"], "go with --nodes"),
    ])
    func badClusterSettingsAreRefusedNamingTheSetting(_ flags: [String], _ said: String) async throws {
        for command in ["scenario", "explore"] {
            let tail = command == "scenario" ? [ScenarioFolder.file("cluster/41_answered_call_outlives_the_callees_node.json")] : []
            // Without the test's own settings in the environment, which would stand in for a missing flag.
            let refused = try await ChildProcess.run(["-u", "RINGER_SCENARIO_DATABASE", "-u", "RINGER_SCENARIO_REDIS",
                                                      try BuiltRinger.url().path, command] + flags + tail, timeout: 60)
            #expect(refused.status == 2, "\(command) \(flags): \(refused.standardOutput)\(refused.standardError)")
            #expect(refused.standardError.contains(said), "\(command) \(flags): \(refused.standardError)")
        }
    }
}
