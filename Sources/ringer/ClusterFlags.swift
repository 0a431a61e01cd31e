import Foundation
import RingerScenarios
import RingerServer
import RingerStore

/// `--nodes N --database postgres://… --redis redis://…` of `ringer scenario` and `ringer explore`: run against N
/// separate `ringer serve` processes of this binary on PostgreSQL and Redis (docs/scenarios.md, "On a cluster")
/// instead of one server in this process.
struct ClusterFlags {
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
            guard let url = value(), PostgresTarget.isPostgresURL(url) else {
                throw ConfigurationError("--database needs a postgres:// URL of a role that may create databases")
            }
            database = url
        case "--redis":
            guard let url = value(), url.hasPrefix("redis://") else { throw ConfigurationError("--redis needs a redis:// URL") }
            redis = url
        default:
            return false
        }
        return true
    }

    /// The cluster the flags ask for, nil without `--nodes`.
    /// - Throws: ``ConfigurationError`` when `--nodes` lacks `--database` or `--redis`, or those come without it.
    func cluster() throws -> LocalStack.Cluster? {
        guard let nodes else {
            if database != nil || redis != nil { throw ConfigurationError("--database and --redis go with --nodes") }
            return nil
        }
        guard let database, let redis else {
            throw ConfigurationError("--nodes needs --database postgres://… and --redis redis://… (docs/scenarios.md)")
        }
        // The nodes run this very binary, so they speak the version of the phones and the sandboxes.
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return LocalStack.Cluster(nodes: nodes, databaseServer: database, redis: redis, executable: executable)
    }
}
