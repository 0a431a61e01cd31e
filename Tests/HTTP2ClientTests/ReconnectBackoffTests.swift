import Testing

@testable import HTTP2Client

/// ``ReconnectBackoff``: the reconnect timing of a host whose connections keep failing.
struct ReconnectBackoffTests {
    private static let failure = HTTP2ClientError.transport(function: "connect", code: 111, message: "refused")

    @Test func theFirstFailureReconnectsAtOnceAndLaterOnesDoubleFromATenthOfASecondToTheCap() {
        let now = ContinuousClock.now
        var backoff = ReconnectBackoff()
        backoff.recordFailure(Self.failure, maximum: 0.5, now: now, random: 1)
        #expect(backoff.mayConnect(at: now))
        var waits: [Duration] = []
        for _ in 0..<4 {
            backoff.recordFailure(nil, maximum: 0.5, now: now, random: 1)
            waits.append(now.duration(to: backoff.notBefore ?? now))
        }
        #expect(waits == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500)])
        #expect(!backoff.mayConnect(at: now + .milliseconds(499)))
        #expect(backoff.mayConnect(at: now + .milliseconds(500)))
    }

    @Test func jitterWaitsBetweenHalfAndAllOfTheCeiling() {
        let now = ContinuousClock.now
        for (random, expected) in [
            (0.0, Duration.milliseconds(50)), (0.5, .milliseconds(75)), (1.0, .milliseconds(100)),
        ] {
            var backoff = ReconnectBackoff()
            backoff.recordFailure(nil, maximum: 5, now: now, random: random)
            backoff.recordFailure(nil, maximum: 5, now: now, random: random)
            let wait = now.duration(to: backoff.notBefore ?? now)
            #expect(
                wait > expected - .microseconds(1) && wait < expected + .microseconds(1), "\(wait) for random \(random)"
            )
        }
    }

    @Test func theLastKnownFailureIsKeptWhenALaterOneHasNoCause() {
        var backoff = ReconnectBackoff()
        backoff.recordFailure(Self.failure, maximum: 5, now: .now)
        backoff.recordFailure(nil, maximum: 5, now: .now)
        #expect(backoff.lastFailure == Self.failure)
        #expect(backoff.failures == 2)
    }
}
