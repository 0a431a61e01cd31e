import DevCertificates
import Foundation
import RingerSupport
import RingerSandbox
import RingerScenarios
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerServer

/// Android ringing as docs/openapi.yaml and docs/fcm.md specify it, checked by an independent FCM peer (Tests/Peers/fcm_peer.py:
/// hypercorn + h2, PyJWT verifying the grant) that records Ringer's `messages:send` requests and answers as
/// each registration token's prefix asks.
@Suite(.serialized) struct FCMPushToIndependentPeerTests {
    /// A server sending through the peer, with `configure` applied.
    private func withServer(
        _ peer: FCMPeer, clock: any ServerClock = SystemServerClock(),
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestHTTP) async throws -> Void
    ) async throws {
        try await APITests.withServer(
            clock: clock,
            configure: { config in
                var fcm = ServerConfiguration.FCMSettings(serviceAccountFiles: [peer.accountPath(peer.projects[0])])
                fcm.baseURL = peer.baseURL
                fcm.caFile = peer.caFile
                config.fcm = fcm
                configure(&config)
            }, body)
    }

    private func registerAndroid(_ http: TestHTTP, user: String, device: String, fcmToken: String) async throws {
        let response = try await http.send(
            "PUT", "/v1/devices/\(device)", token: user,
            json: #"{"platform":"android","fcm_token":"\#(fcmToken)"}"#)
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// The call's push records once `count` are stored.
    private func pushes(_ http: TestHTTP, call: String, token: String, count: Int = 1) async throws -> [[String: Any]] {
        var pushes: [[String: Any]] = []
        for _ in 0..<400 where pushes.count < count {
            pushes =
                (try await http.send("GET", "/v1/calls/\(call)/pushes", token: token).object["pushes"]
                    as? [[String: Any]]) ?? []
            if pushes.count < count { try await Task.sleep(for: .milliseconds(25)) }
        }
        return pushes
    }

    private func sends(_ peer: FCMPeer, count: Int) async throws -> [FCMPeer.Record] {
        var sends: [FCMPeer.Record] = []
        for _ in 0..<400 where sends.count < count {
            sends = try await peer.sends()
            if sends.count < count { try await Task.sleep(for: .milliseconds(25)) }
        }
        return sends
    }

    @Test func ringingMessageReachesAnIndependentFCMExactlyAsTheContractSays() async throws {
        try await FCMPeer.with { peer in
            try await withServer(peer) { http in
                let alice = try await APITests.token(http, "alice", name: "Alice")
                let bob = try await APITests.token(http, "bob")
                let fcmToken = "ok-bob:APA91b" + String(repeating: "Xy_-", count: 30)
                try await registerAndroid(http, user: bob, device: "bob-pixel", fcmToken: fcmToken)
                let call = try
                    (try await http.send(
                        "POST", "/v1/calls", token: alice,
                        json: #"{"callee":"bob","has_video":true}"#)).decode(Call.self)
                #expect(call.state == .ringing)

                let send = try #require(try await sends(peer, count: 1).first)
                #expect(send.problems == [])
                #expect(send.path == "/v1/projects/\(peer.projects[0])/messages:send")
                #expect(send.httpVersion == "2")
                let message = try #require(send.json?["message"] as? [String: Any])
                #expect(message["token"] as? String == fcmToken)
                #expect(message["notification"] == nil)
                let android = try #require(message["android"] as? [String: Any])
                #expect(android["priority"] as? String == "HIGH")
                #expect(android["collapse_key"] as? String == call.callID)
                // Whole seconds left to ring, rounded up: 45 s when sent at once.
                let ttl = try #require(android["ttl"] as? String)
                #expect(ttl.hasSuffix("s") && (40...45).contains(Int(ttl.dropLast()) ?? -1), "\(ttl)")
                let data = try #require(message["data"] as? [String: String])
                #expect(data.keys.sorted() == ["ringer"])
                let ringer = try RingerJSON.decode(VoIPPush.Body.self, from: Data(try #require(data["ringer"]).utf8))
                #expect(ringer.type == .callIncoming)
                #expect(ringer.callID == call.callID)
                #expect(ringer.caller == Party(id: "alice", name: "Alice"))
                #expect(ringer.hasVideo)
                #expect(ringer.expiresAt == call.expiresAt.unixMilliseconds)

                let pushes = try await pushes(http, call: call.callID, token: bob)
                #expect(pushes.first?["provider"] as? String == "fcm")
                #expect(pushes.first?["status"] as? Int == 200)
                #expect(pushes.first?["push_type"] as? String == "high")
                #expect(
                    (pushes.first?["message_name"] as? String)?.hasPrefix("projects/\(peer.projects[0])/messages/")
                        == true)
                #expect(pushes.first?["apns_id"] == nil)
            }
        }
    }

    @Test func unregisteredTokenIsRemovedAndTheNextCallFailsInsteadOfRingingNobody() async throws {
        try await FCMPeer.with { peer in
            try await withServer(peer) { http in
                let alice = try await APITests.token(http, "alice")
                let bob = try await APITests.token(http, "bob")
                try await registerAndroid(http, user: bob, device: "bob-pixel", fcmToken: "unregistered-bob")
                let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#))
                    .decode(Call.self)
                let pushes = try await pushes(http, call: call.callID, token: bob)
                #expect(pushes.first?["status"] as? Int == 404)
                #expect(pushes.first?["reason"] as? String == "UNREGISTERED")
                var devices: [Any] = [1]
                for _ in 0..<200 where !devices.isEmpty {
                    devices = (try await http.send("GET", "/v1/devices", token: bob).object["devices"] as? [Any]) ?? []
                    if !devices.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
                }
                #expect(devices.isEmpty)
                _ = try await http.send("POST", "/v1/calls/\(call.callID)/cancel", token: alice)
                let next = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#))
                    .decode(Call.self)
                #expect(next.state == .failed)
            }
        }
    }

    @Test func unavailableWithRetryAfterIsRetriedOnTheServersClockWithinTheRing() async throws {
        // Retry-After: 7 s of server time; the scenario clock runs 20 times faster, so the ring takes ~2.3 s.
        try await FCMPeer.with { peer in
            try await withServer(peer, clock: ScenarioClock(scale: 0.05)) { http in
                let alice = try await APITests.token(http, "alice")
                let bob = try await APITests.token(http, "bob")
                try await registerAndroid(http, user: bob, device: "bob-pixel", fcmToken: "unavailable-bob")
                let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#))
                    .decode(Call.self)
                let pushes = try await pushes(http, call: call.callID, token: bob)
                #expect(pushes.first?["status"] as? Int == 503)
                #expect(pushes.first?["reason"] as? String == "UNAVAILABLE")
                // Every 7 s (plus each round trip, which a 20x clock stretches) until the next send would leave no
                // time for an answer in the 45 s ring: 0, 7, 14, … at most 42 s. Only the ringing messages count:
                // the ring's end (0.15 s of real time after the last) sends a missed-call message to the same
                // token, which a loaded machine may record before this reads the peer.
                let sends = try await peer.sends().filter { Self.ringerType(of: $0) == "call.incoming" }
                #expect((4...7).contains(sends.count), "\(sends.count) sends")
                #expect(pushes.first?["attempts"] as? Int == sends.count)
                let ttls = sends.compactMap {
                    (($0.json?["message"] as? [String: Any])?["android"] as? [String: Any])?["ttl"] as? String
                }
                let seconds = ttls.compactMap { Int($0.dropLast()) }
                // Recomputed on every send (what is left of the ring), each send at least Retry-After after the last.
                #expect(
                    seconds.count == sends.count && zip(seconds, seconds.dropFirst()).allSatisfy { $0 - $1 >= 7 },
                    "\(ttls)")
                #expect(seconds.last.map { $0 >= 1 } == true)
            }
        }
    }

    /// The `type` of the Ringer payload a recorded send carries (`call.incoming`, `call.unanswered`); nil when none.
    private static func ringerType(of send: FCMPeer.Record) -> String? {
        guard let data = (send.json?["message"] as? [String: Any])?["data"] as? [String: String],
            let ringer = data["ringer"],
            let object = try? JSONSerialization.jsonObject(with: Data(ringer.utf8)) as? [String: Any]
        else { return nil }
        return object["type"] as? String
    }

    @Test func senderIDMismatchDegradesHealthAndMarksTheDevice() async throws {
        try await FCMPeer.with { peer in
            try await withServer(peer) { http in
                let alice = try await APITests.token(http, "alice")
                let bob = try await APITests.token(http, "bob")
                try await registerAndroid(http, user: bob, device: "bob-pixel", fcmToken: "senderid-bob")
                let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#))
                    .decode(Call.self)
                let pushes = try await pushes(http, call: call.callID, token: bob)
                #expect(pushes.first?["reason"] as? String == "SENDER_ID_MISMATCH")
                #expect(pushes.first?["attempts"] as? Int == 1)
                let health = try await http.send("GET", "/healthz")
                #expect(health.object["status"] as? String == "degraded")
                let problem = (health.object["push_problems"] as? [[String: Any]])?.first
                #expect(problem?["provider"] as? String == "fcm")
                #expect(problem?["project"] as? String == peer.projects[0])
                #expect(problem?["reason"] as? String == "SENDER_ID_MISMATCH")
                let device =
                    (try await http.send("GET", "/v1/devices", token: bob).object["devices"] as? [[String: Any]])?.first
                let mark = device?["push_problem"] as? [String: Any]
                #expect(mark?["reason"] as? String == "SENDER_ID_MISMATCH")
                #expect(mark?["token"] as? String == "fcm_token")
                #expect(device?["fcm_token"] as? String == "senderid-bob")
            }
        }
    }

    @Test func oneMisregisteredDeviceInAWorkingProjectIsMarkedWithoutDegradingHealth() async throws {
        try await FCMPeer.with { peer in
            try await withServer(peer) { http in
                let alice = try await APITests.token(http, "alice")
                let bob = try await APITests.token(http, "bob")
                let carol = try await APITests.token(http, "carol")
                try await registerAndroid(http, user: bob, device: "bob-pixel", fcmToken: "ok-bob")
                try await registerAndroid(http, user: carol, device: "carol-pixel", fcmToken: "senderid-carol")
                let first = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#))
                    .decode(Call.self)
                #expect(try await pushes(http, call: first.callID, token: bob).first?["status"] as? Int == 200)
                let second = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"carol"}"#))
                    .decode(Call.self)
                #expect(
                    try await pushes(http, call: second.callID, token: carol).first?["reason"] as? String
                        == "SENDER_ID_MISMATCH")
                // The project just accepted a message: its set-up works, so the mismatch is Carol's token.
                #expect(try await http.send("GET", "/healthz").object["status"] as? String == "ok")
                var mark: [String: Any]?
                for _ in 0..<200 where mark == nil {
                    let device =
                        (try await http.send("GET", "/v1/devices", token: carol).object["devices"] as? [[String: Any]])?
                        .first
                    mark = device?["push_problem"] as? [String: Any]
                    if mark == nil { try await Task.sleep(for: .milliseconds(25)) }
                }
                #expect(mark?["reason"] as? String == "SENDER_ID_MISMATCH")
            }
        }
    }

    @Test func answersThatAreNotJSONOrCarryNoCodeAreRecordedAndNeverDeleteTheToken() async throws {
        try await FCMPeer.with { peer in
            try await withServer(peer, clock: ScenarioClock(scale: 0.05)) { http in
                let alice = try await APITests.token(http, "alice")
                let bob = try await APITests.token(http, "bob")
                for (token, status) in [("notjson-bob", 502), ("nocode-bob", 400)] {
                    try await registerAndroid(http, user: bob, device: "bob-pixel", fcmToken: token)
                    let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#))
                        .decode(Call.self)
                    let pushes = try await pushes(http, call: call.callID, token: bob)
                    #expect(pushes.first?["status"] as? Int == status, "\(token)")
                    _ = try await http.send("POST", "/v1/calls/\(call.callID)/cancel", token: alice)
                    let device =
                        (try await http.send("GET", "/v1/devices", token: bob).object["devices"] as? [[String: Any]])?
                        .first
                    #expect(device?["fcm_token"] as? String == token, "\(token)")
                }
                // A 502 is retried (by status class); a 400 without a code is Ringer's own bug, sent once.
                let ringing = try await peer.sends().filter { $0.body.contains("call.incoming") }
                #expect(ringing.filter { $0.body.contains("notjson-bob") }.count > 5)
                #expect(ringing.filter { $0.body.contains("nocode-bob") }.count == 1)
            }
        }
    }

    @Test func aRefusedGrantStopsTheServerAtStartWithGooglesReason() async throws {
        try await FCMPeer.with { peer in
            var config = ServerConfiguration()
            config.port = 0
            config.databasePath = ":memory:"
            config.adminKey = APITests.adminKey
            config.userTokenSecret = String(repeating: "s", count: 32)
            var fcm = ServerConfiguration.FCMSettings(serviceAccountFiles: [
                peer.accountPath(peer.projects[0] + "-wrong-key")
            ])
            fcm.baseURL = peer.baseURL
            fcm.caFile = peer.caFile
            config.fcm = fcm
            let server = try RingerServer(configuration: config, logger: .silent())
            let error = await #expect(throws: ConfigurationError.self) { try await server.start() }
            #expect(error?.description.contains("Invalid JWT Signature") == true, "\(String(describing: error))")
            #expect(error?.description.contains("BEGIN") == false)
            await server.shutdown()
        }
    }

    @Test func anUnreachableTokenEndpointIsReportedInHealthAndTheServerStillStarts() async throws {
        try await FCMPeer.with { peer in
            // The peer's account, with its token URI moved to a port nobody listens on.
            let closed = try ClosedPort()
            let original = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: peer.accountPath(peer.projects[0]))))
            var account = try #require(original as? [String: Any])
            account["token_uri"] = "https://localhost:\(closed.port)/token"
            let file = peer.directory.appendingPathComponent("unreachable.json")
            try JSONSerialization.data(withJSONObject: account).write(to: file)
            var settings = ServerConfiguration.FCMSettings(serviceAccountFiles: [file.path])
            settings.baseURL = peer.baseURL
            settings.caFile = peer.caFile
            try await APITests.withServer(configure: { $0.fcm = settings }) { http in
                let health = try await http.send("GET", "/healthz")
                #expect(health.object["status"] as? String == "degraded")
                let problem = (health.object["push_problems"] as? [[String: Any]])?.first
                #expect(problem?["reason"] as? String == FCMCredentialWatch.unreachableReason)
                #expect(problem?["project"] as? String == peer.projects[0])
            }
        }
    }

    @Test func badServiceAccountFilesStopTheServerNamingTheFileNeverTheKey() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-fcm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [(String, String)] = [
            ("not-json.json", "this is not json"),
            (
                "no-key.json",
                #"{"type":"service_account","project_id":"ringer-demo","private_key_id":"k1","client_email":"a@b","token_uri":"https://oauth2.googleapis.com/token"}"#
            ),
            (
                "bad-key.json",
                #"{"type":"service_account","project_id":"ringer-demo","private_key_id":"k1","private_key":"-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END PRIVATE KEY-----\n","client_email":"a@b","token_uri":"https://oauth2.googleapis.com/token"}"#
            ),
        ]
        for (name, content) in cases {
            let file = directory.appendingPathComponent(name)
            try Data(content.utf8).write(to: file)
            var config = ServerConfiguration()
            config.databasePath = ":memory:"
            config.adminKey = "k"
            config.userTokenSecret = String(repeating: "s", count: 32)
            config.fcm = .init(serviceAccountFiles: [file.path])
            let error = #expect(throws: ConfigurationError.self) {
                _ = try RingerServer(configuration: config, logger: .silent())
            }
            #expect(error?.description.contains("--fcm-service-account") == true, "\(name)")
            #expect(error?.description.contains(file.path) == true, "\(name)")
            #expect(error?.description.contains("c2VjcmV0") == false, "\(name)")
        }
    }
}

/// The start-up grant's retries: a token endpoint that comes back clears the project's health problem.
@Suite struct FCMCredentialRecoveryTests {
    @Test func aTokenEndpointThatComesBackClearsHealthWithoutARestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-fcm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tls = try DevCertificateAuthority.create().write(to: directory.appendingPathComponent("tls"))
        // A port nobody listens on yet; the FCM sandbox takes it once the server is up.
        let port = try ClosedPort().port
        let account = try FCMSandboxServiceAccountFile.make(
            projectID: "ringer-later", tokenURI: "https://localhost:\(port)/token")
        let file = directory.appendingPathComponent("account.json")
        try account.write(to: file)
        var settings = ServerConfiguration.FCMSettings(serviceAccountFiles: [file.path])
        settings.baseURL = "https://localhost:\(port)"
        settings.caFile = tls.caCertificate.path
        try await APITests.withServer(configure: { $0.fcm = settings }) { http in
            let before = try await http.send("GET", "/healthz")
            #expect(
                (before.object["push_problems"] as? [[String: Any]])?.first?["reason"] as? String
                    == FCMCredentialWatch.unreachableReason)
            let sandbox = FCMSandbox(
                configuration: .init(
                    port: port, http1Port: nil, certificatePath: tls.serverCertificate.path,
                    privateKeyPath: tls.serverPrivateKey.path), logger: .silent())
            try sandbox.addServiceAccount(json: account)
            _ = try sandbox.start()
            defer { sandbox.shutdown() }
            // The first retry comes 2.5-5 s after start (FCMCredentialWatch.retryBackoff).
            var status: String?
            for _ in 0..<300 where status != "ok" {
                status = try await http.send("GET", "/healthz").object["status"] as? String
                if status != "ok" { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(status == "ok")
            #expect(sandbox.statistics.tokenRequests >= 1)
        }
    }
}
