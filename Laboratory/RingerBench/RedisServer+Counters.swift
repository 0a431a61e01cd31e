import Foundation
import RingerTestKit

/// What the cluster part of `ringer-lab bench` reads from its throw-away Redis.
extension RedisServer {
    /// Commands it has processed so far (`redis-cli INFO stats`).
    /// - Returns: the count; nil when `redis-cli` is missing or fails (the figure is then left out).
    func commandsProcessed() async -> Int? {
        guard
            let cli = try? await ChildProcess.run(
                ["redis-cli", "-h", "127.0.0.1", "-p", String(port), "INFO", "stats"], timeout: 10),
            cli.status == 0
        else { return nil }
        return StoreCounters.parseRedisCommands(info: cli.standardOutput)
    }

    /// - Throws: ``BenchmarkError/sender(_:_:)`` with the end of its log if it has died.
    func checkRunning() throws {
        guard isRunning else {
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            throw BenchmarkError.sender("redis-server", "died: \(log.suffix(2000))")
        }
    }
}
