import FCM
import Foundation
import HTTP2Client
import RingerTestSupport
import Testing

/// The real ``FCMClient`` (HTTP2Client on nghttp2 underneath) against the independent FCM peer
/// (Tests/Peers/fcm_peer.py): PyJWT verifies every grant, the peer checks every `messages:send` as FCM
/// does and answers Google's bodies, so both the request shape and the reading of each answer are tested
/// against code that is not Ringer's.
@Suite struct FCMClientTests {
    static let ringing = FCMMessage(
        data: ["ringer": #"{"type":"call.incoming","call_id":"c1"}"#, "call_id": "c1"],
        priority: .high, ttl: .seconds(30), collapseKey: "c1",
        restrictedPackageName: "com.example.app")

    @Test func ringingMessageReachesFCMInTheShapeGoogleExpects() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            let (response, attempts) = try await client.send(Self.ringing, to: "ok-device1")
            #expect(response.status == 200)
            #expect(response.name?.hasPrefix("projects/ringer-test/messages/") == true)
            #expect(FCMResponseAction.forResponse(response) == .accepted)
            #expect(attempts == 1)
            let sends = try await peer.sends()
            try #require(sends.count == 1)
            let send = sends[0]
            #expect(send.problems.isEmpty, "\(send.problems)")
            #expect(send.httpVersion == "2")
            #expect(send.path == "/v1/projects/ringer-test/messages:send")
            #expect(send.header("content-type")?.hasPrefix("application/json") == true)
            let message = try #require(send.json?["message"] as? [String: Any])
            #expect(message["token"] as? String == "ok-device1")
            #expect(message["data"] as? [String: String] == Self.ringing.data)
            #expect(message["notification"] == nil)
            let android = try #require(message["android"] as? [String: Any])
            #expect(android["priority"] as? String == "HIGH")
            #expect(android["ttl"] as? String == "30s")
            #expect(android["collapse_key"] as? String == "c1")
            #expect(android["restricted_package_name"] as? String == "com.example.app")
        }
    }

    @Test func grantIsTheRS256JWTGoogleVerifies() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            _ = try await client.send(Self.ringing, to: "ok-device1")
            let grants = try await peer.grants()
            try #require(grants.count == 1)
            let grant = grants[0]
            let account = try peer.account()
            // The peer verified the signature with PyJWT against the account's public key, and answered 200.
            #expect(grant.status == 200)
            #expect(grant.problems.isEmpty, "\(grant.problems)")
            #expect(grant.header("content-type") == "application/x-www-form-urlencoded")
            #expect(grant.body.hasPrefix("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="))
            #expect(grant.jwtHeader == ["alg": "RS256", "typ": "JWT", "kid": account.privateKeyID])
            let claims = try #require(grant.claims)
            #expect(claims.iss == account.clientEmail)
            #expect(claims.scope == FCM.messagingScope)
            #expect(claims.aud == account.tokenURI)
            let iat = try #require(claims.iat)
            #expect(abs(Double(iat) - Date().timeIntervalSince1970) < 120)
            #expect(claims.exp == iat + 3600)
            // The message carried the token the peer issued.
            let sends = try await peer.sends()
            #expect(sends.first?.header("authorization")?.hasPrefix("Bearer ya29.peer-") == true)
        }
    }

    @Test func concurrentSendsShareOneTokenGrant() async throws {
        try await FCMPeer.with { peer in
            try await peer.configure(["token_delay_ms": 400])
            let client = try peer.client()
            defer { client.shutdown() }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<40 {
                    group.addTask { try await client.send(Self.ringing, to: "ok-device\(index)").response.status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 40))
            #expect(try await peer.grants().count == 1)
            let bearers = Set(try await peer.sends().compactMap { $0.header("authorization") })
            #expect(bearers.count == 1)
            #expect(client.accessTokenSource(for: "ringer-test")?.grantCount == 1)
        }
    }

    @Test func laterSendsReuseTheCachedAccessToken() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            for index in 0..<3 { _ = try await client.send(Self.ringing, to: "ok-\(index)") }
            #expect(try await peer.grants().count == 1)
            #expect(try await peer.sends().count == 3)
        }
    }

    @Test func unauthenticatedAnswerRefreshesTheAccessTokenOnceAndRetries() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            _ = try await client.send(Self.ringing, to: "ok-warm-up")
            // Google revokes the cached token: the next message gets 401 UNAUTHENTICATED (no FcmError detail).
            try await peer.configure(["revoke": true])
            let (response, attempts) = try await client.send(Self.ringing, to: "ok-after-revoke")
            #expect(response.status == 200)
            #expect(attempts == 2)
            let grants = try await peer.grants()
            #expect(grants.count == 2)
            let sends = try await peer.sends()
            #expect(sends.map(\.status) == [200, 401, 200])
            #expect(sends[1].header("authorization") != sends[2].header("authorization"))
        }
    }

    @Test func unauthenticatedOnceTokenSucceedsOnTheRetry() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            let (response, attempts) = try await client.send(Self.ringing, to: "unauthonce-device")
            #expect(response.status == 200)
            #expect(attempts == 2)
            #expect(try await peer.grants().count == 2)
        }
    }

    @Test func persistentUnauthenticatedAnswerIsReturnedAfterOneRefresh() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            let (response, attempts) = try await client.send(Self.ringing, to: "unauthalways-device")
            #expect(response.status == 401)
            #expect(response.error?.status == "UNAUTHENTICATED")
            #expect(response.error?.fcmErrorCode == nil)
            #expect(attempts == 2)
            #expect(FCMResponseAction.forResponse(response) == .configurationError)
            #expect(try await peer.grants().count == 2)
            #expect(try await peer.sends().count == 2)
        }
    }

    @Test func unavailableAnswerCarriesRetryAfter() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            let (response, _) = try await client.send(Self.ringing, to: "unavailable-device")
            #expect(response.status == 503)
            #expect(response.errorCode == .unavailable)
            #expect(response.retryAfter == 7)
            #expect(FCMResponseAction.forResponse(response) == .retry(after: 7))
        }
    }

    @Test func quotaExceededReadsAnHTTPDateRetryAfter() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            let (response, _) = try await client.send(Self.ringing, to: "quota-device")
            #expect(response.status == 429)
            #expect(response.errorCode == .quotaExceeded)
            let seconds = try #require(response.retryAfter)
            #expect((20...31).contains(seconds))
            #expect(FCMResponseAction.forResponse(response).isRetryable)
        }
    }

    @Test func unregisteredAnswerRemovesTheToken() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            let (response, _) = try await client.send(Self.ringing, to: "unregistered-device")
            #expect(response.status == 404)
            #expect(response.errorCode == .unregistered)
            #expect(response.error?.status == "NOT_FOUND")
            #expect(FCMResponseAction.forResponse(response) == .removeToken)
        }
    }

    @Test func invalidArgumentNamingTheTokenRemovesIt() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            let (response, _) = try await client.send(Self.ringing, to: "badtoken-device")
            #expect(response.status == 400)
            #expect(response.errorCode == .invalidArgument)
            #expect(
                response.error?.fieldViolations == [
                    .init(field: "message.token", description: "Invalid registration token")
                ])
            #expect(FCMResponseAction.forResponse(response) == .removeToken)
        }
    }

    @Test func configurationAnswersAreConfigurationErrors() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            let mismatch = try await client.send(Self.ringing, to: "senderid-device").response
            #expect(mismatch.errorCode == .senderIdMismatch)
            #expect(FCMResponseAction.forResponse(mismatch) == .configurationError)
            let disabled = try await client.send(Self.ringing, to: "disabled-device").response
            #expect(disabled.status == 403)
            #expect(disabled.error?.errorInfoReason == "SERVICE_DISABLED")
            #expect(disabled.reason == "SERVICE_DISABLED")
            #expect(FCMResponseAction.forResponse(disabled) == .configurationError)
        }
    }

    @Test func answersThatAreNotJSONOrHaveNoCodeStillYieldAResponse() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            let html = try await client.send(Self.ringing, to: "notjson-device").response
            #expect(html.status == 502)
            #expect(html.error == nil)
            #expect(html.reason == "HTTP 502")
            #expect(FCMResponseAction.forResponse(html) == .retry(after: nil))
            let bare = try await client.send(Self.ringing, to: "nocode-device").response
            #expect(bare.status == 400)
            #expect(bare.errorCode == nil)
            #expect(FCMResponseAction.forResponse(bare) == .invalidRequest)
        }
    }

    @Test func eachProjectSendsWithItsOwnAccountsToken() async throws {
        try await FCMPeer.with(projects: ["project-a", "project-b"]) { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            #expect(client.defaultProjectID == "project-a")
            let a = try await client.send(Self.ringing, to: "ok-a")
            let b = try await client.send(Self.ringing, to: "ok-b", projectID: "project-b")
            #expect(a.response.name?.hasPrefix("projects/project-a/") == true)
            #expect(b.response.name?.hasPrefix("projects/project-b/") == true)
            let grants = try await peer.grants()
            #expect(Set(grants.compactMap { $0.claims?.iss }).count == 2)
            await #expect(throws: FCMClientError.unknownProject) {
                try await client.send(Self.ringing, to: "ok-c", projectID: "project-c")
            }
        }
    }

    @Test func oversizedPayloadIsRefusedBeforeAnythingIsSent() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            let big = FCMMessage(data: ["ringer": String(repeating: "x", count: 4091)])  // 6 + 4091 bytes
            await #expect(throws: FCMClientError.payloadTooLarge) { try await client.send(big, to: "ok-device") }
            await #expect(throws: FCMClientError.invalidRegistrationToken) {
                try await client.send(Self.ringing, to: "bad token with spaces")
            }
            #expect(try await peer.records().isEmpty)
        }
    }

    @Test func passedDeadlineSendsNothing() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            await #expect(throws: FCMClientError.deadlinePassed) {
                try await client.send(Self.ringing, to: "ok-device", deadline: Date().addingTimeInterval(-1))
            }
            #expect(try await peer.records().isEmpty)
        }
    }

    @Test func silentFCMTimesOutWithinTheCallersDeadline() async throws {
        try await FCMPeer.with { peer in
            let client = try peer.client()
            defer { client.shutdown() }
            _ = try await client.send(Self.ringing, to: "ok-warm-up")
            let started = ContinuousClock.now
            do {
                _ = try await client.send(Self.ringing, to: "never-device", deadline: Date().addingTimeInterval(1.5))
                Issue.record("a message without an answer returned")
            } catch let error as FCMClientError {
                #expect(error == .timedOut)
                #expect(error.isRetryable)
                #expect(FCMResponseAction.forFailure(error) == .retry(after: nil))
            }
            // Well before the client's own 20 s request timeout: the caller's 1.5 s deadline cut it short.
            #expect(started.duration(to: .now) < .seconds(15))
        }
    }

    @Test func verifyCredentialsTellsGrantedFromRefused() async throws {
        try await FCMPeer.with { peer in
            let good = try peer.client()
            defer { good.shutdown() }
            let granted = await good.verifyCredentials()
            #expect(granted.count == 1)
            #expect(granted.first?.isGranted == true)
            #expect(granted.first?.lifetime == 3599)
            // The start-up grant's token serves the first message.
            _ = try await good.send(Self.ringing, to: "ok-device")
            #expect(try await peer.grants().count == 1)

            let wrongKey = try FCMServiceAccount(contentsOfFile: peer.accountPath("ringer-test-wrong-key"))
            let bad = try peer.client(accounts: [wrongKey])
            defer { bad.shutdown() }
            let refused = try #require(await bad.verifyCredentials().first)
            #expect(refused.isRefused)
            #expect(!refused.isRetryable)
            #expect(refused.error?.oauthError == "invalid_grant")
            #expect(refused.error?.oauthErrorDescription == "Invalid JWT Signature.")
            #expect(refused.description.contains("Invalid JWT Signature."))
            // Sending with it fails as a configuration error, naming Google's reason.
            do {
                _ = try await bad.send(Self.ringing, to: "ok-device")
                Issue.record("a send with a refused grant succeeded")
            } catch let error as FCMClientError {
                #expect(error == .accessToken)
                #expect(FCMResponseAction.forFailure(error) == .configurationError)
                #expect(error.description.contains("invalid_grant"))
            }

            let stranger = try FCMServiceAccount(contentsOfFile: peer.accountPath("stranger"))
            let unknown = try peer.client(accounts: [stranger])
            defer { unknown.shutdown() }
            let notFound = try #require(await unknown.verifyCredentials().first)
            #expect(notFound.isRefused)
            #expect(notFound.error?.oauthErrorDescription == "Invalid grant: account not found")
        }
    }

    @Test func verifyCredentialsReportsAnUnreachableTokenEndpointAsRetryable() async throws {
        try await FCMPeer.with { peer in
            let closed = try ClosedPort()
            let real = try peer.account()
            let account = try FCMServiceAccount(
                projectID: real.projectID, privateKeyID: real.privateKeyID,
                clientEmail: real.clientEmail,
                tokenURI: "https://localhost:\(closed.port)/token", key: real.key)
            let client = try peer.client(accounts: [account]) { $0.grantTimeout = 5 }
            defer { client.shutdown() }
            let check = try #require(await client.verifyCredentials().first)
            #expect(check.isRetryable)
            #expect(!check.isRefused)
            #expect(check.error == .unreachable)
            do {
                _ = try await client.send(Self.ringing, to: "ok-device")
                Issue.record("a send without a token endpoint succeeded")
            } catch let error as FCMClientError {
                #expect(error.isRetryable)
                #expect(FCMResponseAction.forFailure(error) == .retry(after: nil))
            }
        }
    }

    @Test func loopbackSandboxOverCleartextHTTP2() async throws {
        try await FCMPeer.with(plain: true) { peer in
            let account = try peer.account()
            #expect(account.tokenURI.hasPrefix("http://127.0.0.1:"))
            let client = try peer.client()
            defer { client.shutdown() }
            let (response, _) = try await client.send(Self.ringing, to: "ok-device")
            #expect(response.status == 200)
            #expect(try await peer.records().allSatisfy { $0.httpVersion == "2" })
        }
    }
}
