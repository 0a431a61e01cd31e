import Foundation
import HTTP2Client
import RingerSandbox
import RingerTestSupport
import Testing

/// Google's own client libraries (PyPI, unmodified) against the sandbox: google-auth's service-account refresh
/// gets an access token, and firebase-admin gets a message name or raises its own exception for each FCM error
/// code, which it can only do if the sandbox's answers are faithful.
@Suite(.serialized) struct FCMSandboxIndependentClientTests {
    private static func environment(_ fixture: FCMSandboxFixture) -> [String] {
        ["REQUESTS_CA_BUNDLE=\(fixture.caFile)", "SSL_CERT_FILE=\(fixture.caFile)"]
    }

    private static func lines(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func googleAuthRefreshesAnAccessTokenFromTheSandbox() async throws {
        try await FCMSandboxFixture.with { fixture in
            fixture.sandbox.register(FCMSandboxDevice(token: "phone-1", projectID: FCMSandboxFixture.project))
            let outcome = try await ChildProcess.check(
                Self.environment(fixture) + [
                    "python3", PeerScripts.path("fcm_google_auth_peer.py"),
                    "--service-account", fixture.serviceAccountFile.path,
                ],
                in: PeerScripts.directory)
            let result = try #require(try Self.lines(outcome.standardOutput).first)
            #expect(result["error"] == nil, "\(result)")
            #expect(result["valid"] as? Bool == true)
            #expect((3500...3600).contains(result["expires_in"] as? Double ?? 0))
            // The token google-auth holds is one the sandbox issued: a send with it is accepted.
            let token = try #require(result["token"] as? String)
            #expect(try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: token).status == 200)
            #expect(fixture.sandbox.statistics.accessTokensIssued == 1)
        }
    }

    @Test func googleAuthSeesTheSandboxRefuseAGrantForAnUnknownAccount() async throws {
        try await FCMSandboxFixture.with { fixture in
            // A second throw-away account the sandbox was never told about.
            let stranger = fixture.serviceAccountFile.deletingLastPathComponent().appendingPathComponent(
                "stranger.json")
            try FCMSandboxServiceAccountFile.make(
                projectID: "ringer-dev", clientEmail: "stranger@ringer-dev.iam.gserviceaccount.com",
                tokenURI: fixture.tokenURI
            ).write(to: stranger)
            let outcome = try await ChildProcess.check(
                Self.environment(fixture) + [
                    "python3", PeerScripts.path("fcm_google_auth_peer.py"), "--service-account", stranger.path,
                ],
                in: PeerScripts.directory)
            let result = try #require(try Self.lines(outcome.standardOutput).first)
            let error = try #require(result["error"] as? String)
            #expect(error.contains("invalid_grant") && error.contains("account not found"))
        }
    }

    @Test func firebaseAdminGetsNamesAndItsOwnExceptionsForEachErrorCode() async throws {
        try await FCMSandboxFixture.with { fixture in
            for token in ["phone-1", "gone", "quota"] {
                fixture.sandbox.register(FCMSandboxDevice(token: token, projectID: FCMSandboxFixture.project))
            }
            fixture.sandbox.register(FCMSandboxDevice(token: "foreign", projectID: "other-project"))
            fixture.sandbox.unregister(token: "gone", at: Date())
            // firebase-admin (urllib3) retries a 429 that carries Retry-After, after that many seconds: keep it short.
            fixture.sandbox.inject(
                FCMSandboxFault(.answer(.quotaExceeded, retryAfter: 1), registrationToken: "quota", count: nil))
            let outcome = try await ChildProcess.check(
                Self.environment(fixture) + [
                    "python3", PeerScripts.path("fcm_firebase_admin_peer.py"),
                    "--service-account", fixture.serviceAccountFile.path,
                    "--http1-port", String(try #require(fixture.ports.http1)),
                    "--http2-port", String(fixture.ports.http2), "--token", "phone-1",
                    "--unregistered-token", "gone", "--foreign-token", "foreign",
                    "--quota-token", "quota",
                ],
                in: PeerScripts.directory, timeout: 120)
            let results = Dictionary(
                try Self.lines(outcome.standardOutput).map { ($0["case"] as? String ?? "", $0) },
                uniquingKeysWith: { $1 })
            #expect((results["accepted"]?["name"] as? String)?.hasPrefix("projects/ringer-dev/messages/0:") == true)
            #expect(results["dry_run"]?["name"] as? String == "projects/ringer-dev/messages/fake_message_id")
            let expected: [String: (exception: String, code: String, status: Int)] = [
                "unregistered": ("UnregisteredError", "NOT_FOUND", 404),
                "sender_id_mismatch": ("SenderIdMismatchError", "PERMISSION_DENIED", 403),
                "quota_exceeded": ("QuotaExceededError", "RESOURCE_EXHAUSTED", 429),
                "unknown_token": ("InvalidArgumentError", "INVALID_ARGUMENT", 400),
                "wrong_package": ("InvalidArgumentError", "INVALID_ARGUMENT", 400),
                "reserved_key": ("InvalidArgumentError", "INVALID_ARGUMENT", 400),
            ]
            for (name, want) in expected {
                let got = results[name]
                #expect(got?["exception"] as? String == want.exception, "\(name): \(String(describing: got))")
                #expect(got?["code"] as? String == want.code, "\(name)")
                #expect(got?["http_status"] as? Int == want.status, "\(name)")
            }
            #expect(results["unknown_token"]?["is_invalid_argument"] as? Bool == true)
            // send_each_async over HTTP/2 (httpx + h2) to the HTTP/2 port.
            #expect((results["async_0"]?["name"] as? String)?.hasPrefix("projects/ringer-dev/messages/") == true)
            #expect(results["async_1"]?["exception"] as? String == "UnregisteredError")
            // What firebase-admin sent: a HIGH data message with ttl 30 s and its collapse key.
            let ringing = fixture.sandbox.acceptedMessages
            #expect(ringing.count == 2)
            #expect(ringing.allSatisfy { $0.priority == .high && $0.ttl == 30 && $0.collapseKey == "call-1" })
            #expect(ringing.first?.data["ringer"]?.contains("call.incoming") == true)
            #expect(fixture.sandbox.statistics.http2Connections >= 1)
            // It honoured Retry-After: the quota answer was asked for more than once.
            #expect(fixture.sandbox.statistics.faultedRequests > 1)
        }
    }

    @Test func aPhoneWrittenWithWebsocketsFromTheDocumentedFramesGetsMessagesAndAcknowledgesThem() async throws {
        try await FCMSandboxFixture.with { fixture in
            fixture.sandbox.register(
                FCMSandboxDevice(token: "py-phone", projectID: FCMSandboxFixture.project, reachability: .offline))
            let accessToken = try await fixture.accessToken()
            // One message waits for the phone; two more are sent once it is connected.
            let waiting = try await fixture.send(
                #"{"message": {"token": "py-phone", "data": {"want": "silent"}, "android": {"priority": "HIGH"}}}"#,
                accessToken: accessToken)
            #expect(waiting.status == 200)
            let port = try #require(fixture.ports.http1)
            let peer = Task {
                try await ChildProcess.check(
                    [
                        "python3", PeerScripts.path("fcm_ws_phone_peer.py"), "--port", String(port),
                        "--token", "py-phone", "--ca", fixture.caFile, "--messages", "3",
                    ],
                    in: PeerScripts.directory, timeout: 90)
            }
            #expect(await eventually(within: 30) { fixture.sandbox.reachability(token: "py-phone") == .online })
            for want in ["userVisible", "notDelivered"] {
                let response = try await fixture.send(
                    #"{"message": {"token": "py-phone", "data": {"want": "\#(want)"}, "android": {"priority": "HIGH"}}}"#,
                    accessToken: accessToken)
                #expect(response.status == 200)
            }
            let output = try await peer.value.standardOutput
            let result = try #require(try Self.lines(output).first)
            #expect(result["error"] == nil, "\(result)")
            let frames = try #require(result["frames"] as? [[String: Any]])
            let messages = frames.filter { $0["type"] as? String == "message" }
            #expect(
                messages.compactMap { ($0["data"] as? [String: String])?["want"] } == [
                    "silent", "userVisible", "notDelivered",
                ])
            #expect(messages.allSatisfy { $0["priority"] as? String == "HIGH" && $0["token"] as? String == "py-phone" })
            #expect(frames.last?["type"] as? String == "error")
            #expect(await eventually { fixture.sandbox.deliveriesUnderway == 0 })
            let states = fixture.sandbox.acceptedMessages.map { fixture.sandbox.deliveryState(ofMessage: $0.name) }
            #expect(
                states == [
                    .delivered(.silent), .delivered(.userVisible),
                    .delivered(.notDelivered("the app is force-stopped")),
                ])
            // Once it left, FCM counts the phone offline.
            #expect(await eventually { fixture.sandbox.reachability(token: "py-phone") == .offline })
        }
    }
}
