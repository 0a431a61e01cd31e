import Foundation
@testable import RingerStore
import Testing

/// A `201` from the embedded store means the write is on disk: SQLite runs `synchronous = FULL` in WAL mode, so each
/// COMMIT syncs the write-ahead log before it returns (https://sqlite.org/pragma.html#pragma_synchronous). Under
/// NORMAL, an ext4 error remount lost 7 of 115 calls acknowledged in the last 170 ms (issue 26); the cost is measured
/// by `make bench` (BENCHMARKS.md, "Durability").
@Suite struct SQLiteDurabilityTests {
    @Test func everyCommitSyncsTheWriteAheadLogBeforeItReturns() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-durability-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteStore(path: path)
        let (mode, synchronous) = try await store.run { db -> (String, Int64) in
            var mode = ""
            var synchronous: Int64 = -1
            try db.query("PRAGMA journal_mode", []) { mode = $0.text(0) ?? "" }
            try db.query("PRAGMA synchronous", []) { synchronous = $0.integer(0) }
            return (mode, synchronous)
        }
        #expect(mode == "wal")
        // 2 is FULL (0 OFF, 1 NORMAL, 3 EXTRA).
        #expect(synchronous == 2)
    }
}
