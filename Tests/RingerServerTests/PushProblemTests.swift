import DevCertificates
import Foundation
import RingerSupport
import RingerSandbox
import RingerScenarios
import RingerServer
import RingerTestSupport
import RingerWire
import Testing

/// What the server does with APNs answers that are not about a dead token: `BadDeviceToken` keeps the
/// token and marks the device, and every push's outcome is on the call for its participants.
@Suite(.serialized) struct PushProblemTests {
    @Test func badDeviceTokenKeepsTheTokenMarksTheDeviceAndShowsOnTheCall() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore)
        bob.setAppState(.killed)
        // A second phone whose token APNs does not know for this environment (a development build
        // registered as production): APNs answers BadDeviceToken.
        let http = TestHTTP(base: stack.serverURL)
        let bobToken = try await stack.userToken(for: "bob", name: nil)
        let stranger = String(repeating: "5a", count: 32)
        let registered = try await http.send(
            "PUT", "/v1/devices/bob-ipad", token: bobToken,
            json: """
                {"platform":"ios","voip_token":"\(stranger)","apns_environment":"sandbox","bundle_id":"\(bob.identity.bundleID)"}
                """)
        #expect(registered.status == 200)

        let call = try await alice.call("bob")
        var pushes: [PushAttempt] = []
        for _ in 0..<200 {
            let fetched = try RingerJSON.decode(
                Call.self,
                from: try await http.send(
                    "GET", "/v1/calls/\(call.callID)",
                    token: bobToken
                ).body)
            pushes = fetched.pushes ?? []
            if pushes.count == 2 { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        let byDevice = Dictionary(uniqueKeysWithValues: pushes.map { ($0.deviceID, $0) })
        #expect(byDevice["bob-iphone"]?.status == 200)
        #expect(byDevice["bob-ipad"]?.status == 400)
        #expect(byDevice["bob-ipad"]?.reason == "BadDeviceToken")
        #expect(byDevice["bob-ipad"]?.attempts == 1, "never retried")

        var ipad: Device?
        for _ in 0..<200 {
            ipad = try await DeadTokenTests.devices(stack, user: "bob").first { $0.deviceID == "bob-ipad" }
            if ipad?.pushProblem != nil { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(ipad?.voipToken == stranger, "the token is kept: the same answer comes for the other environment")
        #expect(ipad?.pushProblem?.reason == "BadDeviceToken")
        #expect(ipad?.pushProblem?.token == "voip_token")

        // The app registers again (now with the right environment): the mark is gone.
        let fixed = try await http.send(
            "PUT", "/v1/devices/bob-ipad", token: bobToken,
            json: """
                {"platform":"ios","voip_token":"\(stranger)","apns_environment":"production","bundle_id":"\(bob.identity.bundleID)"}
                """)
        #expect(fixed.status == 200)
        #expect(
            try await DeadTokenTests.devices(stack, user: "bob").first { $0.deviceID == "bob-ipad" }?.pushProblem == nil
        )
        await stack.shutdown()
    }

    @Test func pushOutcomesAreOnlyForTheCallsParticipants() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        _ = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore)
        let call = try await alice.call("bob")
        let http = TestHTTP(base: stack.serverURL)
        let mallory = try await stack.userToken(for: "mallory", name: nil)
        let response = try await http.send("GET", "/v1/calls/\(call.callID)", token: mallory)
        #expect(response.status == 404 || response.status == 403)
        #expect(String(decoding: response.body, as: UTF8.self).contains("apns_id") == false)
        await stack.shutdown()
    }

    /// A configuration error (here `TopicDisallowed`) fails the push at once, is never retried, and shows in
    /// `/healthz` until a push to that topic succeeds again.
    @Test func configurationErrorFailsFastAndShowsInHealthUntilAPushSucceeds() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore)
        bob.setAppState(.killed)
        stack.sandbox.inject(APNsSandboxFault(.answer(status: 400, reason: "TopicDisallowed"), count: nil))
        let http = TestHTTP(base: stack.serverURL)
        let aliceToken = try await stack.userToken(for: "alice", name: nil)
        let bobToken = try await stack.userToken(for: "bob", name: nil)

        let call = try await alice.call("bob")
        var pushes: [PushAttempt] = []
        for _ in 0..<200 where pushes.isEmpty {
            pushes =
                try RingerJSON.decode(
                    Call.self,
                    from: try await http.send(
                        "GET", "/v1/calls/\(call.callID)",
                        token: bobToken
                    ).body
                ).pushes ?? []
            if pushes.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
        }
        #expect(pushes.map(\.reason) == ["TopicDisallowed"])
        #expect(pushes.first?.attempts == 1, "a configuration error is never retried")
        let degraded = try await http.send("GET", "/healthz")
        #expect(degraded.status == 200)
        #expect(degraded.object["status"] as? String == "degraded")
        let problems = degraded.object["push_problems"] as? [[String: Any]] ?? []
        #expect(problems.first?["reason"] as? String == "TopicDisallowed")
        #expect(problems.first?["topic"] as? String == bob.identity.bundleID + ".voip")
        // The token is neither removed nor marked: it is the server's set-up that is wrong.
        let device = try await DeadTokenTests.devices(stack, user: "bob").first
        #expect(device?.voipToken == bob.identity.voipToken)
        #expect(device?.pushProblem == nil)

        // The operator fixes it; the next push succeeds and the problem clears.
        stack.sandbox.clearFaults()
        _ = try await http.send("POST", "/v1/calls/\(call.callID)/cancel", token: aliceToken)
        _ = try await alice.call("bob")
        var healthy = false
        for _ in 0..<200 where !healthy {
            healthy = (try await http.send("GET", "/healthz")).object["status"] as? String == "ok"
            if !healthy { try await Task.sleep(for: .milliseconds(25)) }
        }
        #expect(healthy)
        await stack.shutdown()
    }

    /// APNs refusing the client certificate in the TLS handshake (here the sandbox trusts another CA) is a
    /// set-up problem like `BadCertificate`: the push fails at once with the alert, is not retried, and
    /// `/healthz` says `degraded` with reason `CertificateRefused`.
    @Test func certificateRefusedInTheHandshakeFailsFastAndShowsInHealth() async throws {
        let certificates = try await TestCertificates.make()  // the app certificate, signed by this CA
        defer { certificates.remove() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-refused-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tls = try DevCertificateAuthority.create().write(to: directory)  // the sandbox trusts only this CA
        let sandbox = APNsSandbox(
            configuration: .init(
                certificatePath: tls.serverCertificate.path,
                privateKeyPath: tls.serverPrivateKey.path,
                clientCAPath: tls.caCertificate.path), logger: .silent())
        let port = try sandbox.start()
        defer { sandbox.shutdown() }

        try await APITests.withServer(configure: { config in
            var apns = ServerConfiguration.APNsSettings(
                credentials: .certificate(
                    file: certificates.clientCertificate, keyFile: certificates.clientKey, password: nil))
            apns.sandboxURL = "https://localhost:\(port)"
            apns.productionURL = apns.sandboxURL
            apns.caFile = tls.caCertificate.path
            config.apns = apns
        }) { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(
                http, token: bob, device: "bob-iphone", voip: String(repeating: "6b", count: 32))
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            var pushes: [[String: Any]] = []
            for _ in 0..<200 where pushes.isEmpty {
                pushes =
                    (try await http.send("GET", "/v1/calls/\(call.callID)/pushes", token: bob).object["pushes"]
                        as? [[String: Any]]) ?? []
                if pushes.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
            }
            #expect(pushes.first?["attempts"] as? Int == 1, "a refused certificate is not retried")
            #expect((pushes.first?["reason"] as? String)?.contains("unknown ca") == true, "\(pushes)")
            let health = try await http.send("GET", "/healthz")
            #expect(health.object["status"] as? String == "degraded")
            let problems = health.object["push_problems"] as? [[String: Any]] ?? []
            #expect(problems.first?["reason"] as? String == "CertificateRefused")
            #expect(sandbox.acceptedPushes.isEmpty)
        }
    }
}
