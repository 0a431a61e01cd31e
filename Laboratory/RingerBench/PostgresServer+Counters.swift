import Foundation
import RingerTestKit

/// What the cluster part of `ringer-lab bench` reads from its throw-away PostgreSQL (started
/// ``PostgresServer/Durability/asDeployed``, so commits cost what they cost in production on this disk).
extension PostgresServer {
    /// Reads the server's next transaction id and WAL position (``StoreCounters/postgresQuery``) with `psql`.
    /// - Parameter name: the database.
    /// - Returns: the counters; nil when `psql` fails (the figures are then left out, not the run).
    func counters(database name: String) async -> (writeTransactions: Int, walBytes: Double)? {
        guard let text = try? await psql(StoreCounters.postgresQuery, on: url(database: name), timeout: 10) else {
            return nil
        }
        return StoreCounters.parsePostgres(text)
    }

    /// CPU seconds the postmaster and its backends have used so far; nil once it has ended.
    func cpuSecondsSoFar() -> Double? { postmasterPID.flatMap { ProcessTreeCPU.secondsSoFar(pid: $0) } }

    /// - Throws: ``BenchmarkError/sender(_:_:)`` with the end of its log if the server has died.
    func checkRunning() throws {
        guard postmasterIsAlive else { throw BenchmarkError.sender("postgres", "died: \(logTail())") }
    }
}
