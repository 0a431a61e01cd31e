import FCM
import Foundation
import HTTP2Client
import RingerTestKit
import RingerTestSupport
import Testing

/// The access-token cache of one service account, against the independent token endpoint of
/// Tests/Peers/fcm_peer.py (PyJWT verifies each grant): reuse until the refresh margin, one grant however many
/// callers, invalidation after a 401 that never throws away a newer token, and each way a grant fails.
/// Token age runs on an injected monotonic clock; the grant's `iat` on the real wall clock unless a test says.
@Suite struct FCMAccessTokenSourceTests {
    /// Runs `body` with a source for the peer's account, its HTTP/2 client and a manual clock.
    static func withSource<T>(
        expiresIn: Int = 3599, account name: String? = nil, tokenDelayMs: Int = 0,
        wallClock: @escaping @Sendable () -> Date = { Date() },
        _ body: (FCMAccessTokenSource, FCMPeer, ManualClock) async throws -> T
    ) async throws -> T {
        try await FCMPeer.with { peer in
            try await peer.configure(["expires_in": expiresIn, "token_delay_ms": tokenDelayMs])
            let client = try peer.grantClient()
            defer { client.shutdown() }
            let clock = ManualClock()
            let account = try name.map { try FCMServiceAccount(contentsOfFile: peer.accountPath($0)) } ?? peer.account()
            let source = FCMAccessTokenSource(
                account: account, client: client, grantTimeout: 20,
                clock: { clock.now }, wallClock: wallClock)
            return try await body(source, peer, clock)
        }
    }

    @Test func refreshMarginIsFiveMinutesOrATenthOfTheLifetime() {
        #expect(FCMAccessTokenSource.refreshMargin(forLifetime: 3599) == 300)
        #expect(FCMAccessTokenSource.refreshMargin(forLifetime: 3000) == 300)
        #expect(FCMAccessTokenSource.refreshMargin(forLifetime: 60) == 6)
        #expect(FCMAccessTokenSource.refreshMargin(forLifetime: 1) == 0.1)
    }

    /// The token callers get once the background grant has replaced `old` (within 10 s).
    private static func replacement(
        of old: FCMAccessToken, from source: FCMAccessTokenSource
    ) async throws -> FCMAccessToken {
        let deadline = ContinuousClock.now + .seconds(10)
        var token = try await source.token()
        while token == old, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            token = try await source.token()
        }
        return token
    }

    @Test func tokenIsReusedUntilFiveMinutesBeforeItExpiresThenReplacedInTheBackground() async throws {
        try await Self.withSource { source, peer, clock in
            let first = try await source.token()
            #expect(first.lifetime == 3599)
            #expect(first.value.hasPrefix("ya29.peer-"))
            clock.advance(.seconds(3299) - .milliseconds(50))
            #expect(try await source.token() == first)
            #expect(try await peer.grants().count == 1)
            clock.advance(.milliseconds(100))
            // Inside the margin the caller still gets the unexpired token at once; one grant replaces it.
            #expect(try await source.token() == first)
            let second = try await Self.replacement(of: first, from: source)
            #expect(second != first)
            #expect(try await peer.grants().count == 2)
        }
    }

    @Test func shortLivedTokenIsReplacedAfterNinetyPercentOfItsLife() async throws {
        try await Self.withSource(expiresIn: 60) { source, peer, clock in
            let first = try await source.token()
            clock.advance(.seconds(53))
            #expect(try await source.token() == first)
            #expect(try await peer.grants().count == 1)
            clock.advance(.seconds(2))
            #expect(try await Self.replacement(of: first, from: source) != first)
            #expect(try await peer.grants().count == 2)
        }
    }

    @Test func aSlowTokenEndpointInsideTheMarginDelaysNoMessage() async throws {
        try await Self.withSource { source, peer, clock in
            let first = try await source.token()
            try await peer.configure(["token_delay_ms": 4000])
            clock.advance(.seconds(3400))  // inside the margin, before expiry
            // A caller with a second to spare gets the cached token, not a timeout while the grant is slow.
            for _ in 0..<20 {
                #expect(try await source.token(deadline: Date().addingTimeInterval(1)) == first)
            }
            #expect(source.grantCount == 2, "one grant in the background, however many callers")
        }
    }

    @Test func concurrentCallersShareOneGrant() async throws {
        try await Self.withSource(tokenDelayMs: 500) { source, peer, _ in
            let tokens = try await withThrowingTaskGroup(of: FCMAccessToken.self) { group in
                for _ in 0..<50 { group.addTask { try await source.token() } }
                return try await group.reduce(into: Set<FCMAccessToken>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(try await peer.grants().count == 1)
            #expect(source.grantCount == 1)
        }
    }

    @Test func invalidatedTokenIsReplacedByTheNextCaller() async throws {
        try await Self.withSource { source, peer, _ in
            let first = try await source.token()
            #expect(source.invalidate(first.value))
            let second = try await source.token()
            #expect(second != first)
            #expect(try await source.token() == second)
            #expect(try await peer.grants().count == 2)
        }
    }

    @Test func staleInvalidateDoesNotThrowAwayANewerToken() async throws {
        try await Self.withSource { source, peer, _ in
            let first = try await source.token()
            source.invalidate(first.value)
            let second = try await source.token()
            // A late 401 for the old token (a request that was in flight with it) changes nothing.
            #expect(!source.invalidate(first.value))
            #expect(try await source.token() == second)
            #expect(try await peer.grants().count == 2)
        }
    }

    @Test func waitingCallerGivesUpAtItsDeadlineAndTheGrantCarriesOn() async throws {
        try await Self.withSource(tokenDelayMs: 3000) { source, peer, _ in
            // The grant takes 3 s: a caller that ignored its deadline would get a token, not this error. (No
            // wall-time bound: on a loaded 2-core machine the timer may fire late, but it fires.)
            await #expect(throws: FCMAccessTokenError.timedOut) {
                try await source.token(deadline: Date().addingTimeInterval(0.3))
            }
            // The grant that caller started was not abandoned: the next caller gets its token.
            let token = try await source.token()
            #expect(token.value.hasPrefix("ya29.peer-"))
            #expect(try await peer.grants().count == 1)
        }
    }

    @Test func cancelledCallerStopsWaitingAndTheGrantCarriesOn() async throws {
        try await Self.withSource(tokenDelayMs: 1500) { source, peer, _ in
            let waiting = Task { try await source.token() }
            try await Task.sleep(for: .milliseconds(200))
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            _ = try await source.token()
            #expect(try await peer.grants().count == 1)
        }
    }

    @Test func failedRefreshInsideTheMarginHandsOutTheUnexpiredToken() async throws {
        try await Self.withSource { source, peer, clock in
            let first = try await source.token()
            try await peer.configure(["token_status": 503, "token_body": "overloaded"])
            clock.advance(.seconds(3400))  // inside the margin, before expiry
            #expect(try await source.token() == first)
            // The background grant fails; the unexpired token is still handed out.
            var grants = try await peer.grants().count
            for _ in 0..<500 where grants < 2 {
                try await Task.sleep(for: .milliseconds(20))
                grants = try await peer.grants().count
            }
            #expect(grants == 2)
            #expect(try await source.token() == first)
            // A forced refresh does not fall back: the start-up check must see the failure.
            await #expect(throws: FCMAccessTokenError.unreachable) { try await source.refresh() }
            clock.advance(.seconds(200))  // past expiry: nothing to fall back on
            let error = await #expect(throws: FCMAccessTokenError.unreachable) { try await source.token() }
            #expect(error?.status == 503)
            #expect(error?.isRetryable == true)
            // Each of the three calls since made a grant or joined the one in flight, and which depends on how soon
            // the one before failed: 3 to 5 in all (a loaded run found the background grant still in flight, and
            // made 3). Every grant started has ended and reached the peer: the last call waited for its own.
            let made = try await peer.grants().count
            #expect((3...5).contains(made))
            #expect(made == source.grantCount)
        }
    }

    @Test func refusedGrantCarriesGooglesReasonAndNoSecret() async throws {
        try await Self.withSource(account: "ringer-test-wrong-key") { source, peer, _ in
            let error = await #expect(throws: FCMAccessTokenError.refused) { try await source.token() }
            #expect(error?.isRefused == true)
            #expect(error?.isRetryable == false)
            #expect(error?.status == 400)
            #expect(error?.oauthError == "invalid_grant")
            #expect(error?.oauthErrorDescription == "Invalid JWT Signature.")
            let text = error?.description ?? ""
            #expect(text.contains(source.account.clientEmail))
            let assertion = try #require(try await peer.grants().first?.body.split(separator: "=").last)
            #expect(!text.contains(String(assertion.prefix(40))))
            #expect(!text.contains("PRIVATE KEY"))
        }
    }

    @Test func grantFromAClockFarOffIsRefusedAsGoogleDoes() async throws {
        try await Self.withSource(wallClock: { Date().addingTimeInterval(-7200) }) { source, _, _ in
            let error = await #expect(throws: FCMAccessTokenError.refused) { try await source.token() }
            #expect(error?.oauthError == "invalid_grant")
            #expect(error?.oauthErrorDescription?.contains("short-lived token") == true)
        }
    }

    @Test(arguments: [
        "<html>captive portal</html>", #"{"token_type":"Bearer","expires_in":3599}"#,
        #"{"access_token":"ya29.x","token_type":"Bearer"}"#, #"{"access_token":"ya29.x","expires_in":0}"#,
        #"{"access_token":"ya29.x","expires_in":3599,"token_type":"mac"}"#,
        #"{"access_token":"ya 29","expires_in":3599}"#,
    ])
    func answerWithoutAUsableTokenIsMalformed(_ body: String) async throws {
        try await Self.withSource { source, peer, _ in
            try await peer.configure(["token_status": 200, "token_body": body])
            let error = await #expect(throws: FCMAccessTokenError.malformedAnswer) { try await source.token() }
            #expect(error?.isRetryable == false)
            #expect(error?.isRefused == false)
        }
    }

    @Test func tokenWhoseExpiryIsAStringIsAccepted() async throws {
        try await Self.withSource { source, peer, _ in
            try await peer.configure([
                "token_status": 200,
                "token_body": #"{"access_token":"ya29.s","expires_in":"3599","token_type":"Bearer"}"#,
            ])
            #expect(try await source.token() == FCMAccessToken(value: "ya29.s", lifetime: 3599))
        }
    }

    @Test func tokenDescriptionHidesTheToken() {
        let token = FCMAccessToken(value: "ya29.secret-value", lifetime: 3599)
        #expect(!"\(token)".contains("secret"))
        #expect(token.authorization == "Bearer ya29.secret-value")
    }
}
