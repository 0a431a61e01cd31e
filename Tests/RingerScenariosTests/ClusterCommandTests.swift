import Foundation
import RingerScenarios
import RingerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `ringer-lab scenario --nodes` and `ringer-lab explore --nodes` as a user runs them, the built `ringer` a child process:
/// what a run stopped from outside leaves behind (nothing), and how bad cluster settings are refused. Starts
/// `ringer serve` nodes on a PostgreSQL and a Redis of its own; serial, and run beside the spec suite in
/// `make test`, out of the parallel run. Budget: about 40 s.
@Suite(.serialized) struct ClusterCommandTests {
    /// A PostgreSQL of this suite's own, started on first use: the databases a command leaves are counted (and
    /// dropped) on it, where other suites' cluster runs on the shared server neither add to them nor lose theirs.
    private static let postgresStart = Task { try await PostgresServer.start() }

    private static func postgres() async throws -> PostgresServer { try await postgresStart.value }

    /// `ringer_run_…` databases on the suite's PostgreSQL now.
    private static func scratchDatabases(_ postgres: PostgresServer) async throws -> Set<String> {
        let rows = try await postgres.psql(
            "select datname from pg_database where datname like 'ringer_run_%'",
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
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// What a stopped command left: its exit status (nil if a signal ended it), what it printed, the nodes still alive
    /// 15 s after it ended, its temporary folders and the databases it left. All of it is cleaned up before return.
    private struct Leftovers {
        var status: Int32?
        var output: String
        var nodes: [pid_t]
        var folders: [String]
        var databases: Set<String>
    }

    /// Starts `ringer <arguments> --nodes 2` on the suite's PostgreSQL and a Redis of its own (the URLs in the
    /// environment, as an operator keeps a password out of `ps`; its temporary folder in a folder of this test's),
    /// waits until `ready` says so of its node processes, sends `signals` to the command alone (as `kill`, a CI job's
    /// timeout or `timeout(1)` does), `between` apart, and returns what outlived it.
    private static func stop(
        _ arguments: [String], with signals: [Int32], between: Duration = .zero,
        when ready: @escaping ([pid_t]) -> Bool = { $0.count >= 2 }, settle: Duration = .seconds(3),
        beforeSignals: ([pid_t]) -> Void = { _ in }
    ) async throws -> Leftovers {
        let postgres = try await Self.postgres()
        let redis = try RedisServer()
        let before = try await scratchDatabases(postgres)
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-command-\(UUID().uuidString)")
        let temporary = scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let output = scratch.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let outputHandle = try FileHandle(forWritingTo: output)
        defer { try? outputHandle.close() }

        let process = Process()
        process.executableURL = try BuiltRinger.lab()
        process.arguments = arguments + ["--nodes", "2"]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "RINGER_SCENARIO_DATABASE": postgres.url(database: "postgres"), "RINGER_SCENARIO_REDIS": redis.url,
            "TMPDIR": temporary.path,
        ]) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outputHandle
        process.standardError = outputHandle
        try process.run()
        let parent = process.processIdentifier
        var nodes: [pid_t] = []
        let started = await eventually(within: 30) {
            nodes = children(of: parent)
            return ready(nodes)
        }
        #expect(started, "ringer \(arguments[0]) never started its nodes")
        try await Task.sleep(for: settle)
        beforeSignals(nodes)
        for (index, signal) in signals.enumerated() {
            if index > 0 { try await Task.sleep(for: between) }
            kill(parent, signal)
        }
        let ended = await eventually(within: 20) { !process.isRunning }
        #expect(ended, "ringer \(arguments[0]) did not end on signals \(signals)")
        if !ended { kill(parent, SIGKILL) }
        process.waitUntilExit()
        // Children started late (a node starting as the signal came) count too.
        nodes = Array(Set(nodes + children(of: parent)))

        let left = await eventually(within: 15) { nodes.allSatisfy { !isAlive($0) } } ? [] : nodes.filter(isAlive)
        let folders = ((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []).filter {
            $0.hasPrefix("ringer-")
        }
        let databases = try await scratchDatabases(postgres).subtracting(before)
        for pid in left { kill(pid, SIGKILL) }
        for name in databases {
            _ = try? await postgres.psql(
                "drop database if exists \(name) with (force)", on: postgres.url(database: "postgres"))
        }
        withExtendedLifetime(redis) {}
        return Leftovers(
            status: ended && process.terminationReason == .exit ? process.terminationStatus : nil,
            output: String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self),
            nodes: left, folders: folders, databases: databases)
    }

    /// `ringer-lab scenario` mid-run: cluster file 41 is 30 scenario seconds, at scale 1 here.
    private static let midRun = [
        "scenario", "--time-scale", "1", ScenarioFolder.file("cluster/41_answered_call_outlives_the_callees_node.json"),
    ]

    @Test(arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130)), (SIGHUP, Int32(129))])
    func aScenarioRunEndedByASignalStopsItsNodesDropsItsDatabaseAndRemovesItsFolder(
        _ signal: Int32, _ status: Int32
    ) async throws {
        let left = try await Self.stop(Self.midRun, with: [signal])
        #expect(left.status == status, "exit status 128 + \(signal): \(left.output)")
        #expect(
            left.nodes.isEmpty, "ringer serve node(s) \(left.nodes) outlived ringer-lab scenario stopped by \(signal)")
        #expect(
            left.databases.isEmpty,
            "database(s) \(left.databases.sorted()) outlived ringer-lab scenario stopped by \(signal)")
        #expect(
            left.folders.isEmpty,
            "temporary folder(s) \(left.folders) outlived ringer-lab scenario stopped by \(signal)")
        #expect(!left.output.contains("FAIL"), "a run cut short by the signal was reported: \(left.output)")
    }

    /// A signal that lands while a stack starts (its first node process exists, not yet healthy): nothing is reported
    /// as failed, no later scenario or seed is tried, and the status is the signal's.
    @Test(arguments: [
        [
            "scenario", ScenarioFolder.file("cluster/41_answered_call_outlives_the_callees_node.json"),
            ScenarioFolder.file("10_answered_elsewhere_three_devices.json"),
        ],
        ["explore", "--seed", "1", "--runs", "5"],
    ])
    func aRunStoppedWhileItsNodesStartExitsWithTheSignalsStatusAndReportsNothing(_ arguments: [String]) async throws {
        let left = try await Self.stop(arguments, with: [SIGTERM], when: { !$0.isEmpty }, settle: .zero)
        #expect(left.status == 143, "\(left.output.prefix(600))")
        #expect(!left.output.contains("FAIL"), "\(left.output.prefix(600))")
        #expect(
            left.nodes.isEmpty && left.databases.isEmpty && left.folders.isEmpty,
            "left: nodes \(left.nodes), databases \(left.databases), folders \(left.folders)")
    }

    /// A second signal while the first one's shutdown waits (here on a node that cannot drain: stopped with
    /// `SIGSTOP`) ends the command at once; the running node ends itself, its parent gone.
    @Test func aSecondSignalStopsTheCommandAtOnce() async throws {
        var stopped: pid_t = 0
        let began = ContinuousClock.now
        let left = try await Self.stop(
            Self.midRun, with: [SIGTERM, SIGINT], between: .milliseconds(500),
            beforeSignals: { nodes in
                stopped = nodes[0]
                kill(stopped, SIGSTOP)
            })
        #expect(left.status == 130, "\(left.output)")
        #expect(left.output.contains("SIGINT again: stopping now"), "\(left.output)")
        // The stopped node ignores everything but SIGKILL (the helper sent it); the other one drained on its own.
        #expect(left.nodes.filter { $0 != stopped }.isEmpty, "nodes \(left.nodes) outlived the command")
        #expect(ContinuousClock.now - began < .seconds(40))
    }

    /// `SIGKILL` cannot be caught: the database and the temporary folder stay (this test removes them), but the
    /// nodes see their parent go (`--test-parent-pid`) and drain and exit on their own.
    @Test func theNodesOfAScenarioRunKilledWithSIGKILLEndThemselves() async throws {
        let left = try await Self.stop(Self.midRun, with: [SIGKILL])
        #expect(left.nodes.isEmpty, "ringer serve node(s) \(left.nodes) outlived ringer-lab scenario killed by SIGKILL")
    }

    /// A node the run kills with `SIGKILL` says no goodbye to Redis; the run's Redis names are its own, so no later run
    /// cleans them: every key a finished run leaves must expire.
    @Test func aClusterRunThatKillsANodeLeavesNoRedisKeyWithoutAnExpiry() async throws {
        let postgres = try await Self.postgres()
        let redis = try RedisServer()
        let run = try await ChildProcess.run(
            [
                try BuiltRinger.lab().path, "scenario", "--nodes", "2",
                "--database", postgres.url(database: "postgres"), "--redis", redis.url,
                ScenarioFolder.file("cluster/41_answered_call_outlives_the_callees_node.json"),
            ],
            timeout: 120)
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        let keys = try await ChildProcess.check(["redis-cli", "-p", "\(redis.port)", "--scan"]).standardOutput
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        var forever: [String] = []
        for key in keys {
            let ttl = try await ChildProcess.check(["redis-cli", "-p", "\(redis.port)", "ttl", key]).standardOutput
            if ttl.trimmingCharacters(in: .whitespacesAndNewlines) == "-1" { forever.append(key) }
        }
        #expect(forever.isEmpty, "keys the finished run left in Redis with no expiry: \(forever.sorted())")
        withExtendedLifetime(redis) {}
    }

    /// `--test-parent-pid` names the parent to outlive no longer; a process that is not the parent is a bad flag.
    @Test func aLabNodeRefusesATestParentPidThatIsNotItsParent() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-parent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Alive, and not the child's parent (this test process is).
        let outcome = try await ChildProcess.run(
            [
                try BuiltRinger.lab().path, "node", "--listen", "127.0.0.1:0",
                "--database", folder.appendingPathComponent("ringer.sqlite").path,
                "--admin-key", "admin-key", "--user-token-secret", String(repeating: "s", count: 32),
                "--test-parent-pid", "\(getppid())",
            ], timeout: 30)
        #expect(outcome.status == 2, "exit \(outcome.status): \(outcome.standardError.suffix(400))")
        #expect(
            outcome.standardError.contains("--test-parent-pid \(getppid()) is not this server's parent"),
            "\(outcome.standardError.suffix(400))")
    }

    /// A role that may not create databases is named before any node starts (exit 2), not by every run.
    @Test func aClusterRunWhoseRoleMayNotCreateDatabasesIsRefusedAtOnce() async throws {
        let postgres = try await Self.postgres()
        let redis = try RedisServer()
        let role = "ringer_nocreatedb_\(UInt32.random(in: 0...UInt32.max))"
        _ = try await postgres.psql("CREATE ROLE \(role) LOGIN NOCREATEDB", on: postgres.url(database: "postgres"))
        let url = postgres.url(database: "postgres").replacingOccurrences(of: "postgres@", with: "\(role)@")
        let refused = try await ChildProcess.run(
            [
                try BuiltRinger.lab().path, "explore", "--nodes", "2", "--database", url,
                "--redis", redis.url,
            ], timeout: 60)
        _ = try await postgres.psql("DROP ROLE \(role)", on: postgres.url(database: "postgres"))
        #expect(refused.status == 2, "\(refused.standardOutput)\(refused.standardError)")
        #expect(refused.standardError.contains("the role needs CREATEDB"), "\(refused.standardError)")
        #expect(!refused.standardError.contains("Usage:"), "a setting that cannot be used is no usage error")
        withExtendedLifetime(redis) {}
    }

    /// A Redis that cannot be reached is named at once (exit 2), before any node waits its start timeout for it.
    @Test func aClusterRunOnARedisThatCannotBeReachedIsRefusedAtOnce() async throws {
        let postgres = try await Self.postgres()
        let closed = try ClosedPort.freePort()
        let began = ContinuousClock.now
        let refused = try await ChildProcess.run(
            [
                try BuiltRinger.lab().path, "explore", "--nodes", "2",
                "--database", postgres.url(database: "postgres"),
                "--redis", "redis://127.0.0.1:\(closed)",
            ], timeout: 60)
        #expect(refused.status == 2, "\(refused.standardOutput)\(refused.standardError)")
        #expect(
            refused.standardError.contains("cannot connect to Redis at 127.0.0.1:\(closed)"), "\(refused.standardError)"
        )
        #expect(ContinuousClock.now - began < .seconds(10))
    }

    @Test(arguments: [
        (["--nodes", "2", "--database", "postgres://127.0.0.1/postgres", "--redis", "redis://"], "no host"),
        (
            ["--nodes", "2", "--database", "postgres://127.0.0.1/postgres", "--redis", "rediss://example.com"],
            "rediss://"
        ),
        (["--nodes", "2", "--database", "postgres://127.0.0.1/postgres"], "--nodes needs --database"),
        (
            ["--nodes", "2", "--database", "mysql://127.0.0.1/postgres", "--redis", "redis://127.0.0.1"],
            "--database needs a postgres://"
        ),
        (["--database", "postgres://127.0.0.1/postgres", "--redis", "redis://127.0.0.1"], "go with --nodes"),
    ])
    func badClusterSettingsAreRefusedNamingTheSetting(_ flags: [String], _ said: String) async throws {
        for command in ["scenario", "explore"] {
            let tail =
                command == "scenario"
                ? [ScenarioFolder.file("cluster/41_answered_call_outlives_the_callees_node.json")] : []
            // Without the test's own settings in the environment, which would stand in for a missing flag.
            let refused = try await ChildProcess.run(
                [
                    "-u", "RINGER_SCENARIO_DATABASE", "-u", "RINGER_SCENARIO_REDIS",
                    try BuiltRinger.lab().path, command,
                ] + flags + tail, timeout: 60)
            #expect(refused.status == 2, "\(command) \(flags): \(refused.standardOutput)\(refused.standardError)")
            #expect(refused.standardError.contains(said), "\(command) \(flags): \(refused.standardError)")
        }
    }
}
