import Foundation

/// Counters of the shared store and Redis read before and after a step, so a step's cost per call shows what
/// the cluster spends on the database and Redis: PostgreSQL's commits (`pg_stat_database.xact_commit`), WAL
/// flushes (`pg_stat_wal.wal_sync`, each an fsync) and WAL bytes (`pg_current_wal_lsn()`), and Redis's
/// commands (`INFO stats` `total_commands_processed`, each a round trip or part of a pipeline).
///
/// PostgreSQL 15's statistics reach shared memory when a backend has been idle for up to a second, so the
/// readings are taken with no call in flight and a moment after the step (``ClusterBenchmark``).
public struct StoreCounters: Hashable, Sendable {
    /// CLOCK_MONOTONIC seconds of the reading.
    var time: Double = 0
    /// Transactions committed in the database.
    var commits: Int?
    /// WAL flushes (fsync) of the whole server.
    var walSyncs: Int?
    /// WAL position, bytes.
    var walBytes: Double?
    /// Commands Redis processed.
    var redisCommands: Int?

    /// The SQL whose one row ``parsePostgres(_:)`` reads (`psql -A -t`: `commits|syncs|bytes`).
    static let postgresQuery = "SELECT d.xact_commit, w.wal_sync, pg_current_wal_lsn() - '0/0'::pg_lsn "
        + "FROM pg_stat_database d, pg_stat_wal w WHERE d.datname = current_database()"

    /// Reads `psql -A -t`'s output of ``postgresQuery``.
    /// - Returns: commits, WAL syncs and WAL bytes; nil for anything else.
    static func parsePostgres(_ output: String) -> (commits: Int, walSyncs: Int, walBytes: Double)? {
        let fields = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
        guard fields.count == 3, let commits = Int(fields[0]), let syncs = Int(fields[1]), let bytes = Double(fields[2])
        else { return nil }
        return (commits, syncs, bytes)
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
    static func perCall(from before: StoreCounters, to after: StoreCounters, calls: Int, idle: PerCall? = nil) -> PerCall {
        let seconds = max(after.time - before.time, 0)
        func rate(_ start: Double?, _ end: Double?, _ background: Double?) -> Double? {
            guard calls > 0, let start, let end else { return nil }
            return (end - start - (background ?? 0) * seconds) / Double(calls)
        }
        return PerCall(commits: rate(before.commits.map(Double.init), after.commits.map(Double.init), idle?.commits),
                       walSyncs: rate(before.walSyncs.map(Double.init), after.walSyncs.map(Double.init), idle?.walSyncs),
                       walBytes: rate(before.walBytes, after.walBytes, idle?.walBytes),
                       redisCommands: rate(before.redisCommands.map(Double.init), after.redisCommands.map(Double.init),
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
        return PerCall(commits: rate(before.commits.map(Double.init), after.commits.map(Double.init)),
                       walSyncs: rate(before.walSyncs.map(Double.init), after.walSyncs.map(Double.init)),
                       walBytes: rate(before.walBytes, after.walBytes),
                       redisCommands: rate(before.redisCommands.map(Double.init), after.redisCommands.map(Double.init)))
    }

    /// One step's counters per call answered (or, for the idle background, per second).
    public struct PerCall: Hashable, Sendable {
        /// PostgreSQL commits per call.
        public var commits: Double?
        /// WAL fsyncs per call (below commits when commits share a flush).
        public var walSyncs: Double?
        /// WAL bytes per call.
        public var walBytes: Double?
        /// Redis commands per call.
        public var redisCommands: Double?
    }
}
