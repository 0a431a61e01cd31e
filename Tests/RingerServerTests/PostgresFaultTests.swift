import Foundation
@testable import RingerServer
import RingerLogging
@testable import RingerStore
import RingerTestSupport
import RingerWire
import Testing

/// The server on PostgreSQL when the database is not there: it will not start on a database it cannot reach (saying
/// which setting), answers 503 while the database is gone, says so on `/healthz`, and needs no restart once it is back.
@Suite struct PostgresFaultTests {
    private func configuration(database: String) -> ServerConfiguration {
        var config = ServerConfiguration()
        config.port = 0
        config.databasePath = database
        config.databasePoolSize = 2
        config.adminKey = APITests.adminKey
        config.userTokenSecret = String(repeating: "s", count: 32)
        return config
    }

    @Test func anUnreachablePostgresStopsTheStartNamingTheSettingWithoutThePassword() throws {
        let closed = try ClosedPort()
        let url = "postgres://ringer:hunter2-secret@127.0.0.1:\(closed.port)/ringer"
        let error = #expect(throws: ConfigurationError.self) {
            _ = try RingerServer(configuration: configuration(database: url), logger: .silent())
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("--database (RINGER_DATABASE)"), "\(text)")
        #expect(text.contains("127.0.0.1:\(closed.port)"), "\(text)")
        #expect(!text.contains("hunter2-secret"), "\(text)")
    }

    @Test func aPostgresDatabaseOfANewerRingerStopsTheStart() async throws {
        let target = try await StoreKind.freshPostgres()
        _ = try PostgresStore(target: target)
        try PostgresConnection(target).execute("UPDATE ringer_schema SET version = \(SchemaMigrations.migrations.count + 5)")
        let error = #expect(throws: ConfigurationError.self) {
            _ = try RingerServer(configuration: configuration(database: target.url), logger: .silent())
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("newer Ringer"))
    }

    @Test func aPostgresLostWhileRunningAnswers503AndHealthSaysSoUntilItIsBack() async throws {
        let postgres = try await PostgresServer.start()
        defer { Task { await postgres.remove() } }
        let server = try RingerServer(configuration: configuration(database: try await postgres.makeDatabase()), logger: .silent())
        let port = try await server.start()
        let http = TestHTTP(base: URL(string: "http://127.0.0.1:\(port)")!)
        #expect(try await http.send("GET", "/healthz").status == 200)
        let alice = try await APITests.token(http, "alice")

        try await postgres.stop()
        for (method, path, token, body) in [("GET", "/healthz", nil, nil),
                                            ("POST", "/v1/tokens", APITests.adminKey, #"{"user_id":"bob"}"#),
                                            ("POST", "/v1/calls", alice, #"{"callee":"alice2"}"#)] as [(String, String, String?, String?)] {
            let response = try await http.send(method, path, token: token, json: body)
            #expect(response.status == 503, "\(method) \(path)")
            #expect(response.contentType?.hasPrefix("application/problem+json") == true, "\(method) \(path)")
            #expect(response.object["type"] as? String == ProblemType.unavailable.rawValue, "\(method) \(path)")
        }

        try await postgres.start()
        #expect(try await http.send("GET", "/healthz").status == 200)
        #expect(try await http.send("POST", "/v1/tokens", token: APITests.adminKey, json: #"{"user_id":"bob"}"#).status == 201)
        await server.shutdown()
    }
}
