import Foundation
import RingerKit
import RingerSandbox
import RingerScenarios
import RingerServer
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerStore

/// Group calls through the API (decision 0007 §5–§7): each bad callee list is refused with its problem before anything
/// is stored or rung; ring-more is for the parties of a live call; each callee rung spends the caller's rate limits; and,
/// against the APNs and FCM sandboxes and simulated iPhones running today's RingerKit, each callee's phone rings with
/// its own view of the call (the push names the others) and the first answer stops every other callee's phone.
@Suite(.serialized) struct GroupCallAPITests {
    typealias API = APITests

    /// Tokens for `users` and, for each, a registered iPhone `<user>-phone` with a VoIP token of its own.
    static func users(_ http: TestHTTP, _ users: [String]) async throws -> [String: String] {
        var tokens: [String: String] = [:]
        for (index, user) in users.enumerated() {
            let token = try await API.token(http, user, name: user.capitalized)
            try await API.registerPhone(
                http, token: token, device: "\(user)-phone", voip: String(format: "%064x", index + 1))
            tokens[user] = token
        }
        return tokens
    }

    static func create(_ http: TestHTTP, _ token: String, _ json: String) async throws -> TestHTTP.Response {
        try await http.send("POST", "/v1/calls", token: token, json: json)
    }

    @Test func eachBadCalleeListIsRefusedWithItsProblemAndNothingIsStoredOrRung() async throws {
        try await API.withServer { http in
            let tokens = try await Self.users(http, ["alice", "bob", "carol"])
            let alice = try #require(tokens["alice"])
            let seventeen = (0..<17).map { "\"u\($0)\"" }.joined(separator: ",")
            let cases: [(String, Int, ProblemType)] = [
                (#"{"callees":[]}"#, 422, .invalidField),
                (#"{"callees":["bob"],"callee":"bob"}"#, 422, .invalidField),
                (#"{"callees":["bob","no spaces"]}"#, 422, .invalidField),
                (#"{"callees":["bob"],"answer_policy":"ring_in_turn"}"#, 422, .invalidField),
                (#"{"callee":"bob","answer_policy":"all_may_join"}"#, 422, .invalidField),
                (#"{"callees":["bob","alice"]}"#, 422, .selfCall),
                (#"{"callees":["bob","carol","bob"]}"#, 422, .duplicateCallee),
                ("{\"callees\":[\(seventeen)]}", 422, .tooManyCallees),
                (#"{"callees":["bob","nobody","ghost"]}"#, 404, .userNotFound),
                (#"{"has_video":true}"#, 400, .malformedRequest),
            ]
            for (body, status, type) in cases {
                let response = try await Self.create(http, alice, body)
                API.expectProblem(response, status: status, type: type)
                if type == .duplicateCallee { #expect(response.object["callees"] as? [String] == ["bob"]) }
                if type == .userNotFound { #expect(response.object["callees"] as? [String] == ["nobody", "ghost"]) }
                if type == .tooManyCallees { #expect((response.object["detail"] as? String)?.contains("16") == true) }
            }
            // Nothing was stored: nobody has a call, and nobody's stream has an event.
            for (user, token) in tokens {
                let list = try await http.send("GET", "/v1/calls", token: token)
                #expect(try list.decode(CallList.self).calls.isEmpty, "\(user) has a call")
            }
        }
    }

    @Test func aGroupCallShowsEachCalleeTheirLegAndTheCallerEveryLeg() async throws {
        try await API.withServer { http in
            let tokens = try await Self.users(http, ["alice", "bob", "carol"])
            let created = try await Self.create(
                http, try #require(tokens["alice"]), #"{"callees":["bob","carol"],"answer_policy":"all_may_join"}"#)
            #expect(created.status == 201)
            let call = try created.decode(Call.self)
            #expect(call.state == .ringing && call.answerPolicy == .allMayJoin && call.callee.id == "bob")
            #expect(call.legs?.map(\.user) == [Party(id: "bob", name: "Bob"), Party(id: "carol", name: "Carol")])
            let accept = try await http.send(
                "POST", "/v1/calls/\(call.callID)/accept", token: tokens["carol"], json: #"{"device_id":"carol-phone"}"#
            )
            #expect(accept.status == 200)
            let answered = try accept.decode(AcceptResponse.self)
            #expect(answered.call.callee.id == "carol" && answered.call.state == .accepted)
            #expect(!answered.media.token.isEmpty)
            // Bob still rings: he reads his own leg, the caller reads the call.
            let bob = try await http.send("GET", "/v1/calls/\(call.callID)", token: tokens["bob"]).decode(Call.self)
            #expect(bob.callee.id == "bob" && bob.state == .ringing)
            let alice = try await http.send("GET", "/v1/calls/\(call.callID)", token: tokens["alice"]).decode(Call.self)
            #expect(alice.state == .accepted && alice.legs?.map(\.state) == [.ringing, .accepted])
            // Bob, still ringing, joins; carol leaves and the call goes on with bob until he leaves too.
            let joined = try await http.send(
                "POST", "/v1/calls/\(call.callID)/accept", token: tokens["bob"], json: #"{"device_id":"bob-phone"}"#)
            #expect(joined.status == 200)
            let left = try await http.send("POST", "/v1/calls/\(call.callID)/end", token: tokens["carol"])
            #expect(try left.decode(Call.self).state == .ended)
            let keepalive = try await http.send("POST", "/v1/calls/\(call.callID)/keepalive", token: tokens["carol"])
            API.expectProblem(keepalive, status: 409, type: .callStateConflict)
            #expect(keepalive.object["leg_state"] as? String == "left")
            #expect(
                try await http.send("POST", "/v1/calls/\(call.callID)/keepalive", token: tokens["bob"]).status == 204)
            #expect(
                try await http.send("POST", "/v1/calls/\(call.callID)/keepalive", token: tokens["alice"]).status == 204)
            _ = try await http.send("POST", "/v1/calls/\(call.callID)/end", token: tokens["bob"])
            let over = try await http.send("GET", "/v1/calls/\(call.callID)", token: tokens["alice"]).decode(Call.self)
            #expect(over.state == .ended && over.endedBy == "bob" && over.legs?.map(\.state) == [.left, .left])
            // Each callee lists the call as theirs.
            let carolList = try await http.send("GET", "/v1/calls", token: tokens["carol"]).decode(CallList.self)
            #expect(carolList.calls.map(\.callee.id) == ["carol"])
        }
    }

    @Test func ringMoreIsForThePartiesOfALiveCallAndRefusesLegsThatEnded() async throws {
        try await API.withServer { http in
            let tokens = try await Self.users(http, ["alice", "bob", "carol", "dave", "erin", "mallory"])
            let call = try await Self.create(http, try #require(tokens["alice"]), #"{"callees":["bob","carol"]}"#)
                .decode(Call.self)
            let ring = { (user: String, json: String) in
                try await http.send("POST", "/v1/calls/\(call.callID)/ring", token: tokens[user], json: json)
            }
            _ = try await http.send(
                "POST", "/v1/calls/\(call.callID)/decline", token: tokens["carol"],
                json: #"{"device_id":"carol-phone"}"#)
            API.expectProblem(try await ring("mallory", #"{"callees":["dave"]}"#), status: 404, type: .callNotFound)
            let ringingCallee = try await ring("bob", #"{"callees":["dave"]}"#)
            API.expectProblem(ringingCallee, status: 403, type: .forbidden)
            #expect(ringingCallee.object["leg_state"] as? String == "ringing")
            let ended = try await ring("alice", #"{"callees":["dave","carol"]}"#)
            API.expectProblem(ended, status: 409, type: .calleeAlreadyRung)
            #expect(ended.object["callees"] as? [String] == ["carol"])
            API.expectProblem(try await ring("alice", #"{"callees":["alice"]}"#), status: 422, type: .selfCall)
            API.expectProblem(try await ring("alice", #"{"callees":["zed"]}"#), status: 404, type: .userNotFound)
            // Bob already rings: nothing changes, and a retry rings nobody twice.
            #expect(try await ring("alice", #"{"callees":["bob"]}"#).decode(Call.self).legs?.count == 2)
            let more = try await ring("alice", #"{"callees":["dave"]}"#)
            #expect(more.status == 200)
            #expect(try more.decode(Call.self).legs?.map(\.user.id) == ["bob", "carol", "dave"])
            #expect(try await ring("alice", #"{"callees":["dave"]}"#).decode(Call.self).legs?.count == 3)
            // A callee in the call may ring more, once the call is up.
            _ = try await http.send(
                "POST", "/v1/calls/\(call.callID)/accept", token: tokens["bob"], json: #"{"device_id":"bob-phone"}"#)
            let byBob = try await ring("bob", #"{"callees":["erin"]}"#)
            #expect(byBob.status == 200)
            #expect(try byBob.decode(Call.self).legs?.last?.state == .ringing)
            _ = try await http.send("POST", "/v1/calls/\(call.callID)/end", token: tokens["alice"])
            let over = try await ring("alice", #"{"callees":["mallory"]}"#)
            API.expectProblem(over, status: 409, type: .callStateConflict)
            #expect(over.object["call_state"] as? String == "ended")
        }
    }

    @Test func ringingMoreIntoA1to1CallMakesItAGroupCallItsCalleeStillReads() async throws {
        try await API.withServer { http in
            let tokens = try await Self.users(http, ["alice", "bob", "carol"])
            let call = try await Self.create(http, try #require(tokens["alice"]), #"{"callee":"bob"}"#).decode(
                Call.self)
            #expect(call.legs == nil)
            let more = try await http.send(
                "POST", "/v1/calls/\(call.callID)/ring", token: tokens["alice"], json: #"{"callees":["carol"]}"#)
            #expect(try more.decode(Call.self).legs?.map(\.user.id) == ["bob", "carol"])
            let bob = try await http.send("GET", "/v1/calls/\(call.callID)", token: tokens["bob"]).decode(Call.self)
            #expect(bob.state == .ringing && bob.callee.id == "bob" && bob.answerPolicy == .firstAnswer)
            let accepted = try await http.send(
                "POST", "/v1/calls/\(call.callID)/accept", token: tokens["carol"], json: #"{"device_id":"carol-phone"}"#
            )
            #expect(accepted.status == 200)
            let lost = try await http.send(
                "POST", "/v1/calls/\(call.callID)/accept", token: tokens["bob"], json: #"{"device_id":"bob-phone"}"#)
            API.expectProblem(lost, status: 409, type: .answeredElsewhere)
            #expect(
                lost.object["call_state"] as? String == "accepted" && lost.object["leg_state"] as? String == "cancelled"
            )
        }
    }

    @Test func eachCalleeRungSpendsOneOfTheCallersCallsAllOrNone() async throws {
        try await API.withServer(configure: { $0.rateLimits.callsPerCallerPerMinute = 4 }) { http in
            let tokens = try await Self.users(http, ["alice", "bob", "carol", "dave", "erin"])
            let alice = try #require(tokens["alice"])
            #expect(try await Self.create(http, alice, #"{"callees":["bob","carol","dave"]}"#).status == 201)
            // One call is left: two callees are refused, and spend nothing.
            let refused = try await Self.create(http, alice, #"{"callees":["erin","bob"]}"#)
            API.expectProblem(refused, status: 429, type: .rateLimited)
            #expect((refused.object["detail"] as? String)?.contains("rate-limit-calls-per-minute") == true)
            #expect(try await Self.create(http, alice, #"{"callee":"erin"}"#).status == 201)
            let erin = try await http.send("GET", "/v1/calls", token: tokens["erin"]).decode(CallList.self)
            #expect(erin.calls.count == 1 && erin.calls[0].legs == nil)
        }
    }

    /// Found by review: a refusal naming the one unknown id of a list told the others exist for one unit, so a list of
    /// known ids and a decoy confirmed ids 15 times faster than 1:1 calls; now every id of a refused list spends one.
    @Test func aRefusedListSpendsAnUnknownCalleeUnitForEveryIdItNames() async throws {
        try await API.withServer(configure: { $0.rateLimits.unknownCalleesPerMinute = 8 }) { http in
            let tokens = try await Self.users(http, ["alice", "bob", "carol", "dave", "erin", "frank"])
            let alice = try #require(tokens["alice"])
            let probe = #"{"callees":["bob","carol","dave","erin","frank","decoy"]}"#
            API.expectProblem(try await Self.create(http, alice, probe), status: 404, type: .userNotFound)
            API.expectProblem(try await Self.create(http, alice, probe), status: 404, type: .userNotFound)
            API.expectProblem(try await Self.create(http, alice, probe), status: 429, type: .rateLimited)
        }
    }

    /// Found by review: when both callees of an `all_may_join` call went silent, "call ended by the server" was logged
    /// once per silent leg, the later ones by legs of a call already over.
    @Test func aGroupCallWhoseCalleesAllWentSilentIsLoggedAsEndedOnce() async throws {
        let clock = ManualServerClock(start: Date(timeIntervalSince1970: 1_900_000_000), sleeps: .untilPassed)
        let handler = PushRecordEncodingTests.RecordingLogHandler()
        try await API.withServer(
            clock: clock, logger: Logger(label: "test", level: .info, handler: handler),
            configure: { $0.callIdleTimeout = 120 }
        ) { http, _ in
            let tokens = try await Self.users(http, ["alice", "bob", "carol"])
            let call = try await Self.create(
                http, try #require(tokens["alice"]), #"{"callees":["bob","carol"],"answer_policy":"all_may_join"}"#
            ).decode(Call.self)
            for user in ["bob", "carol"] {
                let accept = try await http.send(
                    "POST", "/v1/calls/\(call.callID)/accept", token: tokens[user],
                    json: #"{"device_id":"\#(user)-phone"}"#)
                #expect(accept.status == 200)
            }
            for _ in 0..<6 { await clock.step(by: 100) }
            let over = try await http.send("GET", "/v1/calls/\(call.callID)", token: tokens["alice"]).decode(Call.self)
            #expect(over.state == .ended && over.endReason == .connectionLost)
            // The watchers of both legs have had their turn.
            try await Task.sleep(for: .milliseconds(200))
            let ended = handler.events.withLock { $0 }.filter { $0.message == "call ended by the server" }
            #expect(ended.count == 1, "\(ended.map(\.metadata))")
        }
    }

    /// Found by review: pushes were matched to a callee by device id alone, and device ids are unique per user only, so
    /// carol read bob's push outcomes (and his phone's readiness) when both named their phone `phone`.
    @Test func aCalleeReadsOnlyTheirOwnPushesWhenAnotherNamesTheirPhoneAlike() async throws {
        let stack = try await LocalStack.start()
        for user in ["bob", "carol"] {
            let phone = try await stack.phone(
                user: user, name: user.capitalized, deviceID: "phone", behaviour: .ignore)
            phone.setAppState(.killed)
        }
        let http = TestHTTP(base: stack.serverURL)
        let token = try await stack.userToken(for: "alice", name: "Alice")
        let call = try await Self.create(http, token, #"{"callees":["bob","carol"]}"#).decode(Call.self)
        for user in ["bob", "carol"] {
            let userToken = try await stack.userToken(for: user, name: nil)
            var pushes: [[String: Any]] = []
            for _ in 0..<200 where pushes.isEmpty {
                pushes =
                    (try await http.send("GET", "/v1/calls/\(call.callID)/pushes", token: userToken).object["pushes"]
                        as? [[String: Any]]) ?? []
                if pushes.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
            }
            // Let the other callee's push land too: it must still not show.
            try await Task.sleep(for: .milliseconds(200))
            pushes =
                (try await http.send("GET", "/v1/calls/\(call.callID)/pushes", token: userToken).object["pushes"]
                    as? [[String: Any]]) ?? []
            #expect(pushes.count == 1, "\(user): \(pushes)")
            #expect(pushes.allSatisfy { $0["user_id"] as? String == user && $0["device_id"] as? String == "phone" })
        }
        await stack.shutdown()
    }

    @Test func eachCalleesPhoneRingsWithItsOwnViewAndTheFirstAnswerStopsTheOthers() async throws {
        let stack = try await LocalStack.start()
        let observed = LockedValue<[String: [SimulatedIPhone.Observation]]>([:])
        var phones: [String: SimulatedIPhone] = [:]
        for (user, behaviour) in [("bob", SimulatedIPhone.Behaviour.answer(after: 0.5)), ("carol", .ignore)] {
            phones[user] = try await stack.phone(
                user: user, name: user.capitalized, deviceID: "\(user)-iphone", behaviour: behaviour
            ) { observation in observed.withLock { $0[user, default: []].append(observation) } }
            phones[user]?.setAppState(.killed)
        }
        let daveMessages = LockedValue<[FCMSandboxMessage]>([])
        _ = try await FCMSandboxPhone.register(on: stack, user: "dave", deviceID: "dave-pixel") { message in
            daveMessages.withLock { $0.append(message) }
            return .userVisible
        }
        let token = try await stack.userToken(for: "alice", name: "Alice")
        let http = TestHTTP(base: stack.serverURL)
        let created = try await Self.create(http, token, #"{"callees":["bob","carol","dave"]}"#)
        #expect(created.status == 201)
        let call = try created.decode(Call.self)

        // Carol's phone rang, then stopped: bob answered.
        #expect(
            await eventually(within: 15) {
                observed.withLock { $0["carol"] ?? [] }.contains {
                    if case .callKitEnded(call.callID, .answeredElsewhere) = $0 { true } else { false }
                }
            })
        #expect(observed.withLock { $0["bob"] ?? [] }.contains { if case .userAnswered = $0 { true } else { false } })
        // Every VoIP push names its recipient and the two others, and carries that recipient's deadline.
        let voip = stack.sandbox.acceptedPushes.filter { $0.pushType == "voip" }
        for (user, phone) in phones {
            let push = try #require(voip.first { $0.deviceToken == phone.identity.voipToken })
            let body = try RingerJSON.decode(VoIPPush.self, from: push.payload).ringer
            #expect(body.calleeID == user && body.callID == call.callID)
            #expect(body.group?.count == 3)
            #expect(Set(body.group?.others.map(\.id) ?? []) == Set(["bob", "carol", "dave"]).subtracting([user]))
        }
        // Dave's Android device got the same body over FCM, then a message that stops its ringing.
        #expect(await eventually(within: 10) { daveMessages.withLock { $0.count } >= 2 })
        let ringing = try #require(daveMessages.withLock { $0 }.first { FCMSandboxPhone.ringingCallID($0) != nil })
        let body = try RingerJSON.decode(VoIPPush.Body.self, from: Data(try #require(ringing.data["ringer"]).utf8))
        #expect(body.calleeID == "dave" && body.group?.others.map(\.id) == ["bob", "carol"])
        #expect(
            daveMessages.withLock { $0 }.contains { $0.data["ringer"]?.contains("call.answered_elsewhere") == true })
        let api = RingerAPIClient(baseURL: stack.serverURL, userToken: token)
        let seen = try await api.call(id: call.callID)
        #expect(seen.state == .accepted && seen.legs?.map(\.state) == [.accepted, .cancelled, .cancelled])
        await stack.shutdown()
    }

    /// A rolling upgrade: while a server that does not know group calls is alive (its heartbeat leaves `group_calls`
    /// unset), group calls and ring-mores are refused 503, and 1:1 calls go on (decision 0007 §5).
    @Test func groupCallsWaitForEveryLiveServerToKnowThem() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-fence-\(UUID().uuidString).sqlite"
        ).path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        try await API.withServer(configure: { $0.databasePath = path }) { http in
            let tokens = try await Self.users(http, ["alice", "bob", "carol"])
            let alice = try #require(tokens["alice"])
            let single = try await Self.create(http, alice, #"{"callee":"bob"}"#).decode(Call.self)
            let older = try SQLiteStore(path: path)
            try await older.run { db in
                try db.query(
                    "INSERT INTO ringer_nodes (node, heartbeat_at) VALUES ('previous-release', ?)",
                    [.real(Date().timeIntervalSince1970)])
            }
            API.expectProblem(
                try await Self.create(http, alice, #"{"callees":["bob","carol"]}"#), status: 503, type: .unavailable)
            API.expectProblem(
                try await http.send(
                    "POST", "/v1/calls/\(single.callID)/ring", token: alice, json: #"{"callees":["carol"]}"#),
                status: 503, type: .unavailable)
            #expect(try await Self.create(http, alice, #"{"callee":"carol"}"#).status == 201)
            // The old server stops: ten seconds later its heartbeat is stale and group calls ring.
            try await older.run { db in
                try db.query(
                    "UPDATE ringer_nodes SET heartbeat_at = ? WHERE node = 'previous-release'",
                    [.real(Date().timeIntervalSince1970 - 11)])
            }
            #expect(try await Self.create(http, try #require(tokens["bob"]), #"{"callees":["carol"]}"#).status == 201)
        }
    }

    /// RingerKit end to end: a caller's app places a group call with `startGroupCall`, the first callee's answer
    /// connects it, and the caller's coordinator knows every leg as it changed (decision 0007 §8).
    @Test func aCallersAppPlacesAGroupCallAndSeesEachLeg() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.phone(
            user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .answer(after: 0.3))
        let carol = try await stack.phone(user: "carol", name: "Carol", deviceID: "carol-iphone", behaviour: .ignore)
        _ = (bob, carol)
        let call = try await alice.callGroup(["bob", "carol"])
        #expect(call.legs?.map(\.user.id) == ["bob", "carol"] && call.state == .ringing)
        let coordinator = try #require(alice.coordinator)
        #expect(
            await eventually(within: 10) {
                coordinator.participants(callID: call.callID)?.map(\.state) == [.accepted, .cancelled]
            })
        #expect(coordinator.currentCalls().first { $0.uuid.uuidString.lowercased() == call.callID }?.phase == .active)
        // Ringing one more into the call that is up: the new leg rings and the caller sees it.
        let dave = try await stack.phone(user: "dave", name: "Dave", deviceID: "dave-iphone", behaviour: .ignore)
        _ = dave
        let more = try await coordinator.ringMore(callID: call.callID, callees: ["dave"])
        #expect(more.legs?.last?.user.id == "dave" && more.legs?.last?.state == .ringing)
        #expect(coordinator.participants(callID: call.callID)?.count == 3)
        await stack.shutdown()
    }
}
