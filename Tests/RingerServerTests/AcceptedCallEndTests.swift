import Foundation
import LibWebSockets
import RingerCommandLine
import RingerKit
import RingerSupport
import RingerServer
import RingerTestSupport
import RingerWire
import Testing

/// Counts the keepalives the server answered, over the real HTTP transport.
final class CountingTransport: HTTPTransport {
    private let base = URLSessionHTTPTransport()
    let answers = LockedValue<[Int]>([])

    func send(
        method: String, url: URL, headers: [String: String], body: Data?
    ) async throws -> (status: Int, body: Data) {
        let response = try await base.send(method: method, url: url, headers: headers, body: body)
        if url.path.hasSuffix("/keepalive") { answers.withLock { $0.append(response.status) } }
        return response
    }
}

/// A native call UI that only keeps what the coordinator reported.
final class PlainCallUI: CallUI {
    let ended = LockedValue<[CallEndReason]>([])
    func reportIncomingCall(_ report: IncomingCallReport, completion: @escaping @Sendable ((any Error)?) -> Void) {
        completion(nil)
    }
    func reportCallEnded(id: UUID, at date: Date, reason: CallEndReason) { ended.withLock { $0.append(reason) } }
    func reportOutgoingCallConnected(id: UUID, at date: Date) {}
    func reportCallAnswered(id: UUID, at date: Date) {}
    func reportCallAnswering(id: UUID, at date: Date) {}
    func requestHeld(id: UUID, held: Bool) {}
    func requestMuted(id: UUID, muted: Bool) {}
    func requestDTMF(id: UUID, digits: String) {}
    func applyAudioOutput(_ output: AudioOutput?) {}
}

/// Accepted calls the server ends itself (issue 12, item 4): when neither party's app was heard from for
/// `--call-idle-timeout`, and at `--max-call-duration`. Real server over loopback, a stepped clock.
@Suite(.serialized) struct AcceptedCallEndTests {
    /// Alice calls bob, bob's phone answers; returns the call id and the tokens.
    static func acceptedCall(
        _ http: TestHTTP, caller: String = "alice", callee: String = "bob"
    )
        async throws -> (callID: String, caller: String, callee: String)
    {
        let callerToken = try await APITests.token(http, caller)
        let calleeToken = try await APITests.token(http, callee)
        try await APITests.registerPhone(
            http, token: calleeToken, device: "\(callee)-iphone",
            voip: String(repeating: callee == "bob" ? "ab" : "cd", count: 32))
        let call = try
            (try await http.send(
                "POST", "/v1/calls", token: callerToken,
                json: "{\"callee\":\"\(callee)\"}")).decode(Call.self)
        let accepted = try await http.send(
            "POST", "/v1/calls/\(call.callID)/accept", token: calleeToken,
            json: "{\"device_id\":\"\(callee)-iphone\"}")
        #expect(accepted.status == 200)
        return (call.callID, callerToken, calleeToken)
    }

    static func state(_ http: TestHTTP, _ callID: String, token: String) async throws -> Call {
        try (try await http.send("GET", "/v1/calls/\(callID)", token: token)).decode(Call.self)
    }

    @Test func anAcceptedCallWhoseBothAppsAreGoneEndsAfterTheIdleLimit() async throws {
        let clock = ManualServerClock(start: Date(timeIntervalSince1970: 1_900_000_000), sleeps: .untilPassed)
        try await APITests.withServer(clock: clock, configure: { $0.callIdleTimeout = 120 }) { http, server in
            let (callID, alice, bob) = try await Self.acceptedCall(http)
            // Both apps had their sockets open during the call, then both went away.
            let aliceSocket = try await EventStreamTests.connect(
                http, token: alice, query: "device_id=alice-iphone",
                inbox: EventStreamTests.Inbox())
            let bobSocket = try await EventStreamTests.connect(
                http, token: bob, query: "device_id=bob-iphone",
                inbox: EventStreamTests.Inbox())
            #expect(await eventuallyAsync { await server.eventStreamCount(userID: "alice") == 1 })
            #expect(await eventuallyAsync { await server.eventStreamCount(userID: "bob") == 1 })
            await clock.step(by: 300)
            #expect(try await Self.state(http, callID, token: alice).state == .accepted)
            aliceSocket.close()
            bobSocket.close()
            #expect(await eventuallyAsync { await server.eventStreamCount(userID: "alice") == 0 })
            #expect(await eventuallyAsync { await server.eventStreamCount(userID: "bob") == 0 })

            // The first sweep without sockets counts silence from itself: a socket seen at the previous
            // sweep may have lasted until just before it.
            await clock.step(by: 100)
            #expect(try await Self.state(http, callID, token: alice).state == .accepted)
            await clock.step(by: 100)
            #expect(try await Self.state(http, callID, token: alice).state == .accepted)
            await clock.step(by: 30)
            let ended = try await Self.state(http, callID, token: alice)
            #expect(ended.state == .ended)
            #expect(ended.endReason == .connectionLost)
            #expect(ended.endedBy == nil)
            let raw = try await http.send("GET", "/v1/calls/\(callID)", token: bob)
            #expect(raw.object["end_reason"] as? String == "connection_lost")

            // Neither user is busy any more: a new call to bob rings.
            let next = try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)
            #expect(try next.decode(Call.self).state == .ringing)
        }
    }

    @Test func aKeepaliveKeepsAnAcceptedCallWithoutSockets() async throws {
        let clock = ManualServerClock(start: Date(timeIntervalSince1970: 1_900_000_000), sleeps: .untilPassed)
        try await APITests.withServer(clock: clock, configure: { $0.callIdleTimeout = 120 }) { http in
            let (callID, alice, bob) = try await Self.acceptedCall(http)
            let mallory = try await APITests.token(http, "mallory")
            for _ in 0..<5 {
                await clock.step(by: 100)
                let keepalive = try await http.send("POST", "/v1/calls/\(callID)/keepalive", token: alice)
                #expect(keepalive.status == 204)
                #expect(keepalive.body.isEmpty)
            }
            #expect(try await Self.state(http, callID, token: bob).state == .accepted)
            // Only a participant keeps a call alive; a stranger learns nothing.
            APITests.expectProblem(
                try await http.send("POST", "/v1/calls/\(callID)/keepalive", token: mallory),
                status: 404, type: .callNotFound)
            await clock.step(by: 100)
            #expect(try await Self.state(http, callID, token: bob).state == .accepted)
            await clock.step(by: 30)
            #expect(try await Self.state(http, callID, token: bob).endReason == .connectionLost)
            // The app learns from its next keepalive that the call is over.
            let late = try await http.send("POST", "/v1/calls/\(callID)/keepalive", token: bob)
            APITests.expectProblem(late, status: 409, type: .callStateConflict)
            #expect(late.object["call_state"] as? String == "ended")
        }
    }

    @Test func anOpenSocketKeepsTheCallAlive() async throws {
        let clock = ManualServerClock(start: Date(timeIntervalSince1970: 1_900_000_000), sleeps: .untilPassed)
        try await APITests.withServer(clock: clock, configure: { $0.callIdleTimeout = 120 }) { http, server in
            let (callID, alice, bob) = try await Self.acceptedCall(http)
            let inbox = EventStreamTests.Inbox()
            let socket = try await EventStreamTests.connect(
                http, token: bob, query: "device_id=bob-iphone", inbox: inbox)
            #expect(await eventuallyAsync { await server.eventStreamCount(userID: "bob") == 1 })
            for _ in 0..<10 { await clock.step(by: 60) }
            #expect(try await Self.state(http, callID, token: alice).state == .accepted)
            socket.close()
            #expect(await eventuallyAsync { await server.eventStreamCount(userID: "bob") == 0 })
            await clock.step(by: 60)
            #expect(try await Self.state(http, callID, token: alice).state == .accepted)
            await clock.step(by: 70)
            #expect(try await Self.state(http, callID, token: alice).state == .accepted)
            await clock.step(by: 60)
            #expect(try await Self.state(http, callID, token: alice).endReason == .connectionLost)
        }
    }

    @Test func anAcceptedCallEndsAtTheMaximumDuration() async throws {
        let clock = ManualServerClock(start: Date(timeIntervalSince1970: 1_900_000_000), sleeps: .untilPassed)
        try await APITests.withServer(clock: clock, configure: { $0.maxCallDuration = 600 }) { http, server in
            let (callID, alice, bob) = try await Self.acceptedCall(http)
            let aliceInbox = EventStreamTests.Inbox()
            let bobInbox = EventStreamTests.Inbox()
            let aliceSocket = try await EventStreamTests.connect(
                http, token: alice, query: "device_id=alice-iphone",
                inbox: aliceInbox)
            let bobSocket = try await EventStreamTests.connect(
                http, token: bob, query: "device_id=bob-iphone", inbox: bobInbox)
            defer {
                aliceSocket.close()
                bobSocket.close()
            }
            #expect(await eventuallyAsync { await server.eventStreamCount(userID: "alice") == 1 })
            #expect(await eventuallyAsync { await server.eventStreamCount(userID: "bob") == 1 })
            for _ in 0..<5 { await clock.step(by: 119) }
            #expect(try await Self.state(http, callID, token: alice).state == .accepted)
            await clock.step(by: 6)
            for inbox in [aliceInbox, bobInbox] {
                let ended = try #require(await inbox.wait(for: .callEnded))
                #expect(ended.call.callID == callID)
                #expect(ended.call.endReason == .maximumDuration)
            }
            let call = try await Self.state(http, callID, token: alice)
            #expect(call.state == .ended)
            #expect(call.endReason == .maximumDuration)
        }
    }

    @Test func acceptedCallDeadlinesSurviveARestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = ServerConfiguration()
        config.port = 0
        config.databasePath = directory.appendingPathComponent("ringer.sqlite").path
        config.adminKey = APITests.adminKey
        config.userTokenSecret = String(repeating: "s", count: 32)
        config.callIdleTimeout = 120
        config.maxCallDuration = 600
        let clock = ManualServerClock(start: Date(timeIntervalSince1970: 1_900_000_000), sleeps: .untilPassed)

        // First life: the long call (kept alive by alice's socket) and a young one.
        let first = try RingerServer(configuration: config, clock: clock, logger: .silent())
        let firstHTTP = TestHTTP(base: URL(string: "http://127.0.0.1:\(try await first.start())")!)
        let long = try await Self.acceptedCall(firstHTTP)
        let socket = try await EventStreamTests.connect(
            firstHTTP, token: long.caller, query: "device_id=alice-iphone",
            inbox: EventStreamTests.Inbox())
        #expect(await eventuallyAsync { await first.eventStreamCount(userID: "alice") == 1 })
        for _ in 0..<4 { await clock.step(by: 100) }
        let young = try await Self.acceptedCall(firstHTTP, caller: "carol", callee: "dave")
        socket.close()
        await first.shutdown()

        // Down for 210 s: the long call passed its maximum duration meanwhile, the young one did not.
        clock.advance(by: 210)
        let second = try RingerServer(configuration: config, clock: clock, logger: .silent())
        let http = TestHTTP(base: URL(string: "http://127.0.0.1:\(try await second.start())")!)
        do {
            #expect(
                await eventuallyAsync {
                    (try? await Self.state(http, long.callID, token: long.caller))?.endReason
                        == .maximumDuration
                })
            // Silence counts from the restart, not from the young call's accept.
            #expect(try await Self.state(http, young.callID, token: young.caller).state == .accepted)
            await clock.step(by: 100)
            #expect(try await Self.state(http, young.callID, token: young.caller).state == .accepted)
            await clock.step(by: 30)
            #expect(try await Self.state(http, young.callID, token: young.caller).endReason == .connectionLost)
        } catch {
            await second.shutdown()
            throw error
        }
        await second.shutdown()
    }

    /// RingerKit's side: an answered call whose app has no event socket keeps itself alive, and learns from
    /// the keepalive's refusal that the server ended it.
    @Test func anAnsweredCallWithoutASocketKeepsItselfAliveUntilTheServerEndsIt() async throws {
        let clock = ManualServerClock(start: Date(timeIntervalSince1970: 1_900_000_000), sleeps: .untilPassed)
        try await APITests.withServer(clock: clock, configure: { $0.callIdleTimeout = 120 }) { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            let transport = CountingTransport()
            let ui = PlainCallUI()
            let answered = LockedValue(false)
            let coordinator = CallCoordinator(
                deviceID: "alice-iphone", ui: ui, now: { clock.now() },
                sleepUntil: { try await clock.sleep(until: $0) }, keepaliveInterval: 40,
                observer: { if case .outgoingAnswered = $0 { answered.withLock { $0 = true } } })
            coordinator.connect(api: RingerAPIClient(baseURL: http.base, userToken: alice, transport: transport))
            let call = try await coordinator.startCall(to: "bob")
            _ = try await http.send(
                "POST", "/v1/calls/\(call.callID)/accept", token: bob, json: #"{"device_id":"bob-iphone"}"#)
            coordinator.refreshCalls()  // learns of the answer without a socket
            #expect(await eventually { answered.snapshot })
            // No socket: a keepalive every 40 s holds the call for 400 s, far past the 120 s idle limit.
            for round in 1...10 {
                await clock.step(by: 40)
                #expect(await eventually { transport.answers.snapshot.count >= round }, "keepalive \(round)")
            }
            #expect(transport.answers.snapshot.allSatisfy { $0 == 204 })
            #expect(try await Self.state(http, call.callID, token: alice).state == .accepted)

            // While the stream says it is connected the app sends none (the socket is the sign of life); here
            // no real socket exists, so the server ends the call, and the next keepalive closes it natively.
            coordinator.eventStreamStatusChanged(.connected)
            let sent = transport.answers.snapshot.count
            for _ in 0..<4 { await clock.step(by: 40) }
            #expect(transport.answers.snapshot.count == sent)
            // The server's idle check runs on its own after the clock moved: on a loaded machine, a moment later.
            #expect(
                await eventuallyAsync {
                    (try? await Self.state(http, call.callID, token: alice).endReason) == .connectionLost
                })
            coordinator.eventStreamStatusChanged(.lost(retryIn: 1))
            await clock.step(by: 40)
            #expect(await eventually { ui.ended.snapshot == [.failed] })
            #expect(transport.answers.snapshot.last == 409)
        }
    }

    @Test func theCallLimitsAreFlagsWithDefaultsAndBounds() throws {
        let required = ["--admin-key", "k", "--user-token-secret", String(repeating: "s", count: 32)]
        let defaults = try ServerConfiguration.parse(arguments: required, environment: [:])
        #expect(defaults.callIdleTimeout == 120)
        #expect(defaults.maxCallDuration == 14400)
        let set = try ServerConfiguration.parse(
            arguments: required + ["--call-idle-timeout", "45"],
            environment: ["RINGER_MAX_CALL_DURATION": "3600"])
        #expect(set.callIdleTimeout == 45)
        #expect(set.maxCallDuration == 3600)
        for bad in [
            ["--call-idle-timeout", "5"], ["--call-idle-timeout", "soon"], ["--max-call-duration", "0"],
            ["--max-call-duration", "999999999"],
        ] {
            let error = #expect(throws: ConfigurationError.self) {
                try ServerConfiguration.parse(arguments: required + bad, environment: [:])
            }
            #expect(error?.description.contains(bad[0]) == true)
        }
    }
}
