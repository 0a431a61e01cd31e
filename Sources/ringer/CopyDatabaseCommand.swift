import Foundation
import RingerStore

/// `ringer copy-database --from ringer.sqlite [--to postgres://…]`: moves a server's data from SQLite to an
/// empty PostgreSQL database (`--to`, or `RINGER_DATABASE`, which keeps the password out of `ps`), all or nothing.
/// Stop the server first. docs/operations.md, "Moving from SQLite to PostgreSQL".
enum CopyDatabaseCommand {
    static let usage =
        "usage: ringer copy-database --from ringer.sqlite [--to postgres://user@host:5432/ringer] (or RINGER_DATABASE)"

    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        func value(_ flag: String) -> String? {
            arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        guard let from = value("--from"), let to = value("--to") ?? environment["RINGER_DATABASE"] else {
            return fail(usage, code: 2)
        }
        guard let target = PostgresTarget(url: to) else {
            return fail("ringer copy-database: --to must be a postgres:// URL", code: 2)
        }
        do {
            let copied = try DatabaseCopy.copy(sqlitePath: from, to: target)
            for (table, rows) in copied { print("\(table): \(rows) rows") }
            print("copied \(from) into \(target); start the servers with --database set to it")
            return 0
        } catch {
            return fail("ringer copy-database: nothing was copied: \(error)", code: 1)
        }
    }

    private static func fail(_ message: String, code: Int32) -> Int32 {
        try? FileHandle.standardError.write(contentsOf: Data((message + "\n").utf8))
        return code
    }
}
