import Foundation
import RingerRedis
import RingerScenarios
import RingerServer
import RingerStore
import RingerTestKit

/// `--nodes N --database postgres://… --redis redis://…` of `ringer-lab scenario` and `ringer-lab explore`: run against N
/// separate `ringer-lab node` processes (`ringer serve` on the run's clock) of this binary on PostgreSQL and Redis (docs/scenarios.md, "On a cluster")
/// instead of one server in this process. The two URLs may come from `RINGER_SCENARIO_DATABASE` and
/// `RINGER_SCENARIO_REDIS` instead, so a password stays out of `ps`; a flag wins over its variable.
struct ClusterFlags {
    /// The time scale of a cluster run when `--time-scale` is not given: real seconds per scenario second. Slower than
    /// in process, since every request crosses processes, PostgreSQL and Redis (docs/scenarios.md, "On a cluster").
    static let defaultTimeScale = 0.1

    private var nodes: Int?
    private var database: String?
    private var redis: String?

    /// Takes `flag` if it is one of the three, reading its value with `value`.
    /// - Returns: false for another flag.
    /// - Throws: ``ConfigurationError`` for a missing or bad value (never echoing a URL, which may hold a password).
    mutating func take(_ flag: String, value: () -> String?) throws -> Bool {
        switch flag {
        case "--nodes":
            guard let text = value(), let count = Int(text), (1...9).contains(count) else {
                throw ConfigurationError("--nodes needs a number of server nodes from 1 to 9")
            }
            nodes = count
        case "--database":
            guard let url = value() else { throw ConfigurationError("--database needs a postgres:// URL") }
            database = try Self.checkedDatabase(url, setting: "--database")
        case "--redis":
            guard let url = value() else { throw ConfigurationError("--redis needs a redis:// URL") }
            redis = try Self.checkedRedis(url, setting: "--redis")
        default:
            return false
        }
        return true
    }

    /// The cluster the flags (and `RINGER_SCENARIO_DATABASE`/`RINGER_SCENARIO_REDIS`, an empty one counting as unset)
    /// ask for, nil without `--nodes`. Nothing is connected to: ``checkReachable(_:)`` does that.
    /// - Parameter environment: the process environment.
    /// - Throws: ``ConfigurationError`` when `--nodes` lacks a database or Redis, or those come without it.
    func cluster(environment: [String: String]) throws -> LocalStack.Cluster? {
        guard let nodes else {
            if database != nil || redis != nil { throw ConfigurationError("--database and --redis go with --nodes") }
            return nil
        }
        let database =
            try self.database
            ?? environment["RINGER_SCENARIO_DATABASE"].flatMap { $0.isEmpty ? nil : $0 }.map {
                try Self.checkedDatabase($0, setting: "RINGER_SCENARIO_DATABASE")
            }
        let redis =
            try self.redis
            ?? environment["RINGER_SCENARIO_REDIS"].flatMap { $0.isEmpty ? nil : $0 }.map {
                try Self.checkedRedis($0, setting: "RINGER_SCENARIO_REDIS")
            }
        guard let database, let redis else {
            throw ConfigurationError(
                "--nodes needs --database postgres://… and --redis redis://… (or RINGER_SCENARIO_DATABASE "
                    + "and RINGER_SCENARIO_REDIS; docs/scenarios.md)")
        }
        // The nodes run this very binary, so they speak the version of the phones and the sandboxes.
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return LocalStack.Cluster(nodes: nodes, databaseServer: database, redis: redis, executable: executable)
    }

    private static func checkedDatabase(_ url: String, setting: String) throws -> String {
        guard PostgresTarget.isPostgresURL(url) else {
            throw ConfigurationError("\(setting) needs a postgres:// URL of a role that may create databases")
        }
        return url
    }

    private static func checkedRedis(_ url: String, setting: String) throws -> String {
        do {
            _ = try RedisURL(parsing: url)
        } catch {
            throw ConfigurationError("\(setting): \(error)")
        }
        return url
    }

    /// Checks, before any node starts, that Redis answers `PING` with the URL's login and that PostgreSQL answers and
    /// lets the role create databases: a node would otherwise wait its whole start timeout for Redis, and every run
    /// would fail on its own.
    /// - Throws: ``ConfigurationError`` naming what cannot be used and why (never a password).
    static func checkReachable(_ cluster: LocalStack.Cluster) throws {
        do {
            let url = try RedisURL(parsing: cluster.redis)
            let connection = RedisConnection(url: url, connectTimeout: 2, commandTimeout: 2)
            defer { connection.close() }
            _ = try connection.command(["PING"])
        } catch {
            throw ConfigurationError("Redis cannot be used for the cluster run: \(error)")
        }
        do {
            try PostgresScratchDatabase.checkServer(cluster.databaseServer)
        } catch {
            throw ConfigurationError("PostgreSQL cannot be used for the cluster run: \(error)")
        }
    }
}
