import Foundation
import RingerStore

/// Opening the database `--database` names.
extension RingerServer {
    /// The store `--database` names: a `postgres://` URL opens a ``PostgresStore``, anything else an SQLite file.
    /// - Throws: ``ConfigurationError`` naming `--database` and the file or server when the database cannot be
    ///   opened: PostgreSQL cannot be reached or refuses the login, an SQLite file cannot be opened, migrated or
    ///   written (read-only, locked by another process, on a full disk), or either was written by a newer Ringer.
    /// - Parameter migrating: false to open the database as it is (`ringer doctor`).
    static func openStore(_ configuration: ServerConfiguration, migrating: Bool = true) throws -> any RingerStore {
        guard let target = PostgresTarget(url: configuration.databasePath) else {
            do {
                return migrating
                    ? try SQLiteStore(path: configuration.databasePath)
                    : try SQLiteStore(unmigratedPath: configuration.databasePath)
            } catch let error as StoreError {
                // SQLite's own message names no file ("database is locked"): the operator needs to know which.
                throw ConfigurationError("--database (RINGER_DATABASE) \(configuration.databasePath): \(error)")
            }
        }
        do {
            return try PostgresStore(
                target: target, poolSize: configuration.databasePoolSize,
                operationTimeout: .milliseconds(Int64((configuration.databaseTimeout * 1000).rounded(.up))),
                migrating: migrating)
        } catch let error as StoreError {
            throw ConfigurationError(
                error.isNewerSchema
                    ? "--database (RINGER_DATABASE) \(target): \(error)"
                    : "--database (RINGER_DATABASE): cannot use PostgreSQL at \(target): \(error)")
        }
    }
}
