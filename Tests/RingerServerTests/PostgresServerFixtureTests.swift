import CPostgres
import Foundation
import RingerTestSupport
import Testing

/// The PostgreSQL 15 test fixture itself: a real server, fresh databases, stop and start, clear failures.
@Suite struct PostgresServerFixtureTests {
    @Test func eachDatabaseFromTheSharedServerIsFreshAndAnswersQueries() async throws {
        let server = try await PostgresServer.shared()
        let first = try await server.makeDatabase()
        let second = try await server.makeDatabase()
        #expect(first != second)
        #expect(first.hasPrefix("postgres://postgres@127.0.0.1:\(server.port)/test_"))
        #expect(try await server.psql("SELECT 1", on: first) == "1\n")
        #expect(try await server.psql("SELECT 1", on: second) == "1\n")

        _ = try await server.psql("CREATE TABLE marks (name text); INSERT INTO marks VALUES ('first')", on: first)
        #expect(try await server.psql("SELECT name FROM marks", on: first) == "first\n")
        let missing = await #expect(throws: PostgresServerError.self) {
            try await server.psql("SELECT name FROM marks", on: second)
        }
        #expect(missing?.reason == .clientFailed)
        #expect(missing?.description.contains(#"relation "marks" does not exist"#) == true)
        #expect(try await PostgresServer.shared() === server)
    }

    @Test func dataSurvivesStopAndStartOnTheSamePort() async throws {
        let server = try await PostgresServer.start()
        do {
            let database = try await server.makeDatabase()
            _ = try await server.psql("CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)", on: database)

            #expect(PQping(server.url(database: "postgres")) == PQPING_OK)
            try await server.stop()
            #expect(!server.isRunning)
            #expect(PQping(server.url(database: "postgres")) == PQPING_NO_RESPONSE)
            let refused = await #expect(throws: PostgresServerError.self) {
                try await server.psql("SELECT 1", on: database)
            }
            #expect(refused?.reason == .clientFailed)
            #expect(refused?.description.contains("127.0.0.1") == true)

            try await server.start()
            #expect(server.isRunning)
            #expect(server.url(database: "x") == "postgres://postgres@127.0.0.1:\(server.port)/x")
            #expect(try await server.psql("SELECT n FROM kept", on: database) == "42\n")

            // A crash-like stop: recovery on the next start keeps what the clean shutdown had written.
            try await server.stop(immediately: true)
            try await server.start()
            #expect(try await server.psql("SELECT n FROM kept", on: database) == "42\n")
        } catch {
            await server.remove()
            throw error
        }
        await server.remove()
        #expect(!server.isRunning)
    }

    @Test func aMissingInstallationSaysWhatToInstall() async throws {
        let nowhere = URL(fileURLWithPath: "/nonexistent/postgresql/15/bin", isDirectory: true)
        let error = await #expect(throws: PostgresServerError.self) {
            try await PostgresServer.start(binDirectory: nowhere)
        }
        #expect(error?.reason == .notInstalled)
        #expect(
            error?.description.contains(
                "PostgreSQL 15 is not installed: /nonexistent/postgresql/15/bin/initdb is missing")
                == true)
        #expect(error?.description.contains("make deps") == true)
        #expect(error?.description.contains("apt-get install -y postgresql-15") == true)
    }

    @Test func aTakenPortIsReportedWithTheServerLog() async throws {
        let taken = try ClosedPort(listening: true)
        let error = await #expect(throws: PostgresServerError.self) {
            try await PostgresServer.start(port: taken.port)
        }
        #expect(error?.reason == .portTaken)
        #expect(error?.description.contains("port \(taken.port) on 127.0.0.1 is taken") == true)
        #expect(error?.description.contains("Address already in use") == true)
    }

    @Test func theWatcherCleansUpOnceTheWatchedProcessIsGone() async throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-watcher-\(UUID().uuidString)")
        let parent = Process()
        parent.executableURL = URL(fileURLWithPath: "/bin/sleep")
        parent.arguments = ["30"]
        try parent.run()
        let watcher = try ExitWatcher.start(
            #"echo done > "$1""#, arguments: [marker.path],
            watching: parent.processIdentifier)
        defer {
            watcher.cancel()
            try? FileManager.default.removeItem(at: marker)
        }
        try await Task.sleep(for: .milliseconds(1500))
        #expect(!FileManager.default.fileExists(atPath: marker.path))
        kill(parent.processIdentifier, SIGKILL)
        #expect(await eventually(within: 5) { FileManager.default.fileExists(atPath: marker.path) })
    }
}
