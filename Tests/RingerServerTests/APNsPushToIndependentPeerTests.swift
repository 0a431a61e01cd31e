import Foundation
import JWT
import RingerCommandLine
import RingerSupport
import RingerServer
import RingerTestSupport
import RingerWire
import Testing

/// `POST /v1/calls` must send Apple's VoIP push exactly as docs/openapi.yaml (`VoIPPush`) says, checked by an independent
/// HTTP/2 server (hypercorn + h2) that records the request, and PyJWT for the provider token.
@Suite(.serialized) struct APNsPushToIndependentPeerTests {
    @Test func voipPushReachesAnIndependentHTTP2ServerExactlyAsAppleSpecifies() async throws {
        try await TestPeer.with { peer, certificates in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ringer-apns-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let key = try JWTSigningKey.generateP256()
            let keyFile = directory.appendingPathComponent("AuthKey_ABC123DEFG.p8")
            try Data(try key.pkcs8PEM().utf8).write(to: keyFile)
            let publicKeyFile = directory.appendingPathComponent("public.pem")
            try Data(try key.publicKeyPEM().utf8).write(to: publicKeyFile)

            var config = ServerConfiguration()
            config.port = 0
            config.databasePath = directory.appendingPathComponent("ringer.sqlite").path
            config.adminKey = APITests.adminKey
            config.userTokenSecret = String(repeating: "k", count: 32)
            var apns = ServerConfiguration.APNsSettings(
                keyFile: keyFile.path, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
            apns.sandboxURL = "https://localhost:\(peer.port)"
            apns.productionURL = apns.sandboxURL
            apns.caFile = certificates.caFile
            config.apns = apns
            let server = try RingerServer(configuration: config, logger: .silent())
            let port = try await server.start()
            defer { Task { await server.shutdown() } }
            let http = TestHTTP(base: URL(string: "http://127.0.0.1:\(port)")!)

            let alice = try await APITests.token(http, "alice", name: "Alice")
            let bob = try await APITests.token(http, "bob")
            let voipToken = String(repeating: "5f", count: 40)  // 80 hex digits: length is not assumed
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone", voip: voipToken)
            let call = try
                (try await http.send(
                    "POST", "/v1/calls", token: alice,
                    json: #"{"callee":"bob","has_video":true}"#)).decode(Call.self)

            let path = "/3/device/" + voipToken
            try await peer.waitFor(path: path)
            let records = try await peer.records().filter { $0.path == path }
            try #require(records.count == 1)
            let request = records[0]
            #expect(request.method == "POST")
            #expect(request.httpVersion == "2")
            #expect(request.values(of: "apns-push-type") == ["voip"])
            #expect(request.values(of: "apns-topic") == ["com.example.app.voip"])
            #expect(request.values(of: "apns-priority") == ["10"])
            #expect(request.values(of: "apns-expiration") == [String(Int64(call.expiresAt.timeIntervalSince1970))])
            let apnsID = try #require(request.values(of: "apns-id").first)
            #expect(UUID(uuidString: apnsID) != nil)

            let payload = try RingerJSON.decode(VoIPPush.self, from: Data(request.bodyBytes))
            #expect(payload.ringer.v == 1)
            #expect(payload.ringer.type == .callIncoming)
            #expect(payload.ringer.callID == call.callID)
            #expect(payload.ringer.caller == Party(id: "alice", name: "Alice"))
            #expect(payload.ringer.hasVideo == true)
            #expect(payload.ringer.expiresAt == call.expiresAt.unixMilliseconds)
            #expect(abs(Double(payload.ringer.sentAt) - Date().timeIntervalSince1970 * 1000) < 10_000)
            let json = try JSONSerialization.jsonObject(with: Data(request.bodyBytes)) as? [String: Any]
            #expect(json?.keys.sorted() == ["ringer"])

            let authorization = try #require(request.values(of: "authorization").first)
            #expect(authorization.hasPrefix("bearer "))
            let tokenFile = directory.appendingPathComponent("provider.jwt")
            try Data(authorization.dropFirst("bearer ".count).utf8).write(to: tokenFile)
            try await PeerScripts.run(
                "verify_provider_token.py", [tokenFile.path, publicKeyFile.path, "ABC123DEFG", "DEF123GHIJ"])

            // The outcome is stored and shown to the callee, whose device it describes.
            var pushes: [[String: Any]] = []
            for _ in 0..<50 where pushes.isEmpty {
                pushes =
                    (try await http.send("GET", "/v1/calls/\(call.callID)/pushes", token: bob).object["pushes"]
                        as? [[String: Any]]) ?? []
                if pushes.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(pushes.first?["status"] as? Int == 200)
            #expect(pushes.first?["device_id"] as? String == "bob-iphone")
            #expect(pushes.first?["apns_id"] as? String == apnsID)
        }
    }

    /// Certificate authentication (`--apns-cert-file app.p12 --apns-cert-password …`): the independent
    /// peer requires a client certificate signed by its CA, so the push arriving proves libcurl presented
    /// the PKCS#12 identity; and no provider token is sent.
    @Test func certificateAuthenticationPresentsTheClientCertificateAndSendsNoProviderToken() async throws {
        try await TestPeer.with(requireClientCertificate: true) { peer, certificates in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ringer-apns-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let config = try ServerConfiguration.parse(
                arguments: [
                    "--listen", "127.0.0.1:0", "--database", directory.appendingPathComponent("ringer.sqlite").path,
                    "--apns-cert-file", certificates.clientP12, "--apns-host", "localhost:\(peer.port)",
                    "--apns-ca-file", certificates.caFile,
                ],
                environment: [
                    "RINGER_ADMIN_KEY": APITests.adminKey,
                    "RINGER_USER_TOKEN_SECRET": String(repeating: "k", count: 32),
                    "RINGER_APNS_CERT_PASSWORD": certificates.p12Password,
                ])
            let server = try RingerServer(configuration: config, logger: .silent())
            let port = try await server.start()
            defer { Task { await server.shutdown() } }
            let http = TestHTTP(base: URL(string: "http://127.0.0.1:\(port)")!)
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            _ = try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)

            let path = "/3/device/" + APITests.voip
            try await peer.waitFor(path: path)
            let request = try #require(try await peer.records().first { $0.path == path })
            #expect(request.values(of: "authorization").isEmpty)
            #expect(request.values(of: "apns-push-type") == ["voip"])
        }
    }

    @Test func wrongCertificatePasswordOrBothAuthenticationsStopTheServerAtStart() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        let environment = [
            "RINGER_ADMIN_KEY": APITests.adminKey, "RINGER_USER_TOKEN_SECRET": String(repeating: "k", count: 32),
        ]
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.parse(
                arguments: [
                    "--apns-cert-file", certificates.clientP12, "--apns-key-file", "k.p8",
                    "--apns-key-id", "ABC123DEFG", "--apns-team-id", "DEF123GHIJ",
                ],
                environment: environment)
        }
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.parse(arguments: ["--apns-cert-password", "x"], environment: environment)
        }
        var config = try ServerConfiguration.parse(
            arguments: [
                "--apns-cert-file", certificates.clientP12,
                "--apns-cert-password", "wrong-password",
            ],
            environment: environment)
        config.databasePath = ":memory:"
        let error = try #require(throws: ConfigurationError.self) {
            try RingerServer(configuration: config, logger: .silent())
        }
        #expect(error.description.contains("--apns-cert-file"))
        #expect(!error.description.contains("wrong-password"))
    }

    @Test func leftoverCertificatePasswordInTheEnvironmentDoesNotBlockASigningKey() throws {
        let environment = [
            "RINGER_ADMIN_KEY": APITests.adminKey, "RINGER_USER_TOKEN_SECRET": String(repeating: "k", count: 32),
            "RINGER_APNS_CERT_PASSWORD": "left-over",
        ]
        let config = try ServerConfiguration.parse(
            arguments: [
                "--apns-key-file", "k.p8", "--apns-key-id", "ABC123DEFG",
                "--apns-team-id", "DEF123GHIJ",
            ], environment: environment)
        guard case .signingKey(let file, _, _) = config.apns?.credentials else {
            Issue.record("expected token authentication, got \(String(describing: config.apns?.credentials))")
            return
        }
        #expect(file == "k.p8")
    }

    @Test func certificateProblemsNameTheFlagToFix() async throws {
        let certificates = try await TestCertificates.make()
        defer { certificates.remove() }
        func startError(_ arguments: [String]) throws -> String {
            let environment = [
                "RINGER_ADMIN_KEY": APITests.adminKey, "RINGER_USER_TOKEN_SECRET": String(repeating: "k", count: 32),
            ]
            var config = try ServerConfiguration.parse(arguments: arguments, environment: environment)
            config.databasePath = ":memory:"
            return try #require(throws: ConfigurationError.self) {
                try RingerServer(configuration: config, logger: .silent())
            }
            .description
        }
        // An encrypted .p12 and no password: say which setting is missing, not OpenSSL's "mac verify failure".
        #expect(try startError(["--apns-cert-file", certificates.clientP12]).contains("RINGER_APNS_CERT_PASSWORD"))
        // A PEM certificate without its key: point at --apns-cert-key-file.
        #expect(try startError(["--apns-cert-file", certificates.clientCertificate]).contains("--apns-cert-key-file"))
        // The key of another certificate: the key file is the one to fix.
        let mismatch = try startError([
            "--apns-cert-file", certificates.clientCertificate, "--apns-cert-key-file", certificates.serverKey,
        ])
        #expect(mismatch.hasPrefix("--apns-cert-key-file \(certificates.serverKey)"))
    }

    @Test func mediaTokenIsAcceptedByLiveKitsVerifier() async throws {
        try await APITests.withServer { http in
            let alice = try await APITests.token(http, "alice")
            let bob = try await APITests.token(http, "bob", name: "Bob")
            try await APITests.registerPhone(http, token: bob, device: "bob-iphone")
            let call = try (try await http.send("POST", "/v1/calls", token: alice, json: #"{"callee":"bob"}"#)).decode(
                Call.self)
            let accepted = try
                (try await http.send(
                    "POST", "/v1/calls/\(call.callID)/accept", token: bob,
                    json: #"{"device_id":"bob-iphone"}"#)).decode(AcceptResponse.self)
            try await PeerScripts.run(
                "verify_livekit_token.py", [accepted.media.token, "devkey", "secret", "bob", call.callID])
            let media = try (try await http.send("GET", "/v1/calls/\(call.callID)/media", token: alice)).decode(
                MediaSession.self)
            try await PeerScripts.run(
                "verify_livekit_token.py", [media.token, "devkey", "secret", "alice", call.callID])
            // A wrong secret must make LiveKit refuse it, or the check above proves nothing.
            await #expect(throws: (any Error).self) {
                try await PeerScripts.run(
                    "verify_livekit_token.py", [media.token, "devkey", "not-the-secret", "alice", call.callID])
            }
        }
    }
}
