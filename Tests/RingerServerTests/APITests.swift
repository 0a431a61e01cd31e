import Foundation
import RingerSupport
import RingerServer
import RingerWire
import Testing

/// The HTTP API against a real server on a loopback port, SQLite in a temporary folder, no APNs.
@Suite(.serialized) struct APITests {
    static let adminKey = "test-admin-key"

    /// Starts a server, runs `body`, shuts it down and removes its files.
    /// - Parameters:
    ///   - clock: the server's clock (a test clock makes ring deadlines controllable).
    ///   - configure: changes to the default test configuration.
    static func withServer(
        clock: any ServerClock = SystemServerClock(),
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestHTTP) async throws -> Void
    ) async throws {
        try await withServer(clock: clock, configure: configure) { http, _ in try await body(http) }
    }

    /// Runs `body` against a started server on a fresh database, with the server itself (for its
    /// presence queries); shuts it down afterwards.
    static func withServer(
        clock: any ServerClock = SystemServerClock(),
        logger: Logger = .silent(),
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestHTTP, RingerServer) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = ServerConfiguration()
        config.port = 0
        config.databasePath = directory.appendingPathComponent("ringer.sqlite").path
        config.adminKey = adminKey
        config.userTokenSecret = String(repeating: "s", count: 32)
        configure(&config)
        let server = try RingerServer(configuration: config, clock: clock, logger: logger)
        let port = try await server.start()
        do {
            try await body(TestHTTP(base: URL(string: "http://127.0.0.1:\(port)")!), server)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    static func token(_ http: TestHTTP, _ user: String, name: String? = nil) async throws -> String {
        let nameJSON = name.map { ",\"name\":\"\($0)\"" } ?? ""
        let response = try await http.send(
            "POST", "/v1/tokens", token: adminKey, json: "{\"user_id\":\"\(user)\"\(nameJSON)}")
        #expect(response.status == 201)
        return try response.decode(TokenResponse.self).token
    }

    static let voip = String(repeating: "ab", count: 32)

    static func registerPhone(_ http: TestHTTP, token: String, device: String, voip: String = voip) async throws {
        let response = try await http.send(
            "PUT", "/v1/devices/\(device)", token: token,
            json: """
                {"platform":"ios","voip_token":"\(voip)","apns_environment":"sandbox","bundle_id":"com.example.app"}
                """)
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    }

    static func expectProblem(
        _ response: TestHTTP.Response, status: Int, type: ProblemType,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(response.contentType == "application/problem+json", sourceLocation: sourceLocation)
        #expect(response.object["type"] as? String == type.rawValue, sourceLocation: sourceLocation)
        #expect(response.object["status"] as? Int == status, sourceLocation: sourceLocation)
        #expect(response.object["title"] is String, sourceLocation: sourceLocation)
    }

    @Test func healthzAnswersOK() async throws {
        try await Self.withServer { http in
            let response = try await http.send("GET", "/healthz")
            #expect(response.status == 200)
            #expect(response.object["status"] as? String == "ok")
        }
    }

    /// Phones learn the server's timeline from every answer's `Date` as from `stream.ready`: on a test clock (a
    /// laboratory's scaled one) it is the clock's time, not the wall clock's.
    @Test func answersAreDatedByTheServersClock() async throws {
        let clock = ManualServerClock(start: Date(timeIntervalSince1970: 1_900_000_000), sleeps: .untilPassed)
        try await Self.withServer(clock: clock) { http in
            let healthy = try await http.send("GET", "/healthz")
            #expect(healthy.date == "Sun, 17 Mar 2030 17:46:40 GMT", "\(healthy.date ?? "no Date")")
            clock.advance(by: 61.5)
            let problem = try await http.send("GET", "/v1/calls/nope")
            #expect(problem.status == 401)
            #expect(problem.date == "Sun, 17 Mar 2030 17:47:41 GMT", "\(problem.date ?? "no Date")")
        }
    }

    @Test func fullCallLifecycleOverHTTP() async throws {
        try await Self.withServer { http in
            let alice = try await Self.token(http, "alice", name: "Alice")
            let bob = try await Self.token(http, "bob", name: "Bob")
            try await Self.registerPhone(http, token: bob, device: "bob-iphone")

            let created = try await http.send(
                "POST", "/v1/calls", token: alice, json: #"{"callee":"bob","has_video":false}"#)
            #expect(created.status == 201)
            let call = try created.decode(Call.self)
            #expect(call.state == .ringing)
            #expect(call.caller == Party(id: "alice", name: "Alice"))
            #expect(call.callee.id == "bob")
            #expect(call.callID == call.callID.lowercased() && UUID(uuidString: call.callID) != nil)
            #expect(abs(call.expiresAt.timeIntervalSince(call.createdAt) - 45) < 0.01)

            let ringing = try await http.send(
                "POST", "/v1/calls/\(call.callID)/ringing", token: bob,
                json: #"{"device_id":"bob-iphone"}"#)
            #expect(ringing.status == 200)
            let accepted = try await http.send(
                "POST", "/v1/calls/\(call.callID)/accept", token: bob,
                json: #"{"device_id":"bob-iphone"}"#)
            #expect(accepted.status == 200)
            let body = try accepted.decode(AcceptResponse.self)
            #expect(body.call.state == .accepted)
            #expect(body.call.acceptedDeviceID == "bob-iphone")
            #expect(!body.media.token.isEmpty)

            // Accepting again from the same device is idempotent.
            let again = try await http.send(
                "POST", "/v1/calls/\(call.callID)/accept", token: bob,
                json: #"{"device_id":"bob-iphone"}"#)
            #expect(again.status == 200)

            let media = try await http.send("GET", "/v1/calls/\(call.callID)/media", token: alice)
            #expect(media.status == 200)
            let ended = try await http.send("POST", "/v1/calls/\(call.callID)/end", token: alice)
            #expect(try ended.decode(Call.self).state == .ended)
            let list = try await http.send("GET", "/v1/calls?limit=5", token: bob)
            #expect(try list.decode(CallList.self).calls.map(\.callID) == [call.callID])
        }
    }

    @Test func malformedAndMistypedBodiesAreProblemsAndStoreNothing() async throws {
        try await Self.withServer { http in
            let alice = try await Self.token(http, "alice")
            let bob = try await Self.token(http, "bob")
            try await Self.registerPhone(http, token: bob, device: "bob-iphone")
            for json in ["{not json", #"{"callee":5}"#, #"{"callee":"bob","has_video":"yes"}"#, "[]", #"{}"#] {
                let response = try await http.send("POST", "/v1/calls", token: alice, json: json)
                Self.expectProblem(response, status: 400, type: .malformedRequest)
            }
            let empty = try await http.send("POST", "/v1/calls", token: alice)
            Self.expectProblem(empty, status: 400, type: .malformedRequest)
            let list = try await http.send("GET", "/v1/calls", token: alice)
            #expect(try list.decode(CallList.self).calls.isEmpty)
        }
    }

    @Test func unknownCalleeSelfCallAndBadIDsAreRefused() async throws {
        try await Self.withServer { http in
            let alice = try await Self.token(http, "alice")
            Self.expectProblem(
                try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"nobody"}"#),
                status: 404, type: .userNotFound)
            Self.expectProblem(
                try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"alice"}"#),
                status: 422, type: .selfCall)
            Self.expectProblem(
                try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"a b"}"#),
                status: 422, type: .invalidField)
            Self.expectProblem(
                try await http.send("GET", "/v1/calls/not-a-uuid", token: alice),
                status: 404, type: .callNotFound)
            Self.expectProblem(try await http.send("GET", "/v1/nothing", token: alice), status: 404, type: .notFound)
            Self.expectProblem(
                try await http.send("DELETE", "/v1/calls", token: alice), status: 405,
                type: .methodNotAllowed)
        }
    }

    @Test func authenticationIsRequiredAndChecked() async throws {
        try await Self.withServer { http in
            Self.expectProblem(
                try await http.send("POST", "/v1/calls", json: #"{"callee":"bob"}"#),
                status: 401, type: .unauthorized)
            Self.expectProblem(
                try await http.send("POST", "/v1/calls", token: "garbage", json: #"{"callee":"bob"}"#),
                status: 401, type: .unauthorized)
            Self.expectProblem(
                try await http.send("POST", "/v1/tokens", token: "wrong", json: #"{"user_id":"x"}"#),
                status: 401, type: .unauthorized)
            // A user token is not an admin key.
            let alice = try await Self.token(http, "alice")
            Self.expectProblem(
                try await http.send("POST", "/v1/tokens", token: alice, json: #"{"user_id":"x"}"#),
                status: 401, type: .unauthorized)
            // Registering a device needs a logged-in user: a token never attaches to nobody.
            Self.expectProblem(
                try await http.send(
                    "PUT", "/v1/devices/d1", json: #"{"platform":"ios","voip_token":"ab","bundle_id":"a.b"}"#),
                status: 401, type: .unauthorized)
        }
    }

    @Test func deviceRegistrationValidatesTokensAndMovesThemBetweenUsers() async throws {
        try await Self.withServer { http in
            let alice = try await Self.token(http, "alice")
            let bob = try await Self.token(http, "bob")
            for json in [
                #"{"platform":"ios","voip_token":"xyz","bundle_id":"com.example.app"}"#,
                #"{"platform":"ios","voip_token":"abc","bundle_id":"com.example.app"}"#,
                #"{"platform":"ios","voip_token":"abcd"}"#,
                #"{"platform":"ios","bundle_id":"com.example.app"}"#,
                #"{"platform":"android"}"#,
                #"{"platform":"windows","fcm_token":"x"}"#,
                #"{"platform":"ios","voip_token":"abcd","bundle_id":"com.example.app","apns_environment":"staging"}"#,
            ] {
                let response = try await http.send("PUT", "/v1/devices/d1", token: alice, json: json)
                Self.expectProblem(response, status: 422, type: .invalidField)
            }
            Self.expectProblem(
                try await http.send(
                    "PUT", "/v1/devices/bad%20id", token: alice,
                    json: #"{"platform":"android","fcm_token":"x"}"#),
                status: 422, type: .invalidField)
            // Tokens longer than 64 hex characters are accepted (Apple does not fix the length).
            try await Self.registerPhone(
                http, token: alice, device: "shared-phone", voip: String(repeating: "cd", count: 50))
            // Bob logs in on the same phone: the token moves to him; alice's device stays, without it, and says why.
            try await Self.registerPhone(
                http, token: bob, device: "shared-phone", voip: String(repeating: "cd", count: 50))
            let aliceDevices = try await http.send("GET", "/v1/devices", token: alice)
            let left = try #require((aliceDevices.object["devices"] as? [[String: Any]])?.first)
            #expect(left["voip_token"] == nil)
            #expect((left["push_problem"] as? [String: Any])?["reason"] as? String == "TokenMovedToAnotherDevice")
            let bobDevices = try await http.send("GET", "/v1/devices", token: bob)
            #expect((bobDevices.object["devices"] as? [Any])?.count == 1)
            // Alice no longer owns it: her (retried) logout succeeds and leaves bob's registration alone.
            #expect(try await http.send("DELETE", "/v1/devices/shared-phone", token: alice).status == 204)
            #expect((try await http.send("GET", "/v1/devices", token: bob).object["devices"] as? [Any])?.count == 1)
            #expect(try await http.send("DELETE", "/v1/devices/shared-phone", token: bob).status == 204)
            #expect(
                (try await http.send("GET", "/v1/devices", token: bob).object["devices"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func onlyParticipantsMayActOnACall() async throws {
        try await Self.withServer { http in
            let alice = try await Self.token(http, "alice")
            let bob = try await Self.token(http, "bob")
            let mallory = try await Self.token(http, "mallory")
            try await Self.registerPhone(http, token: bob, device: "bob-iphone")
            try await Self.registerPhone(
                http, token: mallory, device: "mallory-phone", voip: String(repeating: "ef", count: 32))
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            Self.expectProblem(
                try await http.send("GET", "/v1/calls/\(call.callID)", token: mallory),
                status: 404, type: .callNotFound)
            Self.expectProblem(
                try await http.send(
                    "POST", "/v1/calls/\(call.callID)/accept", token: mallory,
                    json: #"{"device_id":"mallory-phone"}"#),
                status: 404, type: .callNotFound)
            Self.expectProblem(
                try await http.send("POST", "/v1/calls/\(call.callID)/cancel", token: mallory),
                status: 404, type: .callNotFound)
            // The callee may not cancel; the caller may not accept.
            Self.expectProblem(
                try await http.send("POST", "/v1/calls/\(call.callID)/cancel", token: bob),
                status: 403, type: .forbidden)
            Self.expectProblem(
                try await http.send(
                    "POST", "/v1/calls/\(call.callID)/accept", token: bob,
                    json: #"{"device_id":"mallory-phone"}"#),
                status: 422, type: .unknownDevice)
            let stillRinging = try (try await http.send("GET", "/v1/calls/\(call.callID)", token: alice)).decode(
                Call.self)
            #expect(stillRinging.state == .ringing)
            // Cancel, then a late accept is a conflict that says where the call is.
            #expect(try await http.send("POST", "/v1/calls/\(call.callID)/cancel", token: alice).status == 200)
            let late = try await http.send(
                "POST", "/v1/calls/\(call.callID)/accept", token: bob,
                json: #"{"device_id":"bob-iphone"}"#)
            Self.expectProblem(late, status: 409, type: .callStateConflict)
            #expect(late.object["call_state"] as? String == "cancelled")
        }
    }

    @Test func callToUserWithoutDevicesFailsWithAReason() async throws {
        try await Self.withServer { http in
            let alice = try await Self.token(http, "alice")
            _ = try await Self.token(http, "carol")
            let response = try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"carol"}"#)
            #expect(response.status == 201)
            let call = try response.decode(Call.self)
            #expect(call.state == .failed)
            #expect(call.failureReason?.isEmpty == false)
        }
    }
}
