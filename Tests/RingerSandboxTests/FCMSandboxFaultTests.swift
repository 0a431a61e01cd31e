import Foundation
import HTTP2Client
import RingerSandbox
import RingerTestSupport
import Testing

/// Fault injection over the control routes, as a tool in another process would use it: FCM's error answers
/// with `Retry-After`, delays, silence, cut connections and revoked tokens, per token or for all, counted or
/// until cleared.
@Suite(.serialized) struct FCMSandboxFaultTests {
    private static func withPhone(_ body: (FCMSandboxFixture, String) async throws -> Void) async throws {
        try await FCMSandboxFixture.with { fixture in
            fixture.sandbox.register(FCMSandboxDevice(token: "phone-1", projectID: FCMSandboxFixture.project))
            fixture.sandbox.register(FCMSandboxDevice(token: "phone-2", projectID: FCMSandboxFixture.project))
            try await body(fixture, try await fixture.accessToken())
        }
    }

    @Test func anAnswerFaultForOneTokenWithACountGivesThatCodeAndRetryAfterThenNormalAnswers() async throws {
        try await Self.withPhone { fixture, accessToken in
            let created = try await fixture.control(
                "POST", "/sandbox/faults",
                json: """
                    {"kind": "answer", "code": "QUOTA_EXCEEDED", "retry_after": 30, "token": "phone-1", "count": 2}
                    """)
            #expect(created.status == 201)
            let listed = FCMSandboxFixture.object(Array(try await fixture.control("GET", "/sandbox/faults").body.utf8))
            #expect((listed["faults"] as? [[String: Any]])?.first?["count"] as? Int == 2)
            #expect(
                try await fixture.send(FCMSandboxFixture.message(to: "phone-2"), accessToken: accessToken).status == 200
            )
            for _ in 0..<2 {
                let response = try await fixture.send(
                    FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken)
                #expect(response.status == 429)
                #expect(response.headers["retry-after"] == "30")
                #expect(FCMSandboxFixture.fcmErrorCode(response.body) == "QUOTA_EXCEEDED")
                let error = FCMSandboxFixture.object(response.body)["error"] as? [String: Any]
                #expect(error?["status"] as? String == "RESOURCE_EXHAUSTED")
            }
            #expect(
                try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken).status == 200
            )
            #expect(fixture.sandbox.activeFaults.isEmpty)
            let stats = FCMSandboxFixture.object(Array(try await fixture.control("GET", "/sandbox/stats").body.utf8))
            #expect(stats["send_requests"] as? Int == 4 && stats["faulted_requests"] as? Int == 2)
            #expect(stats["accepted_messages"] as? Int == 2)
        }
    }

    @Test func aPersistentGlobalFaultLastsUntilCleared() async throws {
        try await Self.withPhone { fixture, accessToken in
            #expect(
                try await fixture.control(
                    "POST", "/sandbox/faults",
                    json: #"{"kind": "answer", "code": "UNAVAILABLE", "persistent": true}"#
                ).status == 201)
            for token in ["phone-1", "phone-2", "phone-1"] {
                let response = try await fixture.send(FCMSandboxFixture.message(to: token), accessToken: accessToken)
                #expect(response.status == 503 && FCMSandboxFixture.fcmErrorCode(response.body) == "UNAVAILABLE")
                #expect(response.headers["retry-after"] == nil)
            }
            #expect(try await fixture.control("DELETE", "/sandbox/faults").status == 204)
            #expect(
                try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken).status == 200
            )
        }
    }

    @Test func anInvalidArgumentFaultMayNameTheTokenField() async throws {
        try await Self.withPhone { fixture, accessToken in
            _ = try await fixture.control(
                "POST", "/sandbox/faults",
                json: #"{"kind": "answer", "code": "INVALID_ARGUMENT", "field": "message.token"}"#)
            let response = try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken)
            #expect(response.status == 400)
            let details =
                (FCMSandboxFixture.object(response.body)["error"] as? [String: Any])?["details"] as? [[String: Any]]
            let violations = details?.first { $0["@type"] as? String == "type.googleapis.com/google.rpc.BadRequest" }?[
                "fieldViolations"]
            #expect((violations as? [[String: String]])?.first?["field"] == "message.token")
        }
    }

    @Test func aDelayFaultAnswersLateButNormally() async throws {
        try await Self.withPhone { fixture, accessToken in
            fixture.sandbox.inject(FCMSandboxFault(.delay(seconds: 1)))
            let started = ContinuousClock.now
            let response = try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken)
            #expect(response.status == 200)
            #expect(ContinuousClock.now - started >= .seconds(1))
            #expect(fixture.sandbox.acceptedMessages.count == 1)
        }
    }

    @Test func aNeverAnswerFaultLeavesTheClientToTimeOutAndAcceptsNothing() async throws {
        try await Self.withPhone { fixture, accessToken in
            _ = try await fixture.control(
                "POST", "/sandbox/faults", json: #"{"kind": "never_answer", "token": "phone-1"}"#)
            let error = await #expect(throws: HTTP2ClientError.self) {
                try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken, timeout: 2)
            }
            #expect(error == .timedOut)
            #expect(fixture.sandbox.acceptedMessages.isEmpty)
            #expect(
                try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken).status == 200
            )
        }
    }

    @Test func aCloseFaultCutsTheConnectionOnTheHTTP2Port() async throws {
        try await Self.withPhone { fixture, accessToken in
            fixture.sandbox.inject(FCMSandboxFault(.closeConnection, registrationToken: "phone-1"))
            let error = await #expect(throws: HTTP2ClientError.self) {
                try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken)
            }
            #expect(error?.isTransport == true)
            #expect(fixture.sandbox.acceptedMessages.isEmpty)
            let after = try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken)
            #expect(after.status == 200 && after.newConnections == 1)
        }
    }

    @Test func aCloseFaultCutsTheConnectionOnTheHTTP1Port() async throws {
        try await Self.withPhone { fixture, accessToken in
            let port = try #require(fixture.ports.http1)
            fixture.sandbox.inject(FCMSandboxFault(.closeConnection))
            let curl = { () async throws -> ChildProcess.Outcome in
                try await ChildProcess.run([
                    "curl", "--http1.1", "-sS", "--cacert", fixture.caFile, "-o", "/dev/null",
                    "-w", "%{http_code}", "-H", "authorization: Bearer \(accessToken)",
                    "-H", "content-type: application/json",
                    "--data", FCMSandboxFixture.message(to: "phone-1"),
                    "https://localhost:\(port)/v1/projects/\(FCMSandboxFixture.project)/messages:send",
                ])
            }
            let cut = try await curl()
            // 52: empty reply from server; 56: failure receiving (the TLS connection closed under it).
            #expect([52, 56].contains(cut.status), "\(cut.status) \(cut.standardError)")
            #expect(fixture.sandbox.acceptedMessages.isEmpty)
            let after = try await curl()
            #expect(after.status == 0 && after.standardOutput == "200")
        }
    }

    @Test func aRevokedTokenAnswersUnregistered() async throws {
        try await Self.withPhone { fixture, accessToken in
            #expect(
                try await fixture.control("POST", "/sandbox/faults", json: #"{"kind": "revoke", "token": "phone-1"}"#)
                    .status == 201)
            let response = try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken)
            #expect(response.status == 404 && FCMSandboxFixture.fcmErrorCode(response.body) == "UNREGISTERED")
            fixture.sandbox.revoke(token: "phone-2")
            #expect(
                FCMSandboxFixture.fcmErrorCode(
                    try await fixture.send(
                        FCMSandboxFixture.message(to: "phone-2"),
                        accessToken: accessToken
                    ).body) == "UNREGISTERED")
        }
    }

    @Test func tokenEndpointFaultsLeaveSendsAlone() async throws {
        try await Self.withPhone { fixture, accessToken in
            _ = try await fixture.control(
                "POST", "/sandbox/faults", json: #"{"kind": "answer", "code": "UNAVAILABLE", "endpoint": "token"}"#)
            let form =
                "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(try fixture.assertion())"
            #expect(
                try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken).status == 200
            )
            #expect(try await fixture.postToken(form).status == 503)
            #expect(try await fixture.postToken(form).status == 200)
            fixture.sandbox.inject(FCMSandboxFault(.neverAnswer, endpoint: .token))
            await #expect(throws: HTTP2ClientError.timedOut) {
                try await fixture.http.send(
                    HTTP2Request(
                        url: "https://localhost:\(fixture.ports.http2)/token",
                        body: Array(form.utf8), timeout: 1.5))
            }
        }
    }

    @Test func badFaultBodiesAreRefused() async throws {
        try await Self.withPhone { fixture, _ in
            for json in [
                #"{"kind": "explode"}"#, #"{"kind": "answer", "code": "NOT_A_CODE"}"#, #"{"kind": "answer"}"#,
                #"{"kind": "delay", "seconds": -1}"#, #"{"kind": "answer", "code": "UNAVAILABLE", "retry_after": -5}"#,
                #"{"kind": "answer", "code": "UNAVAILABLE", "field": "message.token"}"#,
                #"{"kind": "revoke", "token": "nobody"}"#, "not json",
            ] {
                let answer = try await fixture.control("POST", "/sandbox/faults", json: json)
                #expect(answer.status == 400, "\(json)")
            }
            #expect(fixture.sandbox.activeFaults.isEmpty)
        }
    }
}
