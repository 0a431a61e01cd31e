import Foundation
import HTTP2Client
import JWT
import RingerSandbox
import RingerTestSupport
import Testing

/// The control routes under `/sandbox/` that tools in other processes use: devices, service accounts,
/// messages, maintenance windows, statistics; on both ports.
@Suite(.serialized) struct FCMSandboxControlTests {
    @Test func devicesAreAddedMovedAndDeletedOverHTTP() async throws {
        try await FCMSandboxFixture.with { fixture in
            let port = try #require(fixture.ports.http1)
            let created = try await fixture.control(
                "POST", "/sandbox/devices",
                json: """
                    {"token": "abc:APA91b-x_y", "project_id": "ringer-dev", "reachability": "dozing"}
                    """, port: port)
            #expect(created.status == 201)
            #expect(fixture.sandbox.reachability(token: "abc:APA91b-x_y") == .dozing)
            #expect(
                try await fixture.control(
                    "POST", "/sandbox/devices/abc:APA91b-x_y/reachability",
                    json: #"{"reachability": "offline"}"#
                ).status == 204)
            #expect(fixture.sandbox.reachability(token: "abc:APA91b-x_y") == .offline)
            #expect(try await fixture.control("DELETE", "/sandbox/devices/abc:APA91b-x_y").status == 204)
            let accessToken = try await fixture.accessToken()
            let gone = try await fixture.send(FCMSandboxFixture.message(to: "abc:APA91b-x_y"), accessToken: accessToken)
            #expect(FCMSandboxFixture.fcmErrorCode(gone.body) == "UNREGISTERED")
            for (method, path, body) in [
                ("POST", "/sandbox/devices", #"{"token": "x"}"#),
                ("POST", "/sandbox/devices", #"{"token": "a b", "project_id": "p"}"#),
                ("POST", "/sandbox/devices", #"{"token": "t", "project_id": "p", "reachability": "asleep"}"#),
                ("POST", "/sandbox/devices/nobody/reachability", #"{"reachability": "online"}"#),
                ("DELETE", "/sandbox/devices/nobody", ""),
                ("GET", "/sandbox/nothing", ""),
            ] {
                let answer = try await fixture.control(method, path, json: body.isEmpty ? nil : body)
                #expect([400, 404].contains(answer.status), "\(method) \(path) \(body)")
            }
        }
    }

    @Test func serviceAccountsAreTrustedFromAFileOrAPublicKey() async throws {
        try await FCMSandboxFixture.with { fixture in
            let file = try FCMSandboxServiceAccountFile.make(projectID: "second-project", tokenURI: fixture.tokenURI)
            let added = try await fixture.control(
                "POST", "/sandbox/service-accounts", json: String(decoding: file, as: UTF8.self))
            #expect(added.status == 201)
            let key = try JWTSigningKey.generateRSA()
            let byKey = try await fixture.control(
                "POST", "/sandbox/service-accounts",
                json: """
                    {"client_email": "third@p.iam.gserviceaccount.com", "private_key_id": "k3",
                     "public_key_pem": \(String(decoding: try JSONSerialization.data(withJSONObject: try key.publicKeyPEM(), options: .fragmentsAllowed), as: UTF8.self)),
                     "project_id": "third-project"}
                    """)
            #expect(byKey.status == 201)
            let refused = try await fixture.control(
                "POST", "/sandbox/service-accounts", json: #"{"type": "service_account"}"#)
            #expect(refused.status == 400 && refused.body.contains("client_email"))
            #expect(
                try await fixture.control("POST", "/sandbox/service-accounts", json: #"{"client_email": "x"}"#).status
                    == 400)
        }
    }

    @Test func messagesAndStatisticsAreListed() async throws {
        try await FCMSandboxFixture.with { fixture in
            fixture.sandbox.register(
                FCMSandboxDevice(token: "p", projectID: FCMSandboxFixture.project, reachability: .dozing))
            let accessToken = try await fixture.accessToken()
            _ = try await fixture.send(
                FCMSandboxFixture.message(to: "p", name: "n", priority: "NORMAL", ttl: "5s"), accessToken: accessToken)
            _ = try await fixture.send(#"{"message": {"topic": "news", "data": {"a": "b"}}}"#, accessToken: accessToken)
            let listed = try await fixture.control("GET", "/sandbox/messages")
            var entries = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.body.utf8)) as? [[String: Any]])
            #expect(entries.count == 1)
            #expect(entries.first?["state"] as? String == "stored" && entries.first?["priority"] as? String == "NORMAL")
            #expect(entries.first?["ttl"] as? Double == 5 && entries.first?["token"] as? String == "p")
            fixture.advance(6)
            entries = try #require(
                try JSONSerialization.jsonObject(
                    with: Data(try await fixture.control("GET", "/sandbox/messages").body.utf8)) as? [[String: Any]])
            #expect(entries.first?["state"] as? String == "expired")
            let stats = FCMSandboxFixture.object(Array(try await fixture.control("GET", "/sandbox/stats").body.utf8))
            #expect(stats["topic_messages"] as? Int == 1 && stats["expired_messages"] as? Int == 1)
            #expect(stats["token_requests"] as? Int == 1 && stats["access_tokens_issued"] as? Int == 1)
        }
    }

    @Test func aPollerReadsOnlyTheMessagesAfterItsPosition() async throws {
        try await FCMSandboxFixture.with { fixture in
            fixture.sandbox.register(FCMSandboxDevice(token: "p", projectID: FCMSandboxFixture.project))
            let accessToken = try await fixture.accessToken()
            for name in ["first", "second", "third"] {
                _ = try await fixture.send(
                    FCMSandboxFixture.message(to: "p", name: name, priority: "HIGH", ttl: "5s"),
                    accessToken: accessToken)
            }
            func listed(_ query: String) async throws -> [[String: Any]] {
                let answer = try await fixture.control("GET", "/sandbox/messages" + query)
                return try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [[String: Any]])
            }
            let all = try await listed("")
            #expect(all.count == 3)
            func names(_ entries: [[String: Any]]) -> [String] {
                entries.compactMap { ($0["data"] as? [String: String])?["n"] }
            }
            #expect(names(all) == ["first", "second", "third"])
            #expect(names(try await listed("?since=1")) == ["second", "third"])
            #expect(try await listed("?since=3").isEmpty)
            #expect(try await listed("?since=99").isEmpty)
            #expect(all.allSatisfy { $0["accepted_at"] as? Int != nil })
            #expect(try await fixture.control("GET", "/sandbox/messages?since=-1").status == 400)
            #expect(try await fixture.control("GET", "/sandbox/messages?since=x").status == 400)
        }
    }
}
