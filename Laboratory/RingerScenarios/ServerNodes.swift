import Foundation
import RingerSupport
import SocketSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `ringer-lab node` processes (`ringer serve` on the run's test clock) of a cluster stack (``LocalStack/Options/cluster``): one child process per node on
/// its own loopback port, all on one PostgreSQL database and one Redis, as docs/operations.md runs them. A kill is a
/// real `SIGKILL`; a node started again comes back on the same port (the balancer in front keeps its backends).
/// Each node appends its output to `node-<n>.log` in the stack's folder. Thread-safe.
final class ServerNodes: Sendable {
    /// What every node is started with.
    struct Launch: Sendable {
        /// The `ringer-lab` executable.
        var executable: URL
        /// `ringer-lab node` flags shared by every node (sandbox hosts, timeouts, test time); `--listen` and
        /// `--node-id` are added per node.
        var arguments: [String]
        /// Environment added for every node: the secrets and the database and Redis URLs, which must not show
        /// in `ps` as flags would.
        var environment: [String: String]
        /// Where the logs go.
        var folder: URL
        /// Real seconds a starting node may take to answer `/healthz` with Redis connected.
        var startTimeout: TimeInterval
    }

    /// Each node's port on 127.0.0.1, index = node number.
    let ports: [Int]
    private let launch: Launch
    private let running = LockedValue<[Int: Process]>([:])

    /// Picks a free port for each node; starts none.
    /// - Throws: ``PosixError`` when no port can be bound.
    init(count: Int, launch: Launch) throws {
        self.launch = launch
        ports = try (0..<count).map { _ in try LoopbackPort.free() }
    }

    /// The node's id (`--node-id`), also the stem of its log.
    static func nodeID(_ node: Int) -> String { "node-\(node)" }

    /// Starts a node that is not running and waits until it is healthy.
    /// - Throws: ``LocalStackError`` when it cannot be started or is not healthy within the start timeout (with the
    ///   end of its log).
    func start(_ node: Int) async throws {
        guard !isRunning(node) else { return }
        let log = logFile(node)
        if !FileManager.default.fileExists(atPath: log.path) {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        }
        let process = Process()
        process.executableURL = launch.executable
        process.arguments =
            ["node", "--listen", "127.0.0.1:\(ports[node])", "--node-id", Self.nodeID(node)] + launch.arguments
        // Only the stack's own settings: a RINGER_* of the caller's shell (another server's database, a prefix)
        // would otherwise reach every node as a setting.
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RINGER_") }
            .merging(launch.environment) { $1 }
        do {
            let handle = try FileHandle(forWritingTo: log)
            handle.seekToEndOfFile()
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
            try? handle.close()
        } catch {
            throw LocalStackError("cannot start \(launch.executable.path) serve for \(Self.nodeID(node)): \(error)")
        }
        running.withLock { $0[node] = process }
        try await waitUntilHealthy(node)
    }

    /// Kills a node with `SIGKILL` (no drain, no goodbye to Redis: a machine dying) and reaps it.
    func kill(_ node: Int) {
        guard let process = running.withLock({ $0.removeValue(forKey: node) }) else { return }
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Stops a node with `SIGTERM` (it drains, docs/operations.md) and waits for it; `SIGKILL` after `seconds`.
    func stop(_ node: Int, within seconds: TimeInterval = 10) async {
        guard let process = running.withLock({ $0.removeValue(forKey: node) }) else { return }
        if process.isRunning { process.terminate() }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Whether the node's process runs.
    func isRunning(_ node: Int) -> Bool { running.withLock { $0[node]?.isRunning ?? false } }

    /// Stops every node (`SIGTERM`, then `SIGKILL`).
    func shutdown() async {
        for node in ports.indices { await stop(node) }
    }

    /// The end of the node's log, for messages.
    func logTail(_ node: Int, lines: Int = 40) -> String {
        let text = (try? String(contentsOf: logFile(node), encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// The node's log file.
    func logFile(_ node: Int) -> URL { launch.folder.appendingPathComponent("\(Self.nodeID(node)).log") }

    /// Waits until the node answers `GET /healthz` 200 with Redis connected, so it rings and delivers events.
    private func waitUntilHealthy(_ node: Int) async throws {
        let url = URL(string: "http://127.0.0.1:\(ports[node])/healthz")!
        let deadline = ContinuousClock.now + .seconds(launch.startTimeout)
        while ContinuousClock.now < deadline {
            guard isRunning(node) else {
                throw LocalStackError(
                    "\(Self.nodeID(node)) exited while starting; the end of its log:\n\(logTail(node))")
            }
            guard !LiveStacks.isEnding else {
                throw LocalStackError("stopped waiting for \(Self.nodeID(node)) to start: the process is ending")
            }
            if let (data, response) = try? await URLSession.shared.data(from: url),
                (response as? HTTPURLResponse)?.statusCode == 200,
                let health = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                (health["cluster"] as? [String: Any])?["redis"] as? String == "connected"
            {
                return
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        throw LocalStackError(
            "\(Self.nodeID(node)) was not healthy within \(Int(launch.startTimeout)) s; "
                + "the end of its log:\n\(logTail(node))")
    }
}
