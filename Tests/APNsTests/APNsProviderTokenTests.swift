import APNs
import Foundation
import JWT
import RingerSupport
import RingerTestKit
import Testing

/// One ES256 provider token shared by every request, refreshed on a monotonic clock
/// (Apple: "Establishing a token-based connection to APNs": refresh no more than once every
/// 20 minutes, no less than once an hour).
@Suite struct APNsProviderTokenTests {
    struct Claims: Decodable {
        var iss: String
        var iat: Int64
    }

    let key = try! JWTSigningKey.generateP256()

    func makeToken(clock: ManualClock, wall: @escaping @Sendable () -> Date = { Date() }) -> APNsProviderToken {
        APNsProviderToken(
            credentials: .init(key: key, keyID: "ABC123DEFG", teamID: "DEF123GHIJ"),
            clock: { clock.now }, wallClock: wall)
    }

    @Test func tokenCarriesKeyIDTeamAndIssueTimeAndVerifies() throws {
        let token = try makeToken(clock: ManualClock(), wall: { Date(timeIntervalSince1970: 1_800_000_000) }).current()
        let (header, claims) = try JWT.verify(token, as: Claims.self, algorithms: [.es256]) { _ in try key.publicKey() }
        #expect(header.alg == "ES256")
        #expect(header.kid == "ABC123DEFG")
        #expect(claims.iss == "DEF123GHIJ")
        #expect(claims.iat == 1_800_000_000)
    }

    @Test func oneTokenIsReusedUntilTheRefreshInterval() throws {
        let clock = ManualClock()
        let seconds = LockedValue<TimeInterval>(1_800_000_000)
        let source = makeToken(clock: clock, wall: { Date(timeIntervalSince1970: seconds.withLock { $0 }) })
        let first = try source.current()
        clock.advance(.seconds(49 * 60))
        seconds.withLock { $0 += 49 * 60 }
        #expect(try source.current() == first)
        clock.advance(.seconds(60))
        seconds.withLock { $0 += 60 }
        #expect(try source.current() != first)
    }

    @Test func authorizationValueFollowsTheCurrentToken() throws {
        let clock = ManualClock()
        let source = makeToken(clock: clock)
        let first = try source.currentWithAuthorization()
        #expect(first.authorization == "bearer " + first.token)
        #expect(try source.current() == first.token)
        clock.advance(.seconds(55 * 60))
        let second = try source.currentWithAuthorization()
        #expect(second.token != first.token)
        #expect(second.authorization == "bearer " + second.token)
    }

    @Test func wallClockJumpsDoNotCauseRefreshes() throws {
        let clock = ManualClock()
        let seconds = LockedValue<TimeInterval>(1_800_000_000)
        let source = makeToken(clock: clock, wall: { Date(timeIntervalSince1970: seconds.withLock { $0 }) })
        let first = try source.current()
        seconds.withLock { $0 += 10 * 3600 }  // the wall clock jumps; the monotonic clock does not
        #expect(try source.current() == first)
    }

    @Test func invalidateRefreshesOnceForManyFailingRequests() throws {
        let clock = ManualClock()
        let seconds = LockedValue<TimeInterval>(1_800_000_000)
        let source = makeToken(clock: clock, wall: { Date(timeIntervalSince1970: seconds.withLock { $0 }) })
        let stale = try source.current()
        seconds.withLock { $0 += 1 }
        source.invalidate(stale)
        let fresh = try source.current()
        #expect(fresh != stale)
        source.invalidate(stale)  // a late failure of the old token must not discard the new one
        #expect(try source.current() == fresh)
    }

    @Test func refreshIntervalIsClampedToApplesWindow() {
        let clock = ManualClock()
        let short = APNsProviderToken(
            credentials: .init(key: key, keyID: "K", teamID: "T"),
            refreshInterval: .seconds(60), clock: { clock.now })
        #expect(short.refreshInterval == .seconds(20 * 60))
        let long = APNsProviderToken(
            credentials: .init(key: key, keyID: "K", teamID: "T"),
            refreshInterval: .seconds(7200), clock: { clock.now })
        #expect(long.refreshInterval == .seconds(55 * 60))
    }

    /// A wrong key makes every push fail with InvalidProviderToken: one new token per failing push would
    /// soon trip TooManyProviderTokenUpdates.
    @Test func forcedRefreshesAreAtMostOnePerMinute() throws {
        let clock = ManualClock()
        let seconds = LockedValue<TimeInterval>(1_800_000_000)
        let source = makeToken(clock: clock, wall: { Date(timeIntervalSince1970: seconds.withLock { $0 }) })
        let first = try source.current()
        #expect(source.invalidate(first))
        seconds.withLock { $0 += 1 }
        let second = try source.current()
        #expect(second != first)
        clock.advance(.seconds(30))
        #expect(source.invalidate(second) == false, "too soon after the last forced refresh")
        #expect(try source.current() == second)
        clock.advance(.seconds(31))
        #expect(source.invalidate(second))
        #expect(try source.current() != second)
    }

    @Test func tooManyProviderTokenUpdatesStopsForcedRefreshesForTwentyMinutesButNotTheScheduledOne() throws {
        let clock = ManualClock()
        let seconds = LockedValue<TimeInterval>(1_800_000_000)
        let source = makeToken(clock: clock, wall: { Date(timeIntervalSince1970: seconds.withLock { $0 }) })
        let token = try source.current()
        source.throttle()
        #expect(source.isThrottled)
        clock.advance(.seconds(19 * 60))
        #expect(source.invalidate(token) == false)
        #expect(try source.current() == token)
        clock.advance(.seconds(2 * 60))
        #expect(!source.isThrottled)
        // Throttled again near the token's scheduled refresh: the token still never reaches its hour.
        source.throttle()
        clock.advance(.seconds(30 * 60))
        seconds.withLock { $0 += 51 * 60 }
        #expect(try source.current() != token)
    }
}
