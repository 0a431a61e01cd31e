/// One set-up of the cluster part: how many `ringer serve` nodes, on which store, with Redis or not.
public enum ClusterSetup: Hashable, Sendable, CaseIterable {
    /// One node on a SQLite file (the single-server default).
    case sqlite1
    /// One node on PostgreSQL, no Redis.
    case postgres1
    /// Two nodes on one PostgreSQL database and one Redis.
    case postgresRedis2
    /// Three nodes on one PostgreSQL database and one Redis.
    case postgresRedis3

    /// Nodes started.
    public var nodes: Int {
        switch self {
        case .sqlite1, .postgres1: return 1
        case .postgresRedis2: return 2
        case .postgresRedis3: return 3
        }
    }

    /// Whether the nodes share a PostgreSQL database (else one SQLite file).
    public var usesPostgres: Bool { self != .sqlite1 }

    /// Whether the nodes share a Redis.
    public var usesRedis: Bool { nodes > 1 }

    /// The key in the `RESULT cluster` line and the database's name: `sqlite_1`, `postgres_1`,
    /// `postgres_redis_2`, `postgres_redis_3`.
    public var key: String {
        switch self {
        case .sqlite1: return "sqlite_1"
        case .postgres1: return "postgres_1"
        case .postgresRedis2: return "postgres_redis_2"
        case .postgresRedis3: return "postgres_redis_3"
        }
    }

    /// For the report: `1 node, SQLite`, `3 nodes, PostgreSQL + Redis`.
    public var label: String {
        "\(nodes) node\(nodes == 1 ? "" : "s"), "
            + (usesPostgres ? (usesRedis ? "PostgreSQL + Redis" : "PostgreSQL") : "SQLite")
    }
}
