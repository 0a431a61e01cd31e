// Pins what 1:1 calls look like on the wire today (decision 0007, "Implementation plan", step 1), so the group-ringing
// work (issue 30) can show it changes nothing for them. Each scenario scripts a call against a real server in process
// on loopback and compares, byte for byte, what a client sees with Fixtures/one-to-one/<scenario>.txt: the answers of
// `POST /v1/calls` and `GET /v1/calls/{id}`, and the call.* frames each participant's event socket received. Ringing,
// stopping and missed-call pushes are pinned from the push senders' own builders with a fixed call (push.*.txt).
//
// Only what is random or time-dependent is normalised: UUIDs (call ids), ISO 8601 timestamps, JWTs and hex device
// tokens become `<uuid-1>`, `<time-1>`, … in order of first appearance; keys, order and structure are kept.
//
// Recording: `RINGER_RECORD_FIXTURES=1 swift test --skip-build --filter OneToOneCompatibilityTests` writes the
// fixtures instead of comparing; review the diff before committing it. Without the switch a difference fails the
// test with the file's name and its first differing line.
import APNs
import FCM
import Foundation
import JWT
import LibWebSockets
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerServer

@Suite(.serialized) struct OneToOneCompatibilityTests {
    /// The fixtures' folder, beside this file.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/one-to-one")
    static let recording = ProcessInfo.processInfo.environment["RINGER_RECORD_FIXTURES"] == "1"

    /// The raw text frames a socket received, in order.
    final class Frames: Sendable {
        let texts = LockedValue<[String]>([])

        /// The call.* frames, as sent.
        var callEvents: [String] {
            texts.withLock { $0 }.filter { $0.contains(#""type":"call."#) }
        }

        /// Waits (up to 5 s) until `count` call.* frames arrived.
        func wait(forCallEvents count: Int) async -> Bool {
            await eventually(within: 5) { self.callEvents.count >= count }
        }
    }

    /// One scripted call's transcript: sections of raw bodies, named.
    struct Transcript {
        var sections: [(String, String)] = []

        mutating func add(_ name: String, _ body: Data) {
            sections.append((name, String(decoding: body, as: UTF8.self)))
        }

        mutating func add(_ name: String, frames: [String]) {
            sections.append((name, frames.joined(separator: "\n")))
        }

        var text: String { sections.map { "# \($0.0)\n\($0.1)\n" }.joined() }
    }

    // MARK: Normalising and comparing

    /// Replaces what is random or time-dependent with placeholders numbered in order of first appearance.
    static func normalised(_ text: String) -> String {
        let patterns: [(String, String)] = [
            ("jwt", #"eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"#),
            ("uuid", #"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"#),
            ("time", #"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})"#),
            ("token", #"\b[0-9a-f]{64,}\b"#),
        ]
        var result = text
        for (name, pattern) in patterns {
            let expression = try! NSRegularExpression(pattern: pattern)
            var seen: [String: String] = [:]
            var output = ""
            var last = result.startIndex
            for match in expression.matches(in: result, range: NSRange(result.startIndex..., in: result)) {
                let range = Range(match.range, in: result)!
                let value = String(result[range])
                let placeholder =
                    seen[value]
                    ?? {
                        let next = "<\(name)-\(seen.count + 1)>"
                        seen[value] = next
                        return next
                    }()
                output += result[last..<range.lowerBound] + placeholder
                last = range.upperBound
            }
            result = output + result[last...]
        }
        return result
    }

    /// Writes the fixture when recording; otherwise compares and fails naming the file and the first differing line.
    static func check(_ name: String, _ actual: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = fixtures.appendingPathComponent(name + ".txt")
        let actual = normalised(actual)
        if recording {
            try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: file, options: .atomic)
            return
        }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            Issue.record(
                "\(file.path): missing; record it with RINGER_RECORD_FIXTURES=1", sourceLocation: sourceLocation)
            return
        }
        let expected = String(decoding: data, as: UTF8.self)
        guard expected != actual else { return }
        let old = expected.components(separatedBy: "\n")
        let new = actual.components(separatedBy: "\n")
        let line =
            zip(old, new).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(old.count, new.count)
        Issue.record(
            """
            \(file.path):\(line + 1): differs from what the server sends now
            - \(line < old.count ? old[line] : "<end of file>")
            + \(line < new.count ? new[line] : "<end of output>")
            (RINGER_RECORD_FIXTURES=1 records the new output)
            """, sourceLocation: sourceLocation)
    }

    // MARK: The scripted calls

    /// Alice's and bob's tokens, bob's iPhone registered, and both apps' event sockets open.
    struct Parties {
        var alice: String
        var bob: String
        var aliceFrames = Frames()
        var bobFrames = Frames()
        var sockets: [WebSocketClient] = []

        func close() { for socket in sockets { socket.close() } }
    }

    static func parties(_ http: TestHTTP, server: RingerServer) async throws -> Parties {
        var parties = Parties(
            alice: try await APITests.token(http, "alice", name: "Alice"),
            bob: try await APITests.token(http, "bob", name: "Bob"))
        try await APITests.registerPhone(
            http, token: parties.alice, device: "alice-iphone", voip: String(repeating: "cd", count: 32))
        try await APITests.registerPhone(http, token: parties.bob, device: "bob-iphone")
        parties.sockets.append(try await socket(http, parties.alice, "alice-iphone", parties.aliceFrames))
        parties.sockets.append(try await socket(http, parties.bob, "bob-iphone", parties.bobFrames))
        #expect(await eventuallyAsync { await server.eventStreamCount(userID: "alice") == 1 })
        #expect(await eventuallyAsync { await server.eventStreamCount(userID: "bob") == 1 })
        return parties
    }

    static func socket(
        _ http: TestHTTP, _ token: String, _ device: String, _ frames: Frames
    ) async throws
        -> WebSocketClient
    {
        let url = http.base.absoluteString.replacingOccurrences(of: "http://", with: "ws://")
        return try await WebSocketClient.connect(
            url: url + "/v1/events?device_id=" + device, headers: ["authorization": "Bearer " + token],
            onText: { text in frames.texts.withLock { $0.append(text) } })
    }

    /// Runs one scenario on a fresh server whose clock stands still until the script moves it.
    static func scenario(
        _ name: String,
        aliceEvents: Int, bobEvents: Int,
        _ script: (TestHTTP, ManualServerClock, Parties, inout Transcript) async throws -> String
    ) async throws {
        let clock = ManualServerClock(start: Date(timeIntervalSince1970: 1_900_000_000), sleeps: .untilPassed)
        try await APITests.withServer(
            clock: clock,
            configure: {
                $0.ringTimeout = 20
                $0.maxCallDuration = 600
            },
            { http, server in
                let parties = try await parties(http, server: server)
                defer { parties.close() }
                var transcript = Transcript()
                let callID = try await script(http, clock, parties, &transcript)
                let got = try await http.send("GET", "/v1/calls/\(callID)", token: parties.alice)
                #expect(got.status == 200)
                transcript.add("GET /v1/calls/{id} (alice)", got.body)
                #expect(await parties.aliceFrames.wait(forCallEvents: aliceEvents), "alice's events")
                #expect(await parties.bobFrames.wait(forCallEvents: bobEvents), "bob's events")
                // Anything late would show up here as a difference.
                try await Task.sleep(for: .milliseconds(50))
                transcript.add("events alice-iphone", frames: parties.aliceFrames.callEvents)
                transcript.add("events bob-iphone", frames: parties.bobFrames.callEvents)
                try check(name, transcript.text)
            })
    }

    /// Alice calls bob; returns the new call's id.
    static func place(
        _ http: TestHTTP, _ parties: Parties, _ transcript: inout Transcript, callee: String = "bob"
    )
        async throws -> String
    {
        let created = try await http.send(
            "POST", "/v1/calls", token: parties.alice, json: "{\"callee\":\"\(callee)\",\"has_video\":false}")
        transcript.add("POST /v1/calls → \(created.status)", created.body)
        return try created.decode(Call.self).callID
    }

    /// Sends one action and records its answer.
    static func act(
        _ http: TestHTTP, _ method: String, _ callID: String, _ action: String, token: String, json: String? = nil,
        _ transcript: inout Transcript
    ) async throws {
        let answer = try await http.send(method, "/v1/calls/\(callID)/\(action)", token: token, json: json)
        transcript.add("\(method) /v1/calls/{id}/\(action) → \(answer.status)", answer.body)
    }

    @Test func acceptedThenHungUp() async throws {
        try await Self.scenario("accept", aliceEvents: 3, bobEvents: 2) { http, _, parties, transcript in
            let callID = try await Self.place(http, parties, &transcript)
            try await Self.act(
                http, "POST", callID, "ringing", token: parties.bob, json: #"{"device_id":"bob-iphone"}"#, &transcript)
            try await Self.act(
                http, "POST", callID, "accept", token: parties.bob, json: #"{"device_id":"bob-iphone"}"#, &transcript)
            try await Self.act(http, "POST", callID, "end", token: parties.alice, &transcript)
            return callID
        }
    }

    @Test func declined() async throws {
        try await Self.scenario("decline", aliceEvents: 1, bobEvents: 1) { http, _, parties, transcript in
            let callID = try await Self.place(http, parties, &transcript)
            try await Self.act(
                http, "POST", callID, "decline", token: parties.bob, json: #"{"device_id":"bob-iphone"}"#, &transcript)
            return callID
        }
    }

    @Test func cancelledByTheCaller() async throws {
        try await Self.scenario("cancel", aliceEvents: 0, bobEvents: 2) { http, _, parties, transcript in
            let callID = try await Self.place(http, parties, &transcript)
            try await Self.act(http, "POST", callID, "cancel", token: parties.alice, &transcript)
            return callID
        }
    }

    @Test func rungOutUnanswered() async throws {
        try await Self.scenario("ring-out", aliceEvents: 1, bobEvents: 2) { http, clock, parties, transcript in
            let callID = try await Self.place(http, parties, &transcript)
            await clock.step(by: 21)
            return callID
        }
    }

    /// The server ends an accepted call at `--max-call-duration` (600 s here).
    @Test func endedByTheServerAtTheLongestCall() async throws {
        try await Self.scenario("server-end", aliceEvents: 2, bobEvents: 2) { http, clock, parties, transcript in
            let callID = try await Self.place(http, parties, &transcript)
            try await Self.act(
                http, "POST", callID, "accept", token: parties.bob, json: #"{"device_id":"bob-iphone"}"#, &transcript)
            await clock.step(by: 601)
            return callID
        }
    }

    /// Bob is in a call with alice; carol's call to him ends at once, busy.
    @Test func busy() async throws {
        try await Self.scenario("busy", aliceEvents: 1, bobEvents: 1) { http, _, parties, transcript in
            let first = try await Self.place(http, parties, &transcript)
            try await Self.act(
                http, "POST", first, "accept", token: parties.bob, json: #"{"device_id":"bob-iphone"}"#, &transcript)
            let carol = try await APITests.token(http, "carol", name: "Carol")
            let created = try await http.send("POST", "/v1/calls", token: carol, json: #"{"callee":"bob"}"#)
            transcript.add("POST /v1/calls (carol) → \(created.status)", created.body)
            let callID = try created.decode(Call.self).callID
            let got = try await http.send("GET", "/v1/calls/\(callID)", token: carol)
            transcript.add("GET /v1/calls/{id} (carol)", got.body)
            return first
        }
    }

    /// A callee with no device that can ring: the call fails at once.
    @Test func failedForACalleeWithNoDevice() async throws {
        try await Self.scenario("failed", aliceEvents: 1, bobEvents: 0) { http, _, parties, transcript in
            _ = try await APITests.token(http, "dave", name: "Dave")
            return try await Self.place(http, parties, &transcript, callee: "dave")
        }
    }

    // MARK: Push bodies

    /// The VoIP, background and alert payloads and the FCM `messages:send` bodies the senders build for a fixed call.
    @Test func pushBodies() async throws {
        let apns = APNsPushSender(
            client: try APNsClient(
                configuration: .init(
                    credentials: .init(key: try JWTSigningKey.generateP256(), keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
                )))
        defer { apns.client.shutdown() }
        let account = try FCMServiceAccount(
            projectID: "ringer-demo", privateKeyID: "kid", clientEmail: "sender@ringer-demo.iam.gserviceaccount.com",
            tokenURI: "https://oauth2.googleapis.com/token", key: try JWTSigningKey.generateRSA())
        let fcm = FCMPushSender(client: try FCMClient(configuration: .init(serviceAccounts: [account])))
        defer { fcm.client.shutdown() }
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let iPhone = Device(
            deviceID: "bob-iphone", userID: "bob", platform: .ios, voipToken: String(repeating: "ab", count: 32),
            apnsToken: String(repeating: "cd", count: 32), apnsEnvironment: .sandbox, bundleID: "com.example.app",
            updatedAt: now)
        let pixel = Device(
            deviceID: "bob-pixel", userID: "bob", platform: .android, fcmToken: "fcm-token-1", updatedAt: now)
        let ringing = Call(
            callID: "0d6f7c8e-3b1a-4c2d-9e8f-1a2b3c4d5e6f", state: .ringing, caller: Party(id: "alice", name: "Alice"),
            callee: Party(id: "bob", name: "Bob"), hasVideo: true, createdAt: now, expiresAt: now.addingTimeInterval(45)
        )
        var ended = ringing
        ended.state = .unanswered
        let purposes: [(String, PushRequest.Purpose, Call)] = [
            ("ring", .ring, ringing),
            ("stop-cancelled", .stopRinging(.callCancelled), ended),
            ("missed", .missedCall, ended),
        ]
        for (name, purpose, call) in purposes {
            var apnsText = ""
            let apnsRequest = PushRequest(purpose, call: call, device: iPhone, now: now)
            if let message = try apns.message(for: apnsRequest) {
                let notification = message.notification
                apnsText =
                    notification.headers.map { "# \($0.name): \($0.value)\n" }.joined()
                    + String(decoding: notification.payload, as: UTF8.self) + "\n"
            }
            try Self.check("push-apns-\(name)", apnsText)
            var fcmRequest = PushRequest(purpose, call: call, device: pixel, now: now)
            fcmRequest.deviceMayBeRinging = true
            var fcmText = ""
            if let message = try fcm.message(for: fcmRequest) {
                var outgoing = message.message
                outgoing.ttl = FCMMessage.ttl(forSecondsLeft: fcmRequest.providerExpiration.timeIntervalSince(now))
                fcmText = String(decoding: try outgoing.requestBody(token: message.token), as: UTF8.self) + "\n"
            }
            try Self.check("push-fcm-\(name)", fcmText)
        }
    }
}
