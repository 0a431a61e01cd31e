import Foundation
import HTTP2Client
import RingerSandbox
import RingerTestSupport
import Testing

/// The FCM sandbox over its sockets: the token endpoint and `messages:send` on both ports, answered as Google
/// answers, and accepted messages recorded.
@Suite(.serialized) struct FCMSandboxServerTests {
    static let grantType = "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"

    @Test func aGoodGrantGetsABearerTokenWhoseLifetimeCountsDown() async throws {
        try await FCMSandboxFixture.with { fixture in
            let form = "grant_type=\(Self.grantType)&assertion=\(try fixture.assertion())"
            let (status, json) = try await fixture.postToken(form)
            #expect(status == 200)
            let token = try #require(json["access_token"] as? String)
            #expect(token.hasPrefix("ya29."))
            #expect(json["token_type"] as? String == "Bearer")
            let expiresIn = try #require(json["expires_in"] as? Int)
            #expect((3590...3599).contains(expiresIn))
            // The same assertion a little later: the same token, with less time left.
            try await Task.sleep(for: .milliseconds(1100))
            let (_, again) = try await fixture.postToken(form, port: fixture.ports.http1)
            #expect(again["access_token"] as? String == token)
            #expect(try #require(again["expires_in"] as? Int) < expiresIn)
            #expect(fixture.sandbox.statistics.accessTokensIssued == 2)
        }
    }

    @Test func aRefusedGrantGetsGooglesInvalidGrantOnBothPorts() async throws {
        try await FCMSandboxFixture.with { fixture in
            for port in [fixture.ports.http2, try #require(fixture.ports.http1)] {
                let (status, json) = try await fixture.postToken(
                    "grant_type=\(Self.grantType)&assertion=\(try fixture.assertion(lifetime: 7200))", port: port)
                #expect(status == 400)
                #expect(json["error"] as? String == "invalid_grant")
                #expect(
                    (json["error_description"] as? String)?.hasPrefix("Invalid JWT: Token must be a short-lived token")
                        == true)
                let (badType, typeJSON) = try await fixture.postToken("grant_type=password&assertion=x", port: port)
                #expect(badType == 400 && typeJSON["error"] as? String == "unsupported_grant_type")
            }
        }
    }

    @Test func anAcceptedSendAnswersItsNameAndRecordsTheMessage() async throws {
        try await FCMSandboxFixture.with { fixture in
            fixture.sandbox.register(FCMSandboxDevice(token: "phone-1", projectID: FCMSandboxFixture.project))
            let accessToken = try await fixture.accessToken()
            for port in [fixture.ports.http2, try #require(fixture.ports.http1)] {
                let response = try await fixture.send(
                    FCMSandboxFixture.message(to: "phone-1", name: "p\(port)"),
                    accessToken: accessToken, port: port)
                #expect(response.status == 200)
                let name = try #require(FCMSandboxFixture.object(response.body)["name"] as? String)
                #expect(name.hasPrefix("projects/ringer-dev/messages/0:"))
                #expect(fixture.sandbox.deliveryState(ofMessage: name) == .delivered(nil))
            }
            let recorded = fixture.sandbox.acceptedMessages
            #expect(recorded.map { $0.data["n"] } == ["p\(fixture.ports.http2)", "p\(fixture.ports.http1!)"])
            #expect(recorded.first?.priority == .high && recorded.first?.ttl == 60)
            #expect(recorded.first?.acceptedAt == fixture.scenarioNow)
        }
    }

    @Test func errorsComeInGooglesBodyWithTheirHTTPStatus() async throws {
        try await FCMSandboxFixture.with { fixture in
            fixture.sandbox.register(FCMSandboxDevice(token: "phone-1", projectID: FCMSandboxFixture.project))
            fixture.sandbox.register(FCMSandboxDevice(token: "foreign", projectID: "other-project"))
            fixture.sandbox.register(FCMSandboxDevice(token: "gone", projectID: FCMSandboxFixture.project))
            fixture.sandbox.unregister(token: "gone", at: Date())
            let accessToken = try await fixture.accessToken()
            let unknown = try await fixture.send(FCMSandboxFixture.message(to: "nobody"), accessToken: accessToken)
            #expect(unknown.status == 400 && FCMSandboxFixture.fcmErrorCode(unknown.body) == "INVALID_ARGUMENT")
            let foreign = try await fixture.send(FCMSandboxFixture.message(to: "foreign"), accessToken: accessToken)
            #expect(foreign.status == 403 && FCMSandboxFixture.fcmErrorCode(foreign.body) == "SENDER_ID_MISMATCH")
            let gone = try await fixture.send(FCMSandboxFixture.message(to: "gone"), accessToken: accessToken)
            #expect(gone.status == 404 && FCMSandboxFixture.fcmErrorCode(gone.body) == "UNREGISTERED")
            #expect(gone.headers["content-type"]?.hasPrefix("application/json") == true)
            let forged = try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: "ya29.forged")
            #expect(forged.status == 401 && FCMSandboxFixture.fcmErrorCode(forged.body) == nil)
            let error = try #require(FCMSandboxFixture.object(forged.body)["error"] as? [String: Any])
            #expect(error["status"] as? String == "UNAUTHENTICATED" && error["code"] as? Int == 401)
            let otherProject = try await fixture.send(
                FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken,
                project: "other-project")
            #expect(otherProject.status == 403 && FCMSandboxFixture.fcmErrorCode(otherProject.body) == nil)
            let dryRun = try await fixture.send(
                #"{"validate_only": true, "message": {"token": "phone-1"}}"#, accessToken: accessToken)
            #expect(
                FCMSandboxFixture.object(dryRun.body)["name"] as? String
                    == "projects/ringer-dev/messages/fake_message_id")
            #expect(fixture.sandbox.acceptedMessages.isEmpty)
            #expect(fixture.sandbox.statistics.sendRequests == 6)
        }
    }

    @Test func revokedAccessTokensAreUnauthenticatedUntilANewGrant() async throws {
        try await FCMSandboxFixture.with { fixture in
            fixture.sandbox.register(FCMSandboxDevice(token: "phone-1", projectID: FCMSandboxFixture.project))
            let accessToken = try await fixture.accessToken()
            #expect(try await fixture.control("DELETE", "/sandbox/access-tokens").status == 204)
            #expect(
                try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: accessToken).status == 401
            )
            let fresh = try await fixture.accessToken()
            #expect(try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: fresh).status == 200)
        }
    }

    @Test func aTokenWithoutAMessagingScopeIsRefusedAtSend() async throws {
        try await FCMSandboxFixture.with { fixture in
            fixture.sandbox.register(FCMSandboxDevice(token: "phone-1", projectID: FCMSandboxFixture.project))
            let narrow = try await fixture.accessToken(scope: "https://www.googleapis.com/auth/userinfo.email")
            let response = try await fixture.send(FCMSandboxFixture.message(to: "phone-1"), accessToken: narrow)
            #expect(response.status == 403)
            let error = try #require(FCMSandboxFixture.object(response.body)["error"] as? [String: Any])
            #expect(error["message"] as? String == "Request had insufficient authentication scopes.")
        }
    }
}
