import Foundation
import LibWebSockets
import RingerCommandLine
import RingerKit
import RingerSandbox
import RingerServer
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

/// The `/v1/events` WebSocket against a real server: live delivery, `?since=` replay after a drop,
/// and refusals as problems.
@Suite(.serialized) struct EventStreamTests {
    /// Collects the events a socket receives.
    final class Inbox: Sendable {
        let events = LockedValue<[CallEvent]>([])
        func receive(_ text: String) {
            if let event = try? RingerJSON.decode(CallEvent.self, from: Data(text.utf8)) {
                events.withLock { $0.append(event) }
            }
        }
        func wait(for type: EventType, timeout: TimeInterval = 10) async -> CallEvent? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if let event = events.withLock({ $0.first { $0.type == type } }) { return event }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
    }

    static func connect(_ http: TestHTTP, token: String, query: String, inbox: Inbox) async throws -> WebSocketClient {
        let url = http.base.absoluteString.replacingOccurrences(of: "http://", with: "ws://") + "/v1/events?" + query
        return try await WebSocketClient.connect(
            url: url, headers: ["authorization": "Bearer " + token],
            onText: { inbox.receive($0) })
    }

    @Test func eventsArriveLiveAndMissedOnesReplayAfterReconnect() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")

            let live = Inbox()
            let socket = try await Self.connect(http, token: bob, query: "device_id=bob-iphone", inbox: live)
            try await Task.sleep(for: .milliseconds(100))
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            let incoming = try #require(await live.wait(for: .callIncoming))
            #expect(incoming.call.callID == call.callID)
            socket.close()
            try await Task.sleep(for: .milliseconds(100))

            // While bob's socket is down, alice cancels; reconnecting with ?since= replays it.
            _ = try await http.send("POST", "/v1/calls/\(call.callID)/cancel", token: alice)
            let resumed = Inbox()
            let again = try await Self.connect(
                http, token: bob, query: "device_id=bob-iphone&since=\(incoming.seq)",
                inbox: resumed)
            defer { again.close() }
            let cancelled = try #require(await resumed.wait(for: .callCancelled))
            #expect(cancelled.call.state == .cancelled)
            #expect(cancelled.seq > incoming.seq)
            #expect(resumed.events.withLock { $0.allSatisfy { $0.seq > incoming.seq } })
        }
    }

    /// An app backgrounded before it ever received an event used to reconnect without `since` and
    /// miss what happened meanwhile; the server's `stream.ready` gives it a resume point.
    @Test func appThatNeverReceivedAnEventStillReplaysWhatItMissed() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            // Bob already has history: a call cancelled before this socket existed.
            let old = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            _ = try await http.send("POST", "/v1/calls/\(old.callID)/cancel", token: alice)

            let api = RingerAPIClient(baseURL: http.base, userToken: bob)
            let first = Inbox()
            let stream = EventStream(
                api: api, deviceID: "bob-iphone", transport: LWSWebSocketTransport(),
                onEvent: { event in first.events.withLock { $0.append(event) } })
            stream.start()
            #expect(await eventually { stream.lastSeq != nil })
            let resumeFrom = try #require(stream.lastSeq)
            #expect(resumeFrom >= 2, "the ready frame names bob's newest event")
            stream.stop()
            #expect(first.events.withLock { $0.isEmpty }, "nothing is replayed without since")

            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            let resumed = Inbox()
            let again = EventStream(
                api: api, deviceID: "bob-iphone", transport: LWSWebSocketTransport(),
                onEvent: { event in resumed.events.withLock { $0.append(event) } })
            again.start(since: resumeFrom)
            defer { again.stop() }
            let incoming = try #require(await resumed.wait(for: .callIncoming))
            #expect(incoming.call.callID == call.callID)
            #expect(
                resumed.events.withLock { $0.allSatisfy { $0.call.callID == call.callID } }, "old call not replayed")
        }
    }

    @Test func elsewhereEventsSkipTheDeviceThatActed() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            try await APITests.registerPhone(
                http, token: bob, device: "bob-ipad", voip: String(repeating: "cd", count: 32))
            let phone = Inbox()
            let pad = Inbox()
            let phoneSocket = try await Self.connect(http, token: bob, query: "device_id=bob-iphone", inbox: phone)
            let padSocket = try await Self.connect(http, token: bob, query: "device_id=bob-ipad", inbox: pad)
            defer {
                phoneSocket.close()
                padSocket.close()
            }
            try await Task.sleep(for: .milliseconds(100))
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            _ = try await http.send(
                "POST", "/v1/calls/\(call.callID)/accept", token: bob, json: #"{"device_id":"bob-iphone"}"#)
            #expect(await pad.wait(for: .callAnsweredElsewhere) != nil)
            try await Task.sleep(for: .milliseconds(200))
            #expect(phone.events.withLock { $0.map(\.type) } == [.callIncoming])
        }
    }

    @Test func staleSinceBeyondTheNewestEventStillGetsLiveEvents() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            let inbox = Inbox()
            let socket = try await Self.connect(
                http, token: bob, query: "device_id=bob-iphone&since=999999", inbox: inbox)
            defer { socket.close() }
            try await Task.sleep(for: .milliseconds(100))
            _ = try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)
            #expect(await inbox.wait(for: .callIncoming) != nil)
        }
    }

    /// Runs the independent `websockets` client peer against the event stream and returns its JSON report.
    struct PeerReport: Decodable, Sendable {
        var connected: Bool
        var status: Int?
        var body: String?
        var closedByServer: Bool?
        var closeCode: Int?
        var closeReason: String?
    }

    static func peer(
        _ http: TestHTTP, path: String = "/v1/events", token: String, query: String, expect: Int,
        timeout: Double = 10
    ) async throws -> PeerReport {
        let url = http.base.absoluteString.replacingOccurrences(of: "http://", with: "ws://") + path + "?" + query
        let result = try await ChildProcess.run([
            "python3", PeerScripts.path("ws_client_peer.py"), "--url", url,
            "--header", "Authorization: Bearer " + token, "--expect", String(expect),
            "--timeout", String(timeout),
        ])
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(PeerReport.self, from: Data(result.standardOutput.utf8))
        } catch {
            Issue.record("peer printed \(result.standardOutput) \(result.standardError)")
            throw error
        }
    }

    @Test func aNewSocketOfTheSameDeviceClosesTheOlderWith4001() async throws {
        try await APITests.withServer { http, server in
            let bob = try await APITests.token(http, "bob")
            // The older socket: an independent client that waits for frames until the server closes it.
            let older = Task { try await Self.peer(http, token: bob, query: "device_id=bob-phone", expect: 5) }
            #expect(await eventuallyAsync { await server.hasEventStream(userID: "bob", deviceID: "bob-phone") })
            let newer = try await Self.connect(http, token: bob, query: "device_id=bob-phone", inbox: Inbox())
            defer { newer.close() }
            let report = try await older.value
            #expect(report.closedByServer == true)
            #expect(report.closeCode == 4001)
            #expect(report.closeReason == "replaced by a newer connection of this device")
            #expect(newer.isOpen)
            #expect(await server.hasEventStream(userID: "bob", deviceID: "bob-phone"))
        }
    }

    /// A transport that counts connection attempts and passes them to libwebsockets.
    final class CountingTransport: WebSocketTransport {
        private let inner = LWSWebSocketTransport()
        let attempts = LockedValue(0)

        func connect(
            url: URL, headers: [String: String], onText: @escaping @Sendable (String) -> Void,
            onClose: @escaping @Sendable (WebSocketClose) -> Void
        ) async throws -> any WebSocketChannel {
            attempts.withLock { $0 += 1 }
            return try await inner.connect(url: url, headers: headers, onText: onText, onClose: onClose)
        }
    }

    /// Collects an event stream's statuses.
    final class StatusLog: Sendable {
        let all = LockedValue<[EventStream.Status]>([])
        func append(_ status: EventStream.Status) { all.withLock { $0.append(status) } }
    }

    /// A started stream of `deviceID` for a user token, over `transport`, reporting into `log`.
    static func startStream(
        _ http: TestHTTP, token: String, deviceID: String, transport: CountingTransport,
        log: StatusLog, onEvent: @escaping @Sendable (CallEvent) -> Void = { _ in }
    ) -> EventStream {
        let stream = EventStream(
            api: RingerAPIClient(baseURL: http.base, userToken: token), deviceID: deviceID,
            transport: transport, onEvent: onEvent, onStatus: { log.append($0) })
        stream.start()
        return stream
    }

    /// Two streams of one device id (an app and its extension, say) used to replace each other forever:
    /// each reconnect closed the other with 4001, which reconnected in turn.
    @Test func aSecondStreamOfTheSameDeviceReplacesTheFirstWithoutAReconnectLoop() async throws {
        try await APITests.withServer { http, server in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            let transport = CountingTransport()
            let firstLog = StatusLog()
            let secondLog = StatusLog()
            let secondInbox = Inbox()
            let first = Self.startStream(http, token: bob, deviceID: "bob-iphone", transport: transport, log: firstLog)
            defer { first.stop() }
            #expect(await eventually { firstLog.all.snapshot == [.connected] })
            let second = Self.startStream(
                http, token: bob, deviceID: "bob-iphone", transport: transport, log: secondLog,
                onEvent: { event in secondInbox.events.withLock { $0.append(event) } })
            defer { second.stop() }
            #expect(await eventually { firstLog.all.snapshot == [.connected, .replaced] })

            try await Task.sleep(for: .seconds(3))
            #expect(firstLog.all.snapshot == [.connected, .replaced], "the replaced stream stays down")
            #expect(secondLog.all.snapshot == [.connected], "the newer stream is never replaced back")
            #expect(transport.attempts.snapshot == 2)
            #expect(await server.eventStreamCount(userID: "bob") == 1)
            #expect(await server.hasEventStream(userID: "bob", deviceID: "bob-iphone"))
            _ = try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)
            #expect(await secondInbox.wait(for: .callIncoming) != nil, "the newer stream is live")
        }
    }

    @Test func aStreamWhoseTokenIsRefusedReportsUnauthorizedAndStops() async throws {
        try await APITests.withServer { http in
            let transport = CountingTransport()
            let log = StatusLog()
            let stream = Self.startStream(http, token: "forged", deviceID: "bob-iphone", transport: transport, log: log)
            defer { stream.stop() }
            #expect(await eventually { log.all.snapshot == [.unauthorized] })
            try await Task.sleep(for: .seconds(1))
            #expect(transport.attempts.snapshot == 1)
            #expect(log.all.snapshot == [.unauthorized])
        }
    }

    @Test func aStreamOverTheUsersSocketCapRetriesAfterSeconds() async throws {
        try await APITests.withServer(configure: { $0.maxSocketsPerUser = 1 }) { http in
            let bob = try await APITests.token(http, "bob")
            let phone = try await Self.connect(http, token: bob, query: "device_id=bob-phone", inbox: Inbox())
            defer { phone.close() }
            let transport = CountingTransport()
            let log = StatusLog()
            let tablet = Self.startStream(http, token: bob, deviceID: "bob-tablet", transport: transport, log: log)
            defer { tablet.stop() }
            #expect(await eventually { !log.all.snapshot.isEmpty })
            guard case .lost(let wait) = log.all.snapshot.first else {
                Issue.record("expected a loss, got \(log.all.snapshot)")
                return
            }
            #expect(wait >= 2.5, "429 waits seconds, not the quarter second after a drop")
            try await Task.sleep(for: .seconds(1))
            #expect(transport.attempts.snapshot == 1)
        }
    }

    @Test func socketsBeyondTheUsersCapAreRefusedWithAProblem() async throws {
        try await APITests.withServer(configure: { $0.maxSocketsPerUser = 2 }) { http, server in
            let bob = try await APITests.token(http, "bob")
            let first = try await Self.connect(http, token: bob, query: "device_id=bob-phone", inbox: Inbox())
            let second = try await Self.connect(http, token: bob, query: "device_id=bob-tablet", inbox: Inbox())
            defer {
                first.close()
                second.close()
            }
            let refused = try await Self.peer(http, token: bob, query: "device_id=bob-laptop", expect: 1)
            #expect(refused.status == 429)
            #expect(refused.body?.contains("https://ringer.dev/problems/too-many-sockets") == true)
            // The same device may still replace its own socket; another user is not affected.
            let phoneAgain = try await Self.connect(http, token: bob, query: "device_id=bob-phone", inbox: Inbox())
            defer { phoneAgain.close() }
            #expect(await eventually { !first.isOpen })
            let carol = try await APITests.token(http, "carol")
            let carols = try await Self.connect(http, token: carol, query: "device_id=carol-phone", inbox: Inbox())
            defer { carols.close() }
            #expect(await server.hasEventStream(userID: "carol", deviceID: "carol-phone"))
        }
    }

    @Test func anUpgradeOutsideTheEventStreamIsRefusedWithANotFoundProblem() async throws {
        try await APITests.withServer { http in
            let bob = try await APITests.token(http, "bob")
            for path in ["/v1/event", "/v1/calls", "/"] {
                let refused = try await Self.peer(http, path: path, token: bob, query: "device_id=bob-phone", expect: 1)
                #expect(refused.connected == false)
                #expect(refused.status == 404, "\(path)")
                #expect(
                    refused.body?.contains("https://ringer.dev/problems/not-found") == true,
                    "\(path): \(refused.body ?? "")")
            }
        }
    }

    @Test func theSocketCapIsAFlagAndAnEnvironmentVariable() throws {
        let environment = [
            "RINGER_ADMIN_KEY": APITests.adminKey, "RINGER_USER_TOKEN_SECRET": String(repeating: "k", count: 32),
        ]
        #expect(try ServerConfiguration.parse(arguments: [], environment: environment).maxSocketsPerUser == 10)
        #expect(
            try ServerConfiguration.parse(arguments: ["--max-sockets-per-user", "3"], environment: environment)
                .maxSocketsPerUser == 3)
        let fromEnvironment = environment.merging(["RINGER_MAX_SOCKETS_PER_USER": "25"]) { $1 }
        #expect(try ServerConfiguration.parse(arguments: [], environment: fromEnvironment).maxSocketsPerUser == 25)
        for bad in ["0", "1001", "ten"] {
            #expect(throws: ConfigurationError.self) {
                try ServerConfiguration.parse(arguments: ["--max-sockets-per-user", bad], environment: environment)
            }
        }
    }

    @Test func upgradeWithoutAValidTokenIsRefused() async throws {
        try await APITests.withServer { http in
            await #expect(throws: (any Error).self) {
                _ = try await Self.connect(http, token: "forged", query: "device_id=x", inbox: Inbox())
            }
        }
    }

    @Test func oversizedBodyIsAProblemAndStoresNothing() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let huge = #"{"callee":"bob","pad":""# + String(repeating: "x", count: 70_000) + #""}"#
            let response = try await http.send("POST", "/v1/calls", token: alice, json: huge)
            APITests.expectProblem(response, status: 413, type: .payloadTooLarge)
            #expect(try (try await http.send("GET", "/v1/calls", token: alice)).decode(CallList.self).calls.isEmpty)
        }
    }
}
