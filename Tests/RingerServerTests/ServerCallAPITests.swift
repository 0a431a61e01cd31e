import Foundation
import RingerCore
import RingerSandbox
import RingerScenarios
import RingerStore
import RingerWire
import Testing

@testable import RingerServer

/// The server call API (decision 0009 §2): the app's backend places, cancels, ends, reads and lists calls with an
/// API key.
@Suite struct ServerCallAPITests {
    /// A key holding both call scopes.
    static func callsKey(_ http: TestHTTP) async throws -> String {
        try await APIKeyTests.makeKey(http, scopes: ["calls:write", "calls:read"]).key
    }

    /// Bob, registered with an iPhone.
    static func bob(_ http: TestHTTP) async throws -> String {
        let token = try await APITests.token(http, "bob", name: "Bob")
        try await APITests.registerPhone(http, token: token, device: "bob-iphone")
        return token
    }

    @Test func aBackendPlacesACallForAUserItNeverSawAndTheCalleeRings() async throws {
        try await APITests.withServer { http in
            let key = try await Self.callsKey(http)
            let bob = try await Self.bob(http)
            let placed = try await http.send(
                "POST", "/v1/server/calls", token: key,
                json: #"{"caller_id":"dr-lee","caller_name":"Dr Lee","callee":"bob","has_video":true}"#)
            #expect(placed.status == 201)
            let call = try placed.decode(Call.self)
            #expect(call.state == .ringing && call.caller == Party(id: "dr-lee", name: "Dr Lee") && call.hasVideo)
            // The callee sees it as any call; and Dr Lee now exists: bob may call back.
            let read = try await http.send("GET", "/v1/calls/\(call.callID)", token: bob)
            #expect(try read.decode(Call.self).caller.name == "Dr Lee")
            let back = try await http.send("POST", "/v1/calls", token: bob, json: #"{"callee":"dr-lee"}"#)
            #expect(back.status == 201)
        }
    }

    @Test func aCallerWithoutANameShowsTheNameTheServerKnowsFromTheAppAndFromTheBackend() async throws {
        try await APITests.withServer { http in
            let key = try await Self.callsKey(http)
            _ = try await Self.bob(http)
            _ = try await APITests.token(http, "carol", name: "Carol")
            _ = try await APITests.token(http, "alice", name: "Alice")  // the server now knows her name
            let nameless = try await APITests.token(http, "alice")
            let fromApp = try await http.send("POST", "/v1/calls", token: nameless, json: #"{"callee":"bob"}"#)
            #expect(fromApp.status == 201)
            #expect(try fromApp.decode(Call.self).caller == Party(id: "alice", name: "Alice"))
            let fromBackend = try await http.send(
                "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"alice","callee":"carol"}"#)
            #expect(fromBackend.status == 201)
            #expect(try fromBackend.decode(Call.self).caller == Party(id: "alice", name: "Alice"))
        }
    }

    @Test func aRetryWithTheSameIdempotencyKeyMakesOneCall() async throws {
        try await APITests.withServer { http in
            let key = try await Self.callsKey(http)
            _ = try await Self.bob(http)
            var ids: Set<String> = []
            for _ in 0..<3 {
                let placed = try await http.send(
                    "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"alice","callee":"bob"}"#,
                    headers: ["Idempotency-Key": "order-77"])
                #expect(placed.status == 201)
                ids.insert(try placed.decode(Call.self).callID)
            }
            #expect(ids.count == 1)
        }
    }

    @Test func theBackendCancelsARingingCallAndEndsAnAnsweredOne() async throws {
        try await APITests.withServer { http in
            let key = try await Self.callsKey(http)
            let bob = try await Self.bob(http)
            let place = { () async throws -> Call in
                try
                    (try await http.send(
                        "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"alice","callee":"bob"}"#)).decode(
                        Call.self)
            }
            // Cancel a ringing call, twice.
            let ringing = try await place()
            for _ in 0..<2 {
                let cancelled = try await http.send("POST", "/v1/server/calls/\(ringing.callID)/cancel", token: key)
                #expect(cancelled.status == 200)
                let call = try cancelled.decode(Call.self)
                #expect(call.state == .cancelled && call.endedBy == nil)
            }
            // An answered call cannot be cancelled, but is ended.
            let answered = try await place()
            #expect(
                try await http.send(
                    "POST", "/v1/calls/\(answered.callID)/accept", token: bob, json: #"{"device_id":"bob-iphone"}"#
                ).status == 200)
            APITests.expectProblem(
                try await http.send("POST", "/v1/server/calls/\(answered.callID)/cancel", token: key),
                status: 409, type: .callStateConflict)
            let ended = try await http.send("POST", "/v1/server/calls/\(answered.callID)/end", token: key)
            let call = try ended.decode(Call.self)
            #expect(call.state == .ended && call.endReason == .endedByBackend && call.endedBy == nil)
            // Ending again answers the call as it is.
            #expect(try await http.send("POST", "/v1/server/calls/\(answered.callID)/end", token: key).status == 200)
            // The parties read the same end.
            let read = try await http.send("GET", "/v1/calls/\(answered.callID)", token: bob)
            #expect(try read.decode(Call.self).endReason == .endedByBackend)
            // An unknown call.
            APITests.expectProblem(
                try await http.send("POST", "/v1/server/calls/\(UUID().uuidString)/end", token: key),
                status: 404, type: .callNotFound)
        }
    }

    @Test func theBackendReadsAnyCallWithEveryPushOutcome() async throws {
        let stack = try await LocalStack.start()
        let key = try await stack.apiKey(scopes: [.callsRead])
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore)
        bob.setAppState(.killed)
        let call = try await alice.call("bob")
        let http = TestHTTP(base: stack.serverURL)
        var pushes: [PushAttempt] = []
        for _ in 0..<200 where pushes.isEmpty {
            let read = try await http.send("GET", "/v1/server/calls/\(call.callID)", token: key)
            #expect(read.status == 200)
            pushes = try read.decode(Call.self).pushes ?? []
            if pushes.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
        }
        #expect(pushes.map(\.deviceID) == ["bob-iphone"] && pushes.first?.status == 200)
        await stack.shutdown()
    }

    @Test func aKeyIsHeldToItsScopes() async throws {
        try await APITests.withServer { http in
            let reader = try await APIKeyTests.makeKey(http, scopes: ["calls:read"]).key
            let writer = try await APIKeyTests.makeKey(http, scopes: ["calls:write"]).key
            _ = try await Self.bob(http)
            let refused = try await http.send(
                "POST", "/v1/server/calls", token: reader, json: #"{"caller_id":"alice","callee":"bob"}"#)
            APITests.expectProblem(refused, status: 403, type: .insufficientScope)
            #expect(refused.wwwAuthenticate?.contains(#"scope="calls:write""#) == true)
            APITests.expectProblem(
                try await http.send("GET", "/v1/server/calls", token: writer), status: 403, type: .insufficientScope)
            // Nothing was placed.
            let list = try await http.send("GET", "/v1/server/calls", token: reader)
            #expect(try list.decode(ServerCallList.self).calls.isEmpty)
            // A user token is no key.
            let alice = try await APITests.token(http, "alice")
            APITests.expectProblem(
                try await http.send("GET", "/v1/server/calls", token: alice), status: 401, type: .unauthorized)
        }
    }

    @Test func aCallTheBackendCannotPlaceIsRefusedAndStoresNothing() async throws {
        try await APITests.withServer { http in
            let key = try await Self.callsKey(http)
            _ = try await Self.bob(http)
            let bodies: [(String, Int, ProblemType)] = [
                (#"{"callee":"bob"}"#, 400, .malformedRequest),
                (#"{"caller_id":"a b","callee":"bob"}"#, 422, .invalidField),
                (#"{"caller_id":"alice","caller_name":"","callee":"bob"}"#, 422, .invalidField),
                (#"{"caller_id":"alice"}"#, 400, .malformedRequest),
                (#"{"caller_id":"bob","callee":"bob"}"#, 422, .selfCall),
                (#"{"caller_id":"alice","callee":"nobody"}"#, 404, .userNotFound),
                (#"{"caller_id":"alice","callee":"bob","callees":["bob"]}"#, 422, .invalidField),
            ]
            for (body, status, type) in bodies {
                APITests.expectProblem(
                    try await http.send("POST", "/v1/server/calls", token: key, json: body), status: status, type: type)
            }
            let list = try await http.send("GET", "/v1/server/calls", token: key)
            #expect(try list.decode(ServerCallList.self).calls.isEmpty)
        }
    }

    @Test func historyIsFilteredByUserStateMissedAndTimeAndPagedWithACursor() async throws {
        try await APITests.withServer(configure: { $0.rateLimits = .off }) { http in
            let key = try await Self.callsKey(http)
            let bob = try await Self.bob(http)
            let carol = try await APITests.token(http, "carol")
            try await APITests.registerPhone(
                http, token: carol, device: "carol-iphone", voip: String(repeating: "cd", count: 32))
            let start = Date()
            func place(_ caller: String, _ callee: String) async throws -> String {
                try
                    (try await http.send(
                        "POST", "/v1/server/calls", token: key,
                        json: #"{"caller_id":"\#(caller)","callee":"\#(callee)"}"#)).decode(Call.self).callID
            }
            // bob misses one (cancelled), declines one, answers one; carol misses one.
            let missed = try await place("alice", "bob")
            _ = try await http.send("POST", "/v1/server/calls/\(missed)/cancel", token: key)
            let declined = try await place("alice", "bob")
            _ = try await http.send(
                "POST", "/v1/calls/\(declined)/decline", token: bob, json: #"{"device_id":"bob-iphone"}"#)
            let answered = try await place("dave", "bob")
            _ = try await http.send(
                "POST", "/v1/calls/\(answered)/accept", token: bob, json: #"{"device_id":"bob-iphone"}"#)
            _ = try await http.send("POST", "/v1/server/calls/\(answered)/end", token: key)
            let carols = try await place("alice", "carol")
            _ = try await http.send("POST", "/v1/server/calls/\(carols)/cancel", token: key)
            func list(_ query: String) async throws -> ServerCallList {
                let response = try await http.send("GET", "/v1/server/calls?\(query)", token: key)
                #expect(response.status == 200, "\(query): \(String(decoding: response.body, as: UTF8.self))")
                return try response.decode(ServerCallList.self)
            }
            #expect(try await list("").calls.map(\.callID) == [carols, answered, declined, missed])
            #expect(try await list("user_id=bob").calls.map(\.callID) == [answered, declined, missed])
            #expect(try await list("user_id=bob&missed=true").calls.map(\.callID) == [missed])
            #expect(try await list("user_id=alice&missed=true").calls.isEmpty)
            #expect(try await list("state=cancelled").calls.map(\.callID) == [carols, missed])
            #expect(try await list("state=declined,ended").calls.map(\.callID) == [answered, declined])
            let future = ISO8601DateFormatter().string(from: start.addingTimeInterval(3600))
            let past = ISO8601DateFormatter().string(from: start.addingTimeInterval(-3600))
            #expect(try await list("since=\(future)").calls.isEmpty)
            #expect(try await list("until=\(past)").calls.isEmpty)
            #expect(try await list("since=\(past)&until=\(future)").calls.count == 4)
            // Two at a time: two full pages, then the end.
            let first = try await list("limit=2")
            #expect(first.calls.map(\.callID) == [carols, answered] && first.nextCursor == answered)
            let second = try await list("limit=2&cursor=\(try #require(first.nextCursor))")
            #expect(second.calls.map(\.callID) == [declined, missed])
            let third = try await list("limit=2&cursor=\(try #require(second.nextCursor))")
            #expect(third.calls.isEmpty && third.nextCursor == nil)
        }
    }

    @Test func aHistoryQueryTheServerCannotReadIsRefused() async throws {
        try await APITests.withServer { http in
            let key = try await Self.callsKey(http)
            for query in [
                "user_id=a%20b", "state=ringing,", "state=lost", "missed=yes", "missed=true", "since=yesterday",
                "until=2026-13-01T00:00:00Z", "limit=0", "limit=101", "cursor=abc", "cursor=\(UUID().uuidString)",
            ] {
                APITests.expectProblem(
                    try await http.send("GET", "/v1/server/calls?\(query)", token: key), status: 422,
                    type: .invalidField)
            }
        }
    }

    @Test func aGroupCallPlacedByTheBackendIsCancelledForEveryCallee() async throws {
        try await APITests.withServer { http in
            let key = try await Self.callsKey(http)
            _ = try await Self.bob(http)
            let carol = try await APITests.token(http, "carol")
            try await APITests.registerPhone(
                http, token: carol, device: "carol-iphone", voip: String(repeating: "cd", count: 32))
            let placed = try await http.send(
                "POST", "/v1/server/calls", token: key, json: #"{"caller_id":"alice","callees":["bob","carol"]}"#)
            #expect(placed.status == 201)
            let id = try placed.decode(Call.self).callID
            let cancelled = try (try await http.send("POST", "/v1/server/calls/\(id)/cancel", token: key)).decode(
                Call.self)
            #expect(cancelled.state == .cancelled && cancelled.legs?.allSatisfy { $0.state == .cancelled } == true)
        }
    }
}

/// The history read (``RingerStore/callHistory(ofUser:before:until:limit:)``), alike on SQLite and PostgreSQL.
@Suite struct CallHistoryStoreTests {
    @Test(arguments: StoreKind.allCases) func historyIsReadNewestFirstByUserUntilAndAfterACursor(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        var ids: [String] = []
        var created: [Date] = []
        for (caller, callee) in [("alice", "bob"), ("carol", "dave"), ("bob", "carol")] {
            // Each in a millisecond of its own, so `until` can fall between them.
            try await Task.sleep(for: .milliseconds(3))
            let machine = StoreConformanceTests.ringingCall(caller: caller, callee: callee)
            _ = try await store.insertCall(machine, events: [], idempotencyKey: nil)
            ids.append(machine.call.callID)
            created.append(machine.call.createdAt)
        }
        let all = try #require(try await store.callHistory(ofUser: nil, before: nil, until: nil, limit: 10))
        #expect(all.map(\.call.callID) == ids.reversed())
        let bobs = try #require(try await store.callHistory(ofUser: "bob", before: nil, until: nil, limit: 10))
        #expect(bobs.map(\.call.callID) == [ids[2], ids[0]])
        let early = try await store.callHistory(ofUser: nil, before: nil, until: created[1], limit: 10)
        #expect(early?.map(\.call.callID) == [ids[0]])
        let after = try await store.callHistory(ofUser: nil, before: ids[2], until: nil, limit: 1)
        #expect(after?.map(\.call.callID) == [ids[1]])
        #expect(
            try await store.callHistory(ofUser: nil, before: UUID().uuidString.lowercased(), until: nil, limit: 1)
                == nil)
    }
}
