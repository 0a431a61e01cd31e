import Foundation
import RingerRedis
import RingerTestSupport
import Testing

@Suite struct RedisConnectionTests {
    @Test func setAndGetKeepEveryByteIncludingNULAndPercent() throws {
        let server = try RedisServer()
        let connection = RedisConnection(url: server.url())
        let key = Data([0x6b, 0x00, 0x25, 0x73, 0xff])  // "k\0%s\xff"
        let value = Data([0x00, 0x01, 0x25, 0x6e, 0x0d, 0x0a, 0x00, 0xfe, 0xff])  // NUL, "%n", CR LF, high bytes
        #expect(try connection.command([Data("SET".utf8), key, value]) == .status("OK"))
        #expect(try connection.command([Data("GET".utf8), key]) == .bulk(value))
        #expect(try connection.command([Data("STRLEN".utf8), key]) == .integer(Int64(value.count)))
        #expect(try connection.command([Data("GET".utf8), Data("k".utf8)]).isNil)
        #expect(try connection.command(["SET", "empty", ""]) == .status("OK"))
        #expect(try connection.command(["GET", "empty"]) == .bulk(Data()))
    }

    @Test func incrCountsUpFromZero() throws {
        let server = try RedisServer()
        let connection = RedisConnection(url: server.url())
        #expect(try connection.command(["INCR", "calls"]).integer == 1)
        #expect(try connection.command(["INCR", "calls"]).integer == 2)
        #expect(try connection.command(["INCRBY", "calls", "40"]).integer == 42)
    }

    @Test func errorRepliesAreThrownWithRedisMessageAndTheConnectionStaysUsable() throws {
        let server = try RedisServer()
        let connection = RedisConnection(url: server.url())
        _ = try connection.command(["SET", "name", "alice"])
        #expect(throws: RedisError.server(message: "ERR value is not an integer or out of range")) {
            try connection.command(["INCR", "name"])
        }
        do {
            _ = try connection.command(["LPUSH", "name", "x"])
            Issue.record("LPUSH on a string succeeded")
        } catch {
            guard case .server(let message) = error else { throw error }
            #expect(message.hasPrefix("WRONGTYPE"))
        }
        #expect(try connection.command(["PING"]) == .status("PONG"))
        #expect(throws: RedisError.invalidCommand(reason: "a command needs at least its name")) {
            try connection.command([String]())
        }
    }

    @Test func arraysAndErrorsNestedInThemAreReplies() throws {
        let server = try RedisServer()
        let connection = RedisConnection(url: server.url())
        _ = try connection.command(["RPUSH", "list", "a", "b"])
        #expect(
            try connection.command(["LRANGE", "list", "0", "-1"])
                == .array([.bulk(Data("a".utf8)), .bulk(Data("b".utf8))]))
        _ = try connection.command(["MULTI"])
        _ = try connection.command(["SET", "word", "x"])
        _ = try connection.command(["INCR", "word"])
        let results = try connection.command(["EXEC"]).elements
        #expect(results?.count == 2)
        #expect(results?.first == .status("OK"))
        guard case .error(let message)? = results?.last else {
            Issue.record("EXEC's second result is \(String(describing: results?.last))")
            return
        }
        #expect(message.hasPrefix("ERR value is not an integer"))
    }

    @Test func passwordAndDatabaseFromTheURLAreUsedOnConnect() throws {
        let server = try RedisServer(["--requirepass", "p@ss:word"])
        let url = try RedisURL(parsing: "redis://:p%40ss%3Aword@127.0.0.1:\(server.port)/3")
        let inDatabase3 = RedisConnection(url: url)
        _ = try inDatabase3.command(["SET", "where", "three"])
        let inDatabase0 = RedisConnection(url: server.url(password: "p@ss:word"))
        #expect(try inDatabase0.command(["GET", "where"]).isNil)
        #expect(try inDatabase3.command(["GET", "where"]).string == "three")
    }

    @Test func aclUserLogsInWithUserAndPassword() throws {
        let server = try RedisServer(["--user", "node", "on", ">node-secret", "~*", "&*", "+@all"])
        let connection = RedisConnection(
            url: try RedisURL(parsing: "redis://node:node-secret@127.0.0.1:\(server.port)"))
        #expect(try connection.command(["ACL", "WHOAMI"]).string == "node")
    }

    @Test func wrongPasswordFailsWithRedisMessageThatDoesNotShowIt() throws {
        let server = try RedisServer(["--requirepass", "right-one"])
        let connection = RedisConnection(url: server.url(password: "wrong-guess"))
        do {
            try connection.connect()
            Issue.record("connected with a wrong password")
        } catch {
            guard case .server(let message) = error else { throw error }
            #expect(message.contains("WRONGPASS") || message.contains("invalid password"))
            #expect(!error.description.contains("wrong-guess"))
            #expect(!error.description.contains("right-one"))
        }
    }

    @Test func connectToAClosedPortFailsPromptlyWithAClearError() throws {
        let port = try ClosedPort.freePort()
        let connection = RedisConnection(url: RedisURL(port: port), connectTimeout: 5)
        let started = ContinuousClock.now
        do {
            _ = try connection.command(["PING"])
            Issue.record("PING to a closed port succeeded")
        } catch {
            #expect(error == .cannotConnect(endpoint: "127.0.0.1:\(port)", reason: "Connection refused"))
            #expect(error.description == "cannot connect to Redis at 127.0.0.1:\(port): Connection refused")
        }
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test func aServerThatNeverAnswersTimesOutAfterTheCommandTimeout() throws {
        let silent = try ClosedPort(listening: true)
        let connection = RedisConnection(url: RedisURL(port: silent.port), connectTimeout: 2, commandTimeout: 0.3)
        let started = ContinuousClock.now
        #expect(throws: RedisError.timeout(endpoint: "127.0.0.1:\(silent.port)", operation: "reply", seconds: 0.3)) {
            try connection.command(["PING"])
        }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(2), "\(elapsed)")
    }

    @Test func commandsFromManyThreadsTakeTurnsOnOneConnection() async throws {
        let server = try RedisServer()
        let connection = RedisConnection(url: server.url())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<50 { _ = try connection.command(["INCR", "shared"]) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try connection.command(["GET", "shared"]).string == "400")
    }

    @Test func afterRedisRestartsTheNextCommandReconnects() throws {
        let server = try RedisServer()
        let connection = RedisConnection(url: server.url(), connectTimeout: 1)
        _ = try connection.command(["SET", "before", "1"])
        server.stop()
        do {
            _ = try connection.command(["PING"])
            Issue.record("PING succeeded with Redis down")
        } catch {
            guard case .cannotConnect = error else { throw error }
        }
        try server.restart()
        #expect(try connection.command(["PING"]) == .status("PONG"))
        // No persistence: the restarted server is empty.
        #expect(try connection.command(["GET", "before"]).isNil)
    }
}
