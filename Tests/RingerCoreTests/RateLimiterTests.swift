import Foundation
import RingerCore
import Testing

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

@Suite struct RateLimiterTests {
    @Test func aFullBucketAllowsABurstOfTheLimitThenRefuses() {
        var limiter = RateLimiter<String>(limit: 5, window: 60)
        for _ in 0..<5 { #expect(limiter.acquire("alice", now: t0) == .allowed) }
        #expect(limiter.acquire("alice", now: t0) == .limited(retryAfter: 12))
        // A refusal spends nothing: the wait does not grow.
        #expect(limiter.acquire("alice", now: t0) == .limited(retryAfter: 12))
    }

    @Test func oneUnitRefillsEveryWindowOverLimitSeconds() {
        var limiter = RateLimiter<String>(limit: 5, window: 60)
        for _ in 0..<5 { _ = limiter.acquire("alice", now: t0) }
        #expect(limiter.acquire("alice", now: t0 + 11.9) != .allowed)
        #expect(limiter.acquire("alice", now: t0 + 12) == .allowed)
        #expect(limiter.acquire("alice", now: t0 + 12) != .allowed)
        // After a whole window of silence the full burst is back.
        for _ in 0..<5 { #expect(limiter.acquire("alice", now: t0 + 80) == .allowed) }
        #expect(limiter.acquire("alice", now: t0 + 80) != .allowed)
    }

    @Test func retryAfterIsWholeSecondsRoundedUpAndAtLeastOne() {
        var limiter = RateLimiter<String>(limit: 7, window: 60)
        for _ in 0..<7 { _ = limiter.acquire("k", now: t0) }
        // 60 / 7 = 8.57 s to the next unit.
        #expect(limiter.acquire("k", now: t0) == .limited(retryAfter: 9))
        #expect(limiter.acquire("k", now: t0 + 8.5) == .limited(retryAfter: 1))
        #expect(limiter.acquire("k", now: t0 + 8.58) == .allowed)
    }

    @Test func aLimitOfOneWaitsTheWholeWindow() {
        var limiter = RateLimiter<String>(limit: 1, window: 60)
        #expect(limiter.acquire("k", now: t0) == .allowed)
        #expect(limiter.acquire("k", now: t0 + 1) == .limited(retryAfter: 59))
        #expect(limiter.acquire("k", now: t0 + 60) == .allowed)
    }

    @Test func keysHaveTheirOwnBudgets() {
        var limiter = RateLimiter<String>(limit: 2, window: 60)
        #expect(limiter.acquire("alice", now: t0) == .allowed)
        #expect(limiter.acquire("alice", now: t0) == .allowed)
        #expect(limiter.acquire("alice", now: t0) != .allowed)
        #expect(limiter.acquire("bob", now: t0) == .allowed)
    }

    @Test func recordedFailuresCountPastTheLimitAndCheckSpendsNothing() {
        var limiter = RateLimiter<String>(limit: 3, window: 60)
        for _ in 0..<3 { #expect(limiter.check("addr", now: t0) == .allowed) }
        for _ in 0..<3 { limiter.record("addr", now: t0) }
        #expect(limiter.check("addr", now: t0) == .limited(retryAfter: 20))
        // A fourth failure that happened anyway deepens the debt.
        limiter.record("addr", now: t0)
        #expect(limiter.check("addr", now: t0) == .limited(retryAfter: 40))
    }

    @Test func keysWhoseBucketIsFullAgainAreForgotten() {
        var limiter = RateLimiter<String>(limit: 10, window: 60)
        for index in 0..<50 { _ = limiter.acquire("key-\(index)", now: t0) }
        #expect(limiter.keyCount == 50)
        limiter.evictIdle(now: t0 + 5)
        #expect(limiter.keyCount == 50)
        limiter.evictIdle(now: t0 + 6)
        #expect(limiter.keyCount == 0)
    }

    @Test func aFloodOfDistinctKeysNeverHoldsMoreThanMaxKeys() {
        var limiter = RateLimiter<Int>(limit: 2, window: 60, maxKeys: 1000)
        // Every key stays in debt for the whole flood, so only the bound frees memory.
        var most = 0
        for index in 0..<100_000 {
            _ = limiter.acquire(index, now: t0 + Double(index) * 0.000_1)
            most = max(most, limiter.keyCount)
        }
        #expect(most == 1000)
    }

    @Test func underTheBoundTheKeysNearestToIdleAreForgottenFirst() {
        var limiter = RateLimiter<String>(limit: 2, window: 60, maxKeys: 4)
        // "deep" is far in debt; the others spent one unit each.
        for _ in 0..<2 { _ = limiter.acquire("deep", now: t0) }
        for name in ["a", "b", "c"] { _ = limiter.acquire(name, now: t0) }
        _ = limiter.acquire("new", now: t0)
        #expect(limiter.keyCount <= 4)
        #expect(limiter.acquire("deep", now: t0) != .allowed)
    }

    /// A group call spends one unit per callee rung, all at once or none (decision 0007 §7).
    @Test func aCostSpendsThatManyUnitsAtOnceOrNone() {
        var limiter = RateLimiter<String>(limit: 10, window: 60)
        #expect(limiter.check("alice", now: t0, cost: 10) == .allowed)
        #expect(limiter.check("alice", now: t0, cost: 11) == .limited(retryAfter: 60))
        limiter.record("alice", now: t0, cost: 8)
        // Two are left: three are refused, and the refusal spends nothing.
        #expect(limiter.check("alice", now: t0, cost: 3) == .limited(retryAfter: 6))
        #expect(limiter.check("alice", now: t0, cost: 2) == .allowed)
        limiter.record("alice", now: t0, cost: 2)
        #expect(limiter.acquire("alice", now: t0) == .limited(retryAfter: 6))
        // Three units come back in 18 s.
        #expect(limiter.check("alice", now: t0 + 18, cost: 3) == .allowed)
        #expect(limiter.check("alice", now: t0 + 18, cost: 4) != .allowed)
    }
}
