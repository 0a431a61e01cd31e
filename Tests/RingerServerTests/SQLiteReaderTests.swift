import Foundation
import RingerStore
import RingerWire
import Testing

/// SQLite's point reads run on a second connection on the caller's thread (issue 33): a read after a write sees it,
/// and once a write found the file deleted, reads fail too instead of reading the deleted file's inode.
struct SQLiteReaderTests {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ringer-reader-\(UUID().uuidString).sqlite").path
    }

    @Test func aReadRightAfterAWriteSeesIt() async throws {
        let store = try SQLiteStore(path: Self.path())
        for index in 0..<200 {
            try await store.upsertUser(id: "user-\(index)", name: "Name \(index)", at: Date())
            #expect(try await store.user(id: "user-\(index)")?.name == "Name \(index)")
        }
    }

    @Test func readsFailOnceAWriteFoundTheFileDeleted() async throws {
        let path = Self.path()
        let store = try SQLiteStore(path: path)
        try await store.upsertUser(id: "alice", name: "Alice", at: Date())
        #expect(try await store.user(id: "alice")?.name == "Alice")
        try FileManager.default.removeItem(atPath: path)
        await #expect(throws: StoreError.self) { try await store.checkWritable(at: Date()) }
        await #expect(throws: StoreError.self) { try await store.user(id: "alice") }
        await #expect(throws: StoreError.self) { try await store.devices(ofUser: "alice") }
    }
}
