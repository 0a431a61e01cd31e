import Foundation

/// Counters of the shared store and Redis read before and after a step, so a step's cost per call shows what
/// the cluster spends on the database and Redis: PostgreSQL's write transactions (transaction ids assigned,
/// `pg_snapshot_xmax(pg_current_snapshot())`: each a commit that writes WAL and, with `synchronous_commit` on,
/// waits for its flush) and WAL bytes (`pg_current_wal_lsn()`), and Redis's commands (`INFO stats`
/// `total_commands_processed`, each a round trip or part of a pipeline).
///
/// All three are current at the moment they are read. PostgreSQL 15's cumulative statistics
/// (`pg_stat_database.xact_commit`, `pg_stat_wal.wal_sync`) are not: a busy backend publishes them up to 10 s
/// late (`PGSTAT_IDLE_INTERVAL`), which smeared one step's commits over the next ones.
public struct StoreCounters: Hashable, Sendable {
    /// CLOCK_MONOTONIC seconds of the reading.
    var time: Double = 0
    /// The next transaction id: write transactions so far, server-wide.
    var writeTransactions: Int?
    /// WAL position, bytes.
    var walBytes: Double?
    /// Commands Redis processed.
    var redisCommands: Int?

    /// The SQL whose one row ``parsePostgres(_:)`` reads (`psql -A -t`: `next-xid|wal-bytes`). It assigns no
    /// transaction id itself (read-only).
    static let postgresQuery = "SELECT pg_snapshot_xmax(pg_current_snapshot()), pg_current_wal_lsn() - '0/0'::pg_lsn"

    /// Reads `psql -A -t`'s output of ``postgresQuery``.
    /// - Returns: the next transaction id and the WAL position in bytes; nil for anything else.
    static func parsePostgres(_ output: String) -> (writeTransactions: Int, walBytes: Double)? {
        let fields = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
        guard fields.count == 2, let transactions = Int(fields[0]), let bytes = Double(fields[1]) else { return nil }
        return (transactions, bytes)
    }

    /// Reads `total_commands_processed` from `redis-cli INFO stats` (`name:value` lines, CRLF or LF).
    /// - Returns: the count, or nil when the line is missing.
    static func parseRedisCommands(info: String) -> Int? {
        for line in info.split(whereSeparator: \.isNewline) where line.hasPrefix("total_commands_processed:") {
            return Int(line.dropFirst("total_commands_processed:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// What a step cost per call: each counter's growth from `before` to `after`, less what the idle cluster
    /// does over the same seconds (heartbeats, sweeps, polling: `idle`, per second), over `calls`.
    /// - Parameters:
    ///   - before: read just before the step.
    ///   - after: read just after it.
    ///   - calls: calls answered in the step.
    ///   - idle: each counter's growth per second with no call placed (``perSecond(from:to:)``); nil to
    ///     subtract nothing.
    /// - Returns: per call; a counter missing at either end, or `calls` of 0, gives nil for it.
    static func perCall(
        from before: StoreCounters, to after: StoreCounters, calls: Int, idle: PerCall? = nil
    ) -> PerCall {
        let seconds = max(after.time - before.time, 0)
        func rate(_ start: Double?, _ end: Double?, _ background: Double?) -> Double? {
            guard calls > 0, let start, let end else { return nil }
            return (end - start - (background ?? 0) * seconds) / Double(calls)
        }
        return PerCall(
            writeTransactions: rate(
                before.writeTransactions.map(Double.init),
                after.writeTransactions.map(Double.init), idle?.writeTransactions),
            walBytes: rate(before.walBytes, after.walBytes, idle?.walBytes),
            redisCommands: rate(
                before.redisCommands.map(Double.init), after.redisCommands.map(Double.init),
                idle?.redisCommands))
    }

    /// Each counter's growth per second from `before` to `after` (the idle cluster's background).
    /// - Returns: per second; nil for a counter missing at either end or readings at the same time.
    static func perSecond(from before: StoreCounters, to after: StoreCounters) -> PerCall {
        let seconds = after.time - before.time
        func rate(_ start: Double?, _ end: Double?) -> Double? {
            guard seconds > 0, let start, let end else { return nil }
            return (end - start) / seconds
        }
        return PerCall(
            writeTransactions: rate(
                before.writeTransactions.map(Double.init),
                after.writeTransactions.map(Double.init)),
            walBytes: rate(before.walBytes, after.walBytes),
            redisCommands: rate(before.redisCommands.map(Double.init), after.redisCommands.map(Double.init)))
    }

    /// One step's counters per call answered (or, for the idle background, per second).
    public struct PerCall: Hashable, Sendable {
        /// PostgreSQL write transactions (commits that write) per call.
        public var writeTransactions: Double?
        /// WAL bytes per call.
        public var walBytes: Double?
        /// Redis commands per call.
        public var redisCommands: Double?
    }
}
