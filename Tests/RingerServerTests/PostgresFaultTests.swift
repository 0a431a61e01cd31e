import Foundation
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerServer
@testable import RingerStore

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
        try PostgresConnection(target).execute(
            "UPDATE ringer_schema SET version = \(SchemaMigrations.migrations.count + 5)")
        let error = #expect(throws: ConfigurationError.self) {
            _ = try RingerServer(configuration: configuration(database: target.url), logger: .silent())
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("newer Ringer"))
    }

    @Test func aPostgresLostWhileRunningAnswers503AndHealthSaysSoUntilItIsBack() async throws {
        let postgres = try await PostgresServer.start()
        defer { Task { await postgres.remove() } }
        let server = try RingerServer(
            configuration: configuration(database: try await postgres.makeDatabase()), logger: .silent())
        let port = try await server.start()
        let http = TestHTTP(base: URL(string: "http://127.0.0.1:\(port)")!)
        #expect(try await http.send("GET", "/healthz").status == 200)
        let alice = try await APITests.token(http, "alice")

        try await postgres.stop()
        for (method, path, token, body) in [
            ("GET", "/healthz", nil, nil),
            ("POST", "/v1/tokens", APITests.adminKey, #"{"user_id":"bob"}"#),
            ("POST", "/v1/calls", alice, #"{"callee":"alice2"}"#),
        ] as [(String, String, String?, String?)] {
            let response = try await http.send(method, path, token: token, json: body)
            #expect(response.status == 503, "\(method) \(path)")
            #expect(response.contentType?.hasPrefix("application/problem+json") == true, "\(method) \(path)")
            #expect(response.object["type"] as? String == ProblemType.unavailable.rawValue, "\(method) \(path)")
        }

        try await postgres.start()
        #expect(try await http.send("GET", "/healthz").status == 200)
        #expect(
            try await http.send("POST", "/v1/tokens", token: APITests.adminKey, json: #"{"user_id":"bob"}"#).status
                == 201)
        await server.shutdown()
    }

    /// Issue 26, item 2: PostgreSQL frozen (`SIGSTOP` on every process: TCP stays up, nothing answers) while calls
    /// are being placed. Requests already waiting on the database and new ones answer 503 `unavailable`, and
    /// `/healthz` says the database is unreachable, within a few seconds instead of waiting for the database;
    /// once it runs again the server serves by itself, and every call answered 201, before, during or after the
    /// freeze, is there.
    @Test func aFrozenPostgresAnswers503WithinSecondsAndRecovers() async throws {
        let postgres = try await PostgresServer.start()
        defer {
            postgres.thaw()
            Task { await postgres.remove() }
        }
        var config = configuration(database: try await postgres.makeDatabase())
        config.rateLimits = .off
        let server = try RingerServer(configuration: config, logger: .silent())
        let port = try await server.start()
        let http = TestHTTP(base: URL(string: "http://127.0.0.1:\(port)")!)
        let alice = try await APITests.token(http, "alice")
        _ = try await APITests.token(http, "bob")
        let answers = FreezeAnswers()
        for _ in 0..<3 { await answers.record(try await Self.placeCall(http, token: alice)) }

        // Four callers keep placing calls through the freeze; with two pooled connections some wait for one.
        let load = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        while await !answers.stopped {
                            await answers.record(try await Self.placeCall(http, token: alice, answers: answers))
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        try await Task.sleep(for: .milliseconds(300))

        try postgres.freeze()
        let frozenAt = ContinuousClock.now
        await answers.freezeStarted()
        // A bound of 5 s: the store's 2 s limit, and room for a shared, busy test machine.
        async let health = Self.timed { try await http.send("GET", "/healthz", timeout: 15) }
        async let call = Self.timed {
            try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#, timeout: 15)
        }
        for (what, answer) in [("GET /healthz", await health), ("POST /v1/calls", await call)] {
            #expect(answer.status == 503, "\(what) during the freeze: \(answer)")
            #expect(answer.problemType == ProblemType.unavailable.rawValue, "\(what) during the freeze: \(answer)")
            #expect(answer.seconds < 5, "\(what) during the freeze took \(answer.seconds) s")
        }
        // Every request in flight when the database froze has been answered too.
        try await Task.sleep(until: frozenAt + .seconds(5))
        let duringFreeze = await answers.duringFreeze
        #expect(!duringFreeze.isEmpty)
        #expect(duringFreeze.allSatisfy { $0.status == 503 || $0.status == 201 }, "\(duringFreeze)")
        #expect(duringFreeze.allSatisfy { $0.seconds < 5 }, "\(duringFreeze.map(\.seconds))")
        let oldest = await answers.oldestUnanswered
        #expect(
            oldest.map { $0.duration(to: .now) < .seconds(5) } ?? true,
            "a call placed \(oldest.map { $0.duration(to: .now) } ?? .zero) ago, \(oldest.map { frozenAt.duration(to: $0) } ?? .zero) after the freeze, is still unanswered"
        )
        postgres.thaw()
        await answers.freezeEnded()

        var recovered = false
        let recoveryDeadline = ContinuousClock.now + .seconds(15)
        while !recovered, ContinuousClock.now < recoveryDeadline {
            recovered = (try? await http.send("GET", "/healthz", timeout: 5).status) == 200
            if !recovered { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(recovered, "/healthz after the freeze")
        let after = try await Self.placeCall(http, token: alice)
        #expect(after.status == 201, "POST /v1/calls after the freeze: \(after)")
        await answers.record(after)
        await answers.stop()
        try await load.value

        let acknowledged = await answers.acknowledged
        #expect(acknowledged.count >= 5)
        for callID in acknowledged {
            let found = try await http.send("GET", "/v1/calls/\(callID)", token: alice, timeout: 15)
            #expect(found.status == 200, "call \(callID), answered 201, is missing")
        }
        await server.shutdown()
    }

    /// One answer to a request while the database may be frozen.
    struct Answer: Sendable, CustomStringConvertible {
        var status: Int?
        var problemType: String?
        var callID: String?
        var seconds: Double
        var failure: String?

        var description: String {
            "\(status.map(String.init) ?? "no answer") \(problemType ?? callID ?? failure ?? "") after \(seconds) s"
        }
    }

    /// Sends a request, timing it; a request that got no answer (the client's timeout) is an answer without a status.
    static func timed(_ request: () async throws -> TestHTTP.Response) async -> Answer {
        let start = ContinuousClock.now
        do {
            let response = try await request()
            let elapsed = start.duration(to: .now)
            return Answer(
                status: response.status, problemType: response.object["type"] as? String,
                callID: response.object["call_id"] as? String,
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        } catch {
            let elapsed = start.duration(to: .now)
            return Answer(
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                failure: "\(error)")
        }
    }

    /// Places a call from `token`'s user to bob, timed.
    static func placeCall(_ http: TestHTTP, token: String, answers: FreezeAnswers? = nil) async throws -> Answer {
        let id = await answers?.begin()
        let answer = await timed {
            try await http.send("POST", "/v1/calls", token: token, json: #"{"callee":"bob"}"#, timeout: 15)
        }
        if let id { await answers?.end(id) }
        return answer
    }
}

/// What the callers of ``PostgresFaultTests/aFrozenPostgresAnswers503WithinSecondsAndRecovers()`` were answered.
actor FreezeAnswers {
    /// Calls answered 201.
    private(set) var acknowledged: [String] = []
    /// Answers that came while the database was frozen.
    private(set) var duringFreeze: [PostgresFaultTests.Answer] = []
    private(set) var stopped = false
    private var frozen = false
    private var unanswered: [Int: ContinuousClock.Instant] = [:]
    private var nextID = 0

    /// When the oldest request still waiting for its answer was sent.
    var oldestUnanswered: ContinuousClock.Instant? { unanswered.values.min() }

    /// Notes a request sent now; returns its number for ``end(_:)``.
    func begin() -> Int {
        nextID += 1
        unanswered[nextID] = .now
        return nextID
    }

    /// Notes that request `id` was answered.
    func end(_ id: Int) { unanswered[id] = nil }

    /// Notes an answer (a 201's call id; while frozen, the answer).
    func record(_ answer: PostgresFaultTests.Answer) {
        if answer.status == 201, let callID = answer.callID { acknowledged.append(callID) }
        if frozen { duringFreeze.append(answer) }
    }

    /// From now on answers count as answered during the freeze.
    func freezeStarted() { frozen = true }
    /// From now on they do not.
    func freezeEnded() { frozen = false }
    /// Tells the callers to stop after their current call.
    func stop() { stopped = true }
}
