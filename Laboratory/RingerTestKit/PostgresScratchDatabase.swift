import Foundation
public import RingerStore

/// A throw-away database on a PostgreSQL server, for runs that must start from nothing and leave nothing
/// behind (`ringer-lab scenario --nodes`, `ringer-lab explore --nodes`, the store tests): each run creates one,
/// points its `ringer serve` processes at ``url``, and drops it afterwards. The role in the server URL needs
/// `CREATEDB`. It speaks to the server through the store's own libpq connection, so its errors are the store's.
public struct PostgresScratchDatabase: Sendable {
    /// The database's name: `ringer_run_` and 16 hex digits.
    public let name: String
    /// The server URL with `dbname=<name>` added to its query (libpq reads a later `dbname` over the URL's
    /// path; PostgreSQL: "Connection URIs"). It holds the server URL's password: pass it in the environment
    /// (`RINGER_DATABASE`), never as a flag `ps` shows.
    public let url: String
    private let server: PostgresTarget

    /// Creates the database on the server the URL names (the URL's own database is only where the
    /// `CREATE DATABASE` runs).
    /// - Parameter serverURL: `postgres://…` of a role allowed to create databases.
    /// - Throws: ``StoreError`` when the URL is not a PostgreSQL URL, the server cannot be reached, or the role
    ///   may not create databases (the message never holds the password).
    public init(serverURL: String) throws {
        guard let target = PostgresTarget(url: serverURL) else {
            throw StoreError.serverUnreachable("the database URL must start with postgres:// or postgresql://")
        }
        server = target
        name = "ringer_run_" + (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let separator = serverURL.contains("?") ? "&" : "?"
        url = serverURL + separator + "dbname=" + name
        do {
            // The name is ours (letters, digits, `_`): nothing from outside is spliced into the statement.
            try target.executeOnce("CREATE DATABASE \(name)")
        } catch let error as StoreError where error.sqlState == "42501" {
            // insufficient_privilege (PostgreSQL: "Appendix A. Error Codes"): say what the role lacks.
            throw StoreError.postgres(
                error.operation, sqlState: error.sqlState,
                message: error.message + " (\(Self.createDatabaseHint))")
        }
    }

    /// Checks, before any run, that the server the URL names answers and that its role may create databases
    /// (`CREATEDB`, or a superuser), so a bad setting is named once rather than by every run that follows.
    /// - Parameter serverURL: `postgres://…` of the role the runs will use.
    /// - Throws: ``StoreError`` when the URL is not a PostgreSQL URL, the server cannot be reached or refuses the
    ///   login, or the role may not create databases (the message never holds the password).
    public static func checkServer(_ serverURL: String) throws {
        guard let target = PostgresTarget(url: serverURL) else {
            throw StoreError.serverUnreachable("the database URL must start with postgres:// or postgresql://")
        }
        let allowed = try target.firstColumnOnce(
            "SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user")
        guard allowed.last == "t" else {
            throw StoreError.postgres(
                "CREATE DATABASE", sqlState: "42501",
                message: "the role of the database URL may not create databases (\(createDatabaseHint))")
        }
    }

    /// What a role that may not create databases lacks, in both of the messages that say so.
    private static let createDatabaseHint = "the role needs CREATEDB: ALTER ROLE <role> CREATEDB"

    /// Drops the database, first ending the sessions still open to it: `DROP DATABASE … WITH (FORCE)` on
    /// PostgreSQL 13 and later, `pg_terminate_backend` and then a plain `DROP DATABASE` before that
    /// (PostgreSQL: "DROP DATABASE"). Dropping a database that is already gone succeeds.
    /// - Throws: ``StoreError`` when the server cannot be reached or refuses (then the database is left).
    public func drop() throws {
        let version = try server.firstColumnOnce("SHOW server_version_num").first.flatMap { $0.flatMap(Int.init) }
        if (version ?? 0) >= 130_000 {
            try server.executeOnce("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        } else {
            _ = try server.firstColumnOnce(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()",
                [name])
            try server.executeOnce("DROP DATABASE IF EXISTS \(name)")
        }
    }
}
