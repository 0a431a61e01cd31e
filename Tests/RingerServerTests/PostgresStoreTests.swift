import Foundation
import RingerCore
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerStore

/// What only PostgreSQL has: a server that can be unreachable or go away, and many servers opening one database.
@Suite struct PostgresStoreTests {
    @Test func serversOpeningOneDatabaseTogetherMigrateItOnce() async throws {
        let target = try await StoreKind.freshPostgres()
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<6 { group.addTask { try PostgresStore(target: target, poolSize: 2) } }
            return try await group.reduce(into: [PostgresStore]()) { $0.append($1) }
        }
        #expect(stores.count == 6)
        #expect(try await stores[0].schemaVersion() == SchemaMigrations.migrations.count)
        let rows = try await PostgresServer.shared().psql("SELECT count(*) FROM ringer_schema", on: target.url)
        #expect(rows.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }

    @Test func aScratchDatabaseIsEmptyUsableByAStoreAndGoneOnceDropped() async throws {
        let server = try await PostgresServer.shared()
        let scratch = try PostgresScratchDatabase(serverURL: server.url(database: "postgres"))
        #expect(scratch.name.hasPrefix("ringer_run_") && scratch.name.count == 27)
        #expect(scratch.url.hasSuffix("?dbname=\(scratch.name)"))
        let store = try PostgresStore(target: try #require(PostgresTarget(url: scratch.url)), poolSize: 1)
        #expect(try await store.schemaVersion() == SchemaMigrations.migrations.count)
        let current = try await server.psql("SELECT current_database()", on: scratch.url)
        #expect(current.trimmingCharacters(in: .whitespacesAndNewlines) == scratch.name)
        // Dropped with the store's connection still open (WITH (FORCE)).
        try scratch.drop()
        let left = try await server.psql(
            "SELECT count(*) FROM pg_database WHERE datname = '\(scratch.name)'",
            on: server.url(database: "postgres"))
        #expect(left.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        withExtendedLifetime(store) {}
        // Dropping it again (a shutdown after a signal's) succeeds.
        try scratch.drop()
        #expect(throws: StoreError.self) { try PostgresScratchDatabase(serverURL: "mysql://root:pw@127.0.0.1/x") }
    }

    @Test func aRoleThatMayNotCreateDatabasesIsToldToGetCREATEDB() async throws {
        let server = try await PostgresServer.shared()
        let role = "ringer_nocreatedb_\(UInt32.random(in: 0...UInt32.max))"
        _ = try await server.psql("CREATE ROLE \(role) LOGIN NOCREATEDB", on: server.url(database: "postgres"))
        let url = server.url(database: "postgres").replacingOccurrences(of: "postgres@", with: "\(role)@")
        let error = #expect(throws: StoreError.self) { try PostgresScratchDatabase(serverURL: url) }
        #expect(error?.sqlState == "42501")
        #expect(error?.description.contains("the role needs CREATEDB") == true, "\(String(describing: error))")
        _ = try await server.psql("DROP ROLE \(role)", on: server.url(database: "postgres"))
    }

    @Test func anUnreachableServerIsUnavailableAndItsPasswordIsNeverShown() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        let target = try #require(
            PostgresTarget(url: "postgres://ringer:s3cret-pw@127.0.0.1:\(port)/ringer", connectTimeoutSeconds: 2))
        #expect(target.description == "postgres://ringer:***@127.0.0.1:\(port)/ringer")
        let started = Date()
        let error = #expect(throws: StoreError.self) { try PostgresStore(target: target) }
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(error?.isUnavailable == true)
        #expect(error?.description.contains("127.0.0.1") == true)
        #expect(error?.description.contains("s3cret-pw") == false)
        withExtendedLifetime(closed) {}
    }

    @Test func aServerLostWhileRunningMakesEveryOperationUnavailableUntilItReturns() async throws {
        let server = try await PostgresServer.start()
        defer { Task { await server.remove() } }
        let database = try await server.makeDatabase()
        let store = try PostgresStore(
            target: try #require(PostgresTarget(url: database, connectTimeoutSeconds: 2)), poolSize: 2)
        try await store.upsertUser(id: "alice", name: "Alice", at: Date())
        try await store.checkWritable(at: Date())

        // A clean stop ends every connection, as a failover or a restart does (an immediate one could also
        // lose the test server's last unsynced commits, which it turns off for speed).
        try await server.stop()
        let lost = await #expect(throws: StoreError.self) { try await store.checkWritable(at: Date()) }
        #expect(lost?.isUnavailable == true)
        let write = await #expect(throws: StoreError.self) {
            try await store.upsertUser(id: "bob", name: "Bob", at: Date())
        }
        #expect(write?.isUnavailable == true)

        try await server.start()
        // Each pooled connection reconnects when next used: no restart of the store.
        try await store.checkWritable(at: Date())
        try await store.upsertUser(id: "bob", name: "Bob", at: Date())
        #expect(try await store.user(id: "alice")?.name == "Alice")
        #expect(try await store.user(id: "bob")?.name == "Bob")
    }

    /// Found when a pooled connection left idle through a restart failed the test above under load: libpq says
    /// `CONNECTION_OK` until it reads the server's `FATAL: terminating connection`, so the next operation failed on
    /// it instead of reconnecting.
    @Test func aConnectionLeftIdleThroughARestartReconnectsOnItsNextUse() async throws {
        let server = try await PostgresServer.start()
        defer { Task { await server.remove() } }
        let database = try await server.makeDatabase()
        let target = try #require(PostgresTarget(url: database, connectTimeoutSeconds: 2))
        let connection = try PostgresConnection(target)
        try connection.execute("SELECT 1")
        try await server.stop()
        try await server.start()
        // As the pool hands it out for its next operation.
        try connection.begin(PostgresDeadline(limit: .seconds(5)))
        try connection.execute("SELECT 1")
        var rows = 0
        try connection.query("SELECT 2", []) { _ in rows += 1 }
        #expect(rows == 1)
    }

    /// libpq reads a password from the URI's query (`?password=`): it is as secret as one before the `@`.
    @Test func aPasswordGivenAsAURLParameterIsHiddenInTheDescription() throws {
        let target = try #require(PostgresTarget(url: "postgres://ringer@db:5432/ringer?password=QuerySecret42"))
        #expect(!target.description.contains("QuerySecret42"), "\(target.description)")
    }

    /// A multi-host URI (libpq: `postgresql://host1:123,host2:456/db`) keeps its password hidden too.
    @Test func aPasswordInAMultiHostURLIsHiddenInTheDescription() throws {
        let target = try #require(PostgresTarget(url: "postgres://ringer:HostSecret42@db1:5432,db2:5432/ringer"))
        #expect(!target.description.contains("HostSecret42"), "\(target.description)")
    }

    /// Hiding a one-letter password must not rewrite every other occurrence of that letter in libpq's message.
    @Test func aShortPasswordDoesNotGarbleTheRestOfAMessage() throws {
        let target = try #require(PostgresTarget(url: "postgres://u:p@127.0.0.1:5432/x"))
        let message = #"connection to server at "127.0.0.1", port 5432 failed"#
        #expect(target.redacted(message) == message)
    }

    @Test func aURLThatIsNotPostgresIsNoTarget() {
        #expect(PostgresTarget(url: "ringer.sqlite") == nil)
        #expect(PostgresTarget(url: "mysql://x@y/z") == nil)
        #expect(PostgresTarget(url: "postgresql://x@y/z") != nil)
    }
}

/// `ringer copy-database`: a server moving from SQLite to PostgreSQL keeps everything it stored.
@Suite struct DatabaseCopyTests {
    /// Found by review: the SQLite file was migrated before the target was even reached, so a mistyped URL left a
    /// file the previous Ringer refuses as newer.
    @Test func aTargetThatCannotBeReachedLeavesTheSQLiteFileAtItsOwnSchema() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-copy-old-\(UUID().uuidString).sqlite"
        ).path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let older = SchemaMigrations.migrations.count - 1
        do {
            let db = try SQLiteConnection(path: path)
            for (index, migration) in SchemaMigrations.migrations.prefix(older).enumerated() {
                try db.transaction {
                    try db.execute(migration.sqlite)
                    try db.execute("PRAGMA user_version = \(index + 1)")
                }
            }
        }
        let closed = try ClosedPort()
        let target = try #require(
            PostgresTarget(url: "postgres://ringer@127.0.0.1:\(closed.port)/ringer", connectTimeoutSeconds: 2))
        #expect(throws: StoreError.self) { try DatabaseCopy.copy(sqlitePath: path, to: target) }
        var version: Int64 = 0
        try SQLiteConnection(path: path).query("PRAGMA user_version", []) { version = $0.integer(0) }
        #expect(version == Int64(older))
    }

    @Test func everyRowOfAnSQLiteServerReachesPostgresAndAReadSeesTheSameStore() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-copy-\(UUID().uuidString).sqlite"
        ).path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let sqlite = try SQLiteStore(path: path)
        try await sqlite.upsertUser(id: "alice", name: "Alice", at: Date())
        let registered = Date(unixMilliseconds: 1_800_000_000_000)
        _ = try await sqlite.registerDevice(
            Device(
                deviceID: "bob-pixel", userID: "bob", platform: .android,
                fcmToken: "fcm-1", fcmProjectID: "ringer-demo", updatedAt: registered,
                readiness: DeviceReadiness(problems: [.batteryOptimized], reportedAt: registered)))
        let machine = StoreConformanceTests.ringingCall()
        _ = try await sqlite.insertCall(
            machine, events: [PendingEvent(type: .callIncoming, recipient: .user("bob"), call: machine.call)],
            idempotencyKey: "key-1")
        try await sqlite.recordPushAttempt(
            PushAttempt(
                callID: machine.call.callID, deviceID: "bob-pixel", provider: .fcm,
                pushType: .high, status: 200, reason: nil, apnsID: nil,
                latencyMs: 12, attempts: 1, sentAt: registered))

        let (group, _) = try await GroupStoreTests.placeGroup(sqlite, caller: "erin", callees: ["bob", "carol"])

        let target = try await StoreKind.freshPostgres()
        let copied = try DatabaseCopy.copy(sqlitePath: path, to: target)
        #expect(copied.first { $0.table == "users" }?.rows == 1)
        #expect(copied.first { $0.table == "call_legs" }?.rows == 2)
        #expect(copied.first { $0.table == "events" }?.rows == 1)
        let postgres = try PostgresStore(target: target)
        #expect(try await postgres.user(id: "alice") == Party(id: "alice", name: "Alice"))
        #expect(try await postgres.devices(ofUser: "bob") == (try await sqlite.devices(ofUser: "bob")))
        #expect(try await postgres.call(id: machine.call.callID) == machine)
        #expect(try await postgres.call(id: group.call.callID) == group)
        #expect(
            try await GroupStoreTests.legRows(postgres, group.call.callID) == ["bob": "ringing", "carol": "ringing"])
        #expect(
            try await postgres.events(forUser: "bob", after: 0, limit: 10)
                == (try await sqlite.events(forUser: "bob", after: 0, limit: 10)))
        #expect(try await postgres.call(forIdempotencyKey: "key-1", userID: "alice", at: Date()) == machine)
        #expect(
            try await postgres.pushAttempts(callID: machine.call.callID)
                == (try await sqlite.pushAttempts(callID: machine.call.callID)))
        // New rows carry on after the copied ones.
        try await postgres.recordPushAttempt(
            PushAttempt(
                callID: machine.call.callID, deviceID: "bob-pixel", provider: .fcm,
                pushType: .high, status: 200, reason: nil, apnsID: nil,
                latencyMs: 9, attempts: 1, sentAt: registered + 1))
        #expect(try await postgres.pushAttempts(callID: machine.call.callID).count == 2)

        // A second copy into the same database copies nothing and says why.
        let again = #expect(throws: StoreError.self) { try DatabaseCopy.copy(sqlitePath: path, to: target) }
        #expect(again?.description.contains("already holds") == true)
        #expect(try await postgres.pushAttempts(callID: machine.call.callID).count == 2)
    }
}
