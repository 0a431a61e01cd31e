import Foundation
import HTTP2Client
import LibWebSockets
import RingerSandbox
import RingerSupport
import RingerTestSupport
import Testing

/// A phone in another process: the WebSocket `GET /sandbox/connect?token=…` on the HTTP/1.1 port carries one
/// frame per message, and the phone's acknowledgements become the messages' receipts.
@Suite(.serialized) struct FCMSandboxSocketTests {
    /// A WebSocket phone that records every frame and acknowledges message frames with `receipt` (nil: never).
    final class SocketPhone: Sendable {
        let frames = LockedValue<[[String: Any]]>([])
        let receipt: LockedValue<String?>
        /// The client once connected, and what the phone wanted to send before (frames can arrive before
        /// `connect` returns).
        private let link = LockedValue<(client: WebSocketClient?, unsent: [String])>((nil, []))

        init(receipt: String?) { self.receipt = LockedValue(receipt) }

        static func connect(
            _ fixture: FCMSandboxFixture, token: String, query: String = "",
            receipt: String? = "userVisible"
        ) async throws -> SocketPhone {
            let phone = SocketPhone(receipt: receipt)
            let port = try #require(fixture.ports.http1)
            let url = "wss://localhost:\(port)/sandbox/connect?token=\(token)\(query)"
            // A TLS handshake starved of CPU by the parallel run fails now and then (lws: "connect SSL err 1"), before
            // the sandbox sees a request: tried again, up to three times, as a phone would.
            var client: WebSocketClient?
            for attempt in 1...3 where client == nil {
                do {
                    client = try await WebSocketClient.connect(
                        url: url, caFile: fixture.caFile, onText: { [phone] text in phone.received(text) })
                } catch let error as LibWebSocketsError where attempt < 3 {
                    _ = error
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
            let connected = try #require(client)
            let unsent = phone.link.withLock { link -> [String] in
                link.client = connected
                defer { link.unsent = [] }
                return link.unsent
            }
            for text in unsent { connected.send(text: text) }
            return phone
        }

        private func received(_ text: String) {
            guard let frame = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return }
            frames.withLock { $0.append(frame) }
            if frame["type"] as? String == "message", let name = frame["name"] as? String,
                let receipt = receipt.snapshot
            {
                send(["type": "ack", "name": name, "receipt": receipt, "reason": "test"])
            }
        }

        func send(_ object: [String: Any]) {
            let text = String(decoding: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(), as: UTF8.self)
            let client = link.withLock { link -> WebSocketClient? in
                if link.client == nil { link.unsent.append(text) }
                return link.client
            }
            client?.send(text: text)
        }

        var messages: [[String: Any]] { frames.snapshot.filter { $0["type"] as? String == "message" } }
        var names: [String] { messages.compactMap { ($0["data"] as? [String: String])?["n"] } }
        var errors: [String] {
            frames.snapshot.filter { $0["type"] as? String == "error" }.compactMap { $0["error"] as? String }
        }

        func close() { link.snapshot.client?.close() }
    }

    private func addDevice(_ fixture: FCMSandboxFixture, _ token: String, reachability: String = "offline") async throws
    {
        let created = try await fixture.control(
            "POST", "/sandbox/devices",
            json: """
                {"token": "\(token)", "project_id": "\(FCMSandboxFixture.project)", "package_name": "dev.ringer.demo", "reachability": "\(reachability)"}
                """)
        #expect(created.status == 201)
    }

    private func send(_ fixture: FCMSandboxFixture, _ body: String, _ accessToken: String) async throws -> String {
        let response = try await fixture.send(body, accessToken: accessToken)
        #expect(response.status == 200)
        return try #require(FCMSandboxFixture.object(response.body)["name"] as? String)
    }

    @Test func aConnectedPhoneGetsOneFramePerMessageAndItsAcknowledgementIsTheReceipt() async throws {
        try await FCMSandboxFixture.with { fixture in
            try await addDevice(fixture, "ws-phone")
            let phone = try await SocketPhone.connect(fixture, token: "ws-phone")
            defer { phone.close() }
            let accessToken = try await fixture.accessToken()
            let first = try await send(
                fixture,
                #"{"message": {"token": "ws-phone", "data": {"n": "1", "ringer": "{\"v\":1}"}, "notification": {"title": "Missed call"}, "android": {"priority": "HIGH", "ttl": "45s", "collapse_key": "call-7"}}}"#,
                accessToken)
            let second = try await send(
                fixture, FCMSandboxFixture.message(to: "ws-phone", name: "2", priority: "NORMAL"), accessToken)
            #expect(await eventually { phone.names == ["1", "2"] && fixture.sandbox.deliveriesUnderway == 0 })
            let frame = try #require(phone.messages.first)
            #expect(frame["name"] as? String == first)
            #expect(frame["project_id"] as? String == FCMSandboxFixture.project)
            #expect(frame["token"] as? String == "ws-phone")
            #expect(frame["data"] as? [String: String] == ["n": "1", "ringer": #"{"v":1}"#])
            #expect(frame["notification"] as? [String: String] == ["title": "Missed call"])
            #expect(frame["priority"] as? String == "HIGH" && frame["requested_priority"] as? String == "HIGH")
            #expect(frame["ttl"] as? Double == 45 && frame["collapse_key"] as? String == "call-7")
            let acceptedAt = Int64(fixture.scenarioNow.timeIntervalSince1970 * 1000)
            #expect(
                frame["accepted_at"] as? Int64 == acceptedAt && frame["expires_at"] as? Int64 == acceptedAt + 45_000)
            #expect(phone.messages.last?["notification"] == nil)
            #expect(fixture.sandbox.deliveryState(ofMessage: first) == .delivered(.userVisible))
            #expect(fixture.sandbox.deliveryState(ofMessage: second) == .delivered(.userVisible))
            let listing = try await fixture.control("GET", "/sandbox/messages")
            let entries = try #require(
                try JSONSerialization.jsonObject(with: Data(listing.body.utf8)) as? [[String: Any]])
            #expect(entries.map { $0["receipt"] as? String } == ["userVisible", "userVisible"])
            #expect(entries.map { $0["state"] as? String } == ["delivered", "delivered"])
        }
    }

    @Test func messagesWaitForADisconnectedPhoneAndArriveWhenItConnects() async throws {
        try await FCMSandboxFixture.with { fixture in
            try await addDevice(fixture, "later")
            let accessToken = try await fixture.accessToken()
            let stored = try await send(fixture, FCMSandboxFixture.message(to: "later", name: "waiting"), accessToken)
            #expect(fixture.sandbox.deliveryState(ofMessage: stored) == .stored)
            let phone = try await SocketPhone.connect(fixture, token: "later", receipt: "silent")
            defer { phone.close() }
            #expect(await eventually { phone.names == ["waiting"] && fixture.sandbox.deliveriesUnderway == 0 })
            #expect(fixture.sandbox.deliveryState(ofMessage: stored) == .delivered(.silent))
        }
    }

    @Test func closingTheSocketMakesThePhoneOfflineUntilItReconnects() async throws {
        try await FCMSandboxFixture.with { fixture in
            try await addDevice(fixture, "flaky")
            let accessToken = try await fixture.accessToken()
            let phone = try await SocketPhone.connect(fixture, token: "flaky")
            _ = try await send(fixture, FCMSandboxFixture.message(to: "flaky", name: "before"), accessToken)
            #expect(await eventually { phone.names == ["before"] })
            phone.close()
            // Offline once the sandbox saw the close: the next message is stored, not sent into a dead socket.
            #expect(await eventually { fixture.sandbox.reachability(token: "flaky") == .offline })
            let stored = try await send(
                fixture, FCMSandboxFixture.message(to: "flaky", name: "while-away"), accessToken)
            #expect(fixture.sandbox.deliveryState(ofMessage: stored) == .stored)
            let back = try await SocketPhone.connect(fixture, token: "flaky")
            defer { back.close() }
            #expect(await eventually { back.names == ["while-away"] })
        }
    }

    @Test func aReachabilityFrameSendsThePhoneIntoDoze() async throws {
        try await FCMSandboxFixture.with { fixture in
            try await addDevice(fixture, "sleepy")
            let phone = try await SocketPhone.connect(fixture, token: "sleepy", query: "&reachability=dozing")
            defer { phone.close() }
            let accessToken = try await fixture.accessToken()
            let normal = try await send(
                fixture, FCMSandboxFixture.message(to: "sleepy", name: "normal", priority: "NORMAL"), accessToken)
            _ = try await send(fixture, FCMSandboxFixture.message(to: "sleepy", name: "high"), accessToken)
            #expect(await eventually { phone.names == ["high"] })
            #expect(fixture.sandbox.deliveryState(ofMessage: normal) == .stored)
            phone.send(["type": "reachability", "reachability": "online"])
            #expect(await eventually { phone.names == ["high", "normal"] })
        }
    }

    @Test func aMessageTheSocketPhoneNeverAcknowledgesIsNotDelivered() async throws {
        try await FCMSandboxFixture.with(configure: { $0.acknowledgementTimeout = 1 }) { fixture in
            try await addDevice(fixture, "mute")
            let phone = try await SocketPhone.connect(fixture, token: "mute", receipt: nil)
            defer { phone.close() }
            let name = try await send(fixture, FCMSandboxFixture.message(to: "mute"), try await fixture.accessToken())
            #expect(await eventually { phone.names.count == 1 })
            #expect(await eventually(within: 15) { fixture.sandbox.deliveriesUnderway == 0 })
            guard case .delivered(.notDelivered(let reason))? = fixture.sandbox.deliveryState(ofMessage: name) else {
                Issue.record(
                    "expected notDelivered, got \(String(describing: fixture.sandbox.deliveryState(ofMessage: name)))")
                return
            }
            #expect(reason.contains("no acknowledgement"))
        }
    }

    /// FCM keeps a message the phone never acknowledged because its connection ended (switched off mid-delivery)
    /// and delivers it once the phone is back; it is not lost as undelivered.
    @Test func aMessageWhoseSocketClosesBeforeTheAckIsDeliveredAgainAfterTheReconnect() async throws {
        try await FCMSandboxFixture.with { fixture in
            try await addDevice(fixture, "switched-off")
            let phone = try await SocketPhone.connect(fixture, token: "switched-off", receipt: nil)
            let name = try await send(
                fixture, FCMSandboxFixture.message(to: "switched-off", name: "ring"), try await fixture.accessToken())
            #expect(await eventually { phone.names == ["ring"] })
            phone.close()
            #expect(await eventually { fixture.sandbox.deliveriesUnderway == 0 })
            #expect(fixture.sandbox.deliveryState(ofMessage: name) == .stored)
            #expect(fixture.sandbox.storedMessages(token: "switched-off").map(\.name) == [name])
            let back = try await SocketPhone.connect(fixture, token: "switched-off")
            defer { back.close() }
            #expect(await eventually { back.names == ["ring"] && fixture.sandbox.deliveriesUnderway == 0 })
            #expect(fixture.sandbox.deliveryState(ofMessage: name) == .delivered(.userVisible))
        }
    }

    @Test func framesTheSandboxCannotUseGetAnErrorFrame() async throws {
        try await FCMSandboxFixture.with { fixture in
            try await addDevice(fixture, "chatty")
            let phone = try await SocketPhone.connect(fixture, token: "chatty")
            defer { phone.close() }
            phone.send(["type": "ack", "name": "projects/ringer-dev/messages/none", "receipt": "userVisible"])
            phone.send(["type": "ack", "name": "x", "receipt": "maybe"])
            phone.send(["type": "reachability", "reachability": "asleep"])
            phone.send(["type": "hello"])
            #expect(await eventually { phone.errors.count == 4 })
        }
    }

    @Test func anUnknownTokenCannotConnect() async throws {
        try await FCMSandboxFixture.with { fixture in
            await #expect(throws: (any Error).self) {
                _ = try await SocketPhone.connect(fixture, token: "nobody")
            }
            await #expect(throws: (any Error).self) {
                try await addDevice(fixture, "known")
                _ = try await SocketPhone.connect(fixture, token: "known", query: "&reachability=asleep")
            }
        }
    }
}
