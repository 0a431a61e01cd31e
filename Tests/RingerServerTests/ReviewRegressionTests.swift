import DevCertificates
import Foundation
import JWT
import RingerSupport
import RingerSandbox
import RingerServer
import RingerTestSupport
import RingerWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Bugs found by trying to break the server, each kept as the behaviour it must have.
@Suite(.serialized) struct ReviewRegressionTests {
    @Test func anotherUserRegisteringTheSameDeviceIDCannotStopThePhoneFromRinging() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            let carol = try await APITests.token(http, "carol")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            try await APITests.registerPhone(
                http, token: carol, device: "bob-iphone", voip: String(repeating: "ee", count: 32))
            #expect((try await http.send("GET", "/v1/devices", token: bob).object["devices"] as? [Any])?.count == 1)
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            #expect(call.state == .ringing)
            // Carol's device of the same name is not bob's: she cannot answer his call with it.
            APITests.expectProblem(
                try await http.send(
                    "POST", "/v1/calls/\(call.callID)/accept", token: carol,
                    json: #"{"device_id":"bob-iphone"}"#),
                status: 404, type: .callNotFound)
        }
    }

    @Test func repeatingADeclineFromTheSameDeviceSucceedsWithoutEffect() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            for _ in 0..<2 {
                let response = try await http.send(
                    "POST", "/v1/calls/\(call.callID)/decline", token: bob,
                    json: #"{"device_id":"bob-iphone"}"#)
                #expect(response.status == 200)
                #expect(try response.decode(Call.self).state == .declined)
            }
        }
    }

    @Test func timestampsReadBackExactlyAsFirstAnswered() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            for _ in 0..<10 {
                let created = try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)
                let id = try #require(created.object["call_id"] as? String)
                _ = try await http.send(
                    "POST", "/v1/calls/\(id)/ringing", token: bob, json: #"{"device_id":"bob-iphone"}"#)
                let read = try await http.send("GET", "/v1/calls/\(id)", token: alice)
                #expect(read.object["created_at"] as? String == created.object["created_at"] as? String)
                #expect(read.object["expires_at"] as? String == created.object["expires_at"] as? String)
                _ = try await http.send("POST", "/v1/calls/\(id)/cancel", token: alice)
            }
        }
    }

    @Test func fullWidthDigitsAreNotAHexPushToken() async throws {
        try await APITests.withServer { http in
            let bob = try await APITests.token(http, "bob")
            let response = try await http.send(
                "PUT", "/v1/devices/d1", token: bob,
                json: """
                    {"platform":"ios","voip_token":"\(String(repeating: "０１", count: 16))","bundle_id":"com.example.app"}
                    """)
            APITests.expectProblem(response, status: 422, type: .invalidField)
        }
    }

    @Test func displayNamesAreBoundedSoTheyAlwaysFitAVoIPPush() async throws {
        try await APITests.withServer { http in
            let long = String(repeating: "名", count: 65)
            let response = try await http.send(
                "POST", "/v1/tokens", token: APITests.adminKey,
                json: #"{"user_id":"alice","name":"\#(long)"}"#)
            APITests.expectProblem(response, status: 422, type: .invalidField)
            let bob = try await APITests.token(http, "bob")
            APITests.expectProblem(
                try await http.send(
                    "PUT", "/v1/devices/d1", token: bob,
                    json: """
                        {"platform":"ios","voip_token":"abcd","bundle_id":"com.example.app.voip"}
                        """), status: 422, type: .invalidField)
        }
    }

    @Test func acceptAfterTheRingDeadlineLosesToTheRingOutEvenBeforeTheTimerFires() async throws {
        let clock = ManualServerClock(sleeps: .never)
        try await APITests.withServer(clock: clock, configure: { $0.ringTimeout = 5 }) { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            clock.advance(by: 6)
            let late = try await http.send(
                "POST", "/v1/calls/\(call.callID)/accept", token: bob,
                json: #"{"device_id":"bob-iphone"}"#)
            APITests.expectProblem(late, status: 409, type: .callStateConflict)
            #expect(late.object["call_state"] as? String == "unanswered")
        }
    }

    @Test func voipPushIsRetriedUntilAPNsAnswersWithinTheRingDeadline() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-retry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tls = try DevCertificateAuthority.create().write(to: directory.appendingPathComponent("tls"))
        let key = try JWTSigningKey.generateP256()
        let keyFile = directory.appendingPathComponent("AuthKey.p8")
        try Data(try key.pkcs8PEM().utf8).write(to: keyFile)
        // Until the sandbox starts, the port drops every connection: the first attempts fail.
        let dropping = try DroppingListener()
        let sandboxPort = dropping.port
        let voip = String(repeating: "9a", count: 32)

        try await APITests.withServer(configure: { config in
            var apns = ServerConfiguration.APNsSettings(
                keyFile: keyFile.path, keyID: "RETRYKEY01", teamID: "RETRYTEAM1")
            apns.sandboxURL = "https://localhost:\(sandboxPort)"
            apns.productionURL = apns.sandboxURL
            apns.caFile = tls.caCertificate.path
            config.apns = apns
        }) { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone", voip: voip)
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            // Only once a push has failed does APNs come up (waiting a fixed time is a race on a busy machine).
            #expect(await eventually { dropping.acceptedCount >= 1 })
            await dropping.stop()
            let sandbox = APNsSandbox(
                configuration: .init(
                    port: sandboxPort, certificatePath: tls.serverCertificate.path,
                    privateKeyPath: tls.serverPrivateKey.path), logger: .silent())
            try sandbox.addProviderKey(keyID: "RETRYKEY01", teamID: "RETRYTEAM1", publicKeyPEM: try key.publicKeyPEM())
            sandbox.register(SandboxDevice(token: voip, bundleID: "com.example.app"))
            try sandbox.start()
            defer { sandbox.shutdown() }
            var pushes: [[String: Any]] = []
            for _ in 0..<200 where pushes.isEmpty {
                try await Task.sleep(for: .milliseconds(50))
                pushes =
                    (try await http.send("GET", "/v1/calls/\(call.callID)/pushes", token: bob).object["pushes"]
                        as? [[String: Any]]) ?? []
            }
            #expect(pushes.first?["status"] as? Int == 200)
            #expect((pushes.first?["attempts"] as? Int ?? 0) > 1)
            #expect(sandbox.acceptedPushes.count == 1)
        }
    }
}

/// A retried call creation (same `Idempotency-Key`) returns the first call and rings nobody twice.
@Suite(.serialized) struct IdempotentCallCreationTests {
    @Test func retryWithTheSameIdempotencyKeyReturnsTheSameCallAndStoresOne() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            var request = URLRequest(url: URL(string: http.base.absoluteString + "/v1/calls")!)
            request.httpMethod = "POST"
            request.setValue("Bearer " + alice, forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("retry-123", forHTTPHeaderField: "Idempotency-Key")
            request.httpBody = Data(#"{"callee":"bob"}"#.utf8)
            let first = try RingerJSON.decode(Call.self, from: try await URLSession.shared.data(for: request).0)
            let second = try RingerJSON.decode(Call.self, from: try await URLSession.shared.data(for: request).0)
            #expect(first.callID == second.callID)
            let list = try (try await http.send("GET", "/v1/calls", token: alice)).decode(CallList.self)
            #expect(list.calls.count == 1)
            // Another key is another call (bob is not busy: the first one only rings).
            request.setValue("retry-456", forHTTPHeaderField: "Idempotency-Key")
            let third = try RingerJSON.decode(Call.self, from: try await URLSession.shared.data(for: request).0)
            #expect(third.callID != first.callID)
        }
    }
}
