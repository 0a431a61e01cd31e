import Foundation
import SocketSupport

/// A throw-away `redis-server` for the cluster part of `ringer-lab bench`: a child process on 127.0.0.1 on a free
/// port, without persistence (`--save "" --appendonly no`: Ringer keeps nothing in Redis worth keeping,
/// docs/operations.md), its log in the fixture folder.
struct RedisProcess: Sendable {
    let process: SpawnedProcess
    /// The port on 127.0.0.1.
    let port: Int

    /// `redis://127.0.0.1:<port>`.
    var url: String { "redis://127.0.0.1:\(port)" }

    /// Starts it and waits until it accepts connections.
    /// - Parameters:
    ///   - name: the stem of its log file (`<name>.log`).
    ///   - directory: the fixture folder (its working directory and log).
    /// - Throws: ``BenchmarkError`` when `redis-server` is missing or not ready within 10 s.
    static func start(name: String, logsIn directory: URL) async throws -> RedisProcess {
        guard
            let executable = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
                .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            throw BenchmarkError.setup(
                "redis-server is not installed: run `make deps` (or apt-get install -y redis-server)")
        }
        let port = try LoopbackPort.free()
        let log = directory.appendingPathComponent("\(name).log")
        let process = try SpawnedProcess(
            [
                executable, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--daemonize", "no", "--dir", directory.path,
            ],
            standardOutput: log, standardError: directory.appendingPathComponent("\(name).err"))
        do {
            _ = try await process.awaitOutput(in: log, within: .seconds(10), what: "accept connections") {
                $0.contains("Ready to accept connections") ? true : nil
            }
        } catch {
            process.send(SIGKILL)
            _ = await process.finish(within: .seconds(5))
            throw error
        }
        return RedisProcess(process: process, port: port)
    }

    /// Commands it has processed so far (`redis-cli INFO stats`).
    /// - Parameter directory: where `redis-cli`'s output goes.
    /// - Returns: the count; nil when `redis-cli` is missing or fails (the figure is then left out).
    func commandsProcessed(logsIn directory: URL) async -> Int? {
        guard
            let cli = try? SpawnedProcess(
                ["redis-cli", "-h", "127.0.0.1", "-p", String(port), "INFO", "stats"],
                standardOutput: directory.appendingPathComponent("redis-cli.out"),
                standardError: directory.appendingPathComponent("redis-cli.err"))
        else { return nil }
        guard await cli.finish(within: .seconds(10)).status == 0 else { return nil }
        return StoreCounters.parseRedisCommands(
            info: (try? String(contentsOf: cli.standardOutput, encoding: .utf8)) ?? "")
    }

    /// - Throws: ``BenchmarkError/sender(_:_:)`` if it has died.
    func checkRunning() throws {
        if let exit = process.exitIfEnded {
            throw BenchmarkError.sender(
                "redis-server", "died with status \(exit.status): \(process.standardErrorTail())")
        }
    }

    /// SIGTERM (SIGKILL after 5 s).
    /// - Returns: its CPU time and peak memory.
    func stop() async -> ProcessUsage {
        process.send(SIGTERM)
        return await process.finish(within: .seconds(5)).usage
    }
}
