import Foundation
import RingerStore

/// Opening the database `--database` names.
extension RingerServer {
    /// The store `--database` names: a `postgres://` URL opens a ``PostgresStore``, anything else an SQLite file.
    /// - Throws: ``ConfigurationError`` naming `--database` when PostgreSQL cannot be reached or refuses the login,
    ///   or when either database was written by a newer Ringer; `StoreError` for an SQLite file that cannot open.
    static func openStore(_ configuration: ServerConfiguration) throws -> any RingerStore {
        guard let target = PostgresTarget(url: configuration.databasePath) else {
            do {
                return try SQLiteStore(path: configuration.databasePath)
            } catch let error as StoreError where error.isNewerSchema {
                throw ConfigurationError("--database (RINGER_DATABASE) \(configuration.databasePath): \(error)")
            }
        }
        do {
            return try PostgresStore(
                target: target, poolSize: configuration.databasePoolSize,
                operationTimeout: .milliseconds(Int64((configuration.databaseTimeout * 1000).rounded(.up))))
        } catch let error as StoreError {
            throw ConfigurationError(
                error.isNewerSchema
                    ? "--database (RINGER_DATABASE) \(target): \(error)"
                    : "--database (RINGER_DATABASE): cannot use PostgreSQL at \(target): \(error)")
        }
    }
}
