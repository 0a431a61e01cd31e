import Foundation
@testable import RingerServer
import Testing

/// The one retry rule: Retry-After first, else exponential backoff with jitter, never past the deadline.
@Suite struct PushRetryPolicyTests {
    let policy = PushRetryPolicy()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func backoffDoublesFromAQuarterSecondWithinItsUpperHalf() {
        let deadline = now.addingTimeInterval(45)
        let low = (1...4).map { policy.delay(afterSends: $0, action: .retry(after: nil), now: now, deadline: deadline, jitter: 0) }
        let high = (1...4).map { policy.delay(afterSends: $0, action: .retry(after: nil), now: now, deadline: deadline, jitter: 1) }
        #expect(low == [0.125, 0.25, 0.5, 1])
        #expect(high == [0.25, 0.5, 1, 2])
    }

    @Test func retryAfterIsHonouredInsteadOfTheBackoff() {
        let delay = policy.delay(afterSends: 1, action: .retry(after: 7), now: now, deadline: now.addingTimeInterval(45),
                                 jitter: 0.5)
        #expect(delay == 7)
    }

    @Test func aRetryAfterBeyondTheRingDeadlineEndsTheTries() {
        // FCM's QUOTA_EXCEEDED may ask for a minute; a call rings for 45 s.
        #expect(policy.delay(afterSends: 1, action: .retry(after: 60), now: now, deadline: now.addingTimeInterval(45),
                             jitter: 0.5) == nil)
        // A wait that leaves less than a second for the answer is pointless too.
        #expect(policy.delay(afterSends: 1, action: .retry(after: 2.5), now: now, deadline: now.addingTimeInterval(3),
                             jitter: 0.5) == nil)
    }

    @Test func onlyRetryableAnswersAreSentAgainAndAtMostFiveTimesInAll() {
        let deadline = now.addingTimeInterval(3600)
        for action: PushAction in [.accepted, .flagDevice, .configurationError, .invalidRequest, .removeToken(invalidSince: nil)] {
            #expect(policy.delay(afterSends: 1, action: action, now: now, deadline: deadline, jitter: 0.5) == nil)
        }
        #expect(policy.delay(afterSends: 4, action: .retry(after: nil), now: now, deadline: deadline, jitter: 0.5) != nil)
        #expect(policy.delay(afterSends: 5, action: .retry(after: nil), now: now, deadline: deadline, jitter: 0.5) == nil)
    }
}
