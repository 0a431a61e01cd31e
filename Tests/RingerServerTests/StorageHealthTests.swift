import Foundation
import RingerSupport
import RingerStore
import RingerWire
import Testing

@testable import RingerServer

/// A database that cannot take writes is never hidden: `/healthz` writes to prove it can, such failures answer
/// 503 problem+json, a file deleted or replaced under the server is noticed, and the server does not start on
/// a store it cannot write (issue 12, item 3).
@Suite(.serialized) struct StorageHealthTests {
    /// A fresh folder, removed afterwards (immutable flags cleared first).
    private func withFolder(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-storage-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer {
            _ = Self.run("/usr/bin/chattr", ["-R", "-i", directory.path])
            try? FileManager.default.removeItem(at: directory)
        }
        try await body(directory)
    }

    @discardableResult
    private static func run(_ program: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Whether this file system lets root make a file immutable (`chattr +i`), the one way to make a file
    /// unwritable for root.
    static let canMakeImmutable: Bool = {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-chattr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: file.path, contents: Data())
        defer {
            _ = run("/usr/bin/chattr", ["-i", file.path])
            try? FileManager.default.removeItem(at: file)
        }
        return run("/usr/bin/chattr", ["+i", file.path]) == 0
    }()

    /// Waits (up to 10 s) until this process holds no descriptor of `file` (Linux's `/proc/self/fd`).
    private static func waitUntilNoDescriptor(of file: URL) async throws {
        let target = file.resolvingSymlinksInPath().path
        for _ in 0..<1_000 {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            let open = descriptors.contains { name in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) == target
            }
            if !open { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("\(target) is still open after 10 s")
    }

    private func server(database: URL) throws -> RingerServer {
        var config = ServerConfiguration()
        config.port = 0
        config.databasePath = database.path
        config.adminKey = APITests.adminKey
        config.userTokenSecret = String(repeating: "s", count: 32)
        return try RingerServer(configuration: config, logger: .silent())
    }

    private func expectUnavailable(_ response: TestHTTP.Response, _ what: String) {
        #expect(response.status == 503, "\(what)")
        #expect(response.contentType?.hasPrefix("application/problem+json") == true, "\(what)")
        #expect(response.object["type"] as? String == ProblemType.unavailable.rawValue, "\(what)")
        // Paths and SQLite's words go to the log, not to whoever asks.
        #expect((response.object["detail"] as? String)?.contains("/") == false, "\(what)")
    }

    @Test func aDeletedDatabaseFileFailsHealthAndEveryWriteWith503() async throws {
        try await withFolder { folder in
            let database = folder.appendingPathComponent("ringer.sqlite")
            let server = try server(database: database)
            let port = try await server.start()
            let http = TestHTTP(base: URL(string: "http://127.0.0.1:\(port)")!)
            #expect(try await http.send("GET", "/healthz").status == 200)
            _ = try await APITests.token(http, "alice")
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
            expectUnavailable(try await http.send("GET", "/healthz"), "healthz")
            expectUnavailable(
                try await http.send("POST", "/v1/tokens", token: APITests.adminKey, json: #"{"user_id":"bob"}"#),
                "POST /v1/tokens")
            await server.shutdown()
        }
    }

    @Test func aDatabaseFileReplacedUnderTheServerIsNoticed() async throws {
        try await withFolder { folder in
            let database = folder.appendingPathComponent("ringer.sqlite")
            let server = try server(database: database)
            let port = try await server.start()
            let http = TestHTTP(base: URL(string: "http://127.0.0.1:\(port)")!)
            // A restore from backup copied over the live file: another inode at the same path.
            let copy = folder.appendingPathComponent("copy.sqlite")
            try FileManager.default.copyItem(at: database, to: copy)
            try FileManager.default.removeItem(at: database)
            try FileManager.default.moveItem(at: copy, to: database)
            expectUnavailable(try await http.send("GET", "/healthz"), "healthz")
            await server.shutdown()
        }
    }

    @Test(.enabled(if: StorageHealthTests.canMakeImmutable, "chattr +i is not available on this file system"))
    func theServerRefusesToStartOnADatabaseItCannotWrite() async throws {
        try await withFolder { folder in
            let database = folder.appendingPathComponent("ringer.sqlite")
            do {
                // Created, migrated and closed, then made immutable: even root cannot write it.
                let store = try SQLiteStore(path: database.path)
                try await store.upsertUser(id: "alice", name: nil, at: Date())
            }
            // The store's thread lets go of its connections a moment after the write was answered. SQLite hands a
            // descriptor a closed connection left open to the next connection that opens the same file, so a server
            // started before then wrote through the old, writable descriptor (a loaded `make test`, once).
            try await Self.waitUntilNoDescriptor(of: database)
            #expect(Self.run("/usr/bin/chattr", ["+i", database.path]) == 0)
            let error = await #expect(throws: (any Error).self) {
                let server = try server(database: database)
                _ = try await server.start()
                await server.shutdown()
            }
            #expect("\(error.map { "\($0)" } ?? "")".contains("ringer.sqlite"))
        }
    }

    @Test func aDatabaseAnotherProcessHoldsLockedIsNamedWhenTheServerRefusesToStart() async throws {
        try await withFolder { folder in
            let database = folder.appendingPathComponent("ringer.sqlite")
            // Another process (a backup tool, a second server on the same file) created the file and holds its
            // write lock for longer than SQLite's busy timeout (5 s), so the server cannot even set the file up:
            // SQLite's own message, "database is locked", names no file, and the server's must.
            let locker = Process()
            locker.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            locker.arguments = [
                "-c",
                "import sqlite3, sys, time\n"
                    + "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                    + "c.execute('BEGIN EXCLUSIVE')\nprint('locked', flush=True)\ntime.sleep(30)",
                database.path,
            ]
            let output = Pipe()
            locker.standardOutput = output
            try locker.run()
            defer { locker.terminate() }
            _ = output.fileHandleForReading.availableData  // "locked"
            let error = await #expect(throws: (any Error).self) {
                let server = try server(database: database)
                _ = try await server.start()
                await server.shutdown()
            }
            #expect("\(error.map { "\($0)" } ?? "")".contains("ringer.sqlite"), "\(error.map { "\($0)" } ?? "")")
        }
    }

    @Test func storageFailuresThatNeedAnOperatorAreTold() {
        // Primary codes and extended ones (the low byte is the primary): SQLite, "Result and Error Codes".
        for code: Int32 in [8, 1032, 10, 778, 13, 14] {
            #expect(StoreError.database("sqlite3_step", code: code, message: "").isUnavailable, "\(code)")
        }
        for code: Int32 in [1, 5, 19, 2067] {
            #expect(!StoreError.database("sqlite3_step", code: code, message: "").isUnavailable, "\(code)")
        }
        #expect(StoreError.fileLost("gone").isUnavailable)
    }
}
