import Foundation
import Testing

@testable import RingerServer

/// The one retry rule: Retry-After first, else exponential backoff with jitter, never past the deadline.
@Suite struct PushRetryPolicyTests {
    let policy = PushRetryPolicy()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func backoffDoublesFromHalfASecondUpToEightSecondsWithinItsUpperHalf() {
        let deadline = now.addingTimeInterval(45)
        let low = (1...6).map {
            policy.delay(afterSends: $0, action: .retry(after: nil), now: now, deadline: deadline, jitter: 0)
        }
        let high = (1...6).map {
            policy.delay(afterSends: $0, action: .retry(after: nil), now: now, deadline: deadline, jitter: 1)
        }
        #expect(low == [0.25, 0.5, 1, 2, 4, 4])
        #expect(high == [0.5, 1, 2, 4, 8, 8])
    }

    @Test func anOutageIsRetriedThroughTheWholeRingNotForAFixedFewSeconds() {
        // Every send fails: the sends must keep coming until the deadline leaves no room for an answer.
        let deadline = now.addingTimeInterval(45)
        var time = now
        var sends = 1
        while let delay = policy.delay(
            afterSends: sends, action: .retry(after: nil), now: time, deadline: deadline, jitter: 1)
        {
            time = time.addingTimeInterval(delay)
            sends += 1
        }
        #expect(
            time.timeIntervalSince(now) > 35, "the last send came \(time.timeIntervalSince(now)) s into a 45 s ring")
        #expect((8...12).contains(sends), "\(sends) sends")
    }

    @Test func retryAfterIsHonouredInsteadOfTheBackoff() {
        let delay = policy.delay(
            afterSends: 1, action: .retry(after: 7), now: now, deadline: now.addingTimeInterval(45),
            jitter: 0.5)
        #expect(delay == 7)
    }

    @Test func aRetryAfterBeyondTheRingDeadlineEndsTheTries() {
        // FCM's QUOTA_EXCEEDED may ask for a minute; a call rings for 45 s.
        #expect(
            policy.delay(
                afterSends: 1, action: .retry(after: 60), now: now, deadline: now.addingTimeInterval(45),
                jitter: 0.5) == nil)
        // A wait that leaves less than a second for the answer is pointless too.
        #expect(
            policy.delay(
                afterSends: 1, action: .retry(after: 2.5), now: now, deadline: now.addingTimeInterval(3),
                jitter: 0.5) == nil)
    }

    @Test func onlyRetryableAnswersAreSentAgainAndAtMostTwelveTimesInAll() {
        let deadline = now.addingTimeInterval(3600)
        for action: PushAction in [
            .accepted, .flagDevice, .configurationError, .invalidRequest, .removeToken(invalidSince: nil),
        ] {
            #expect(policy.delay(afterSends: 1, action: action, now: now, deadline: deadline, jitter: 0.5) == nil)
        }
        #expect(
            policy.delay(afterSends: 11, action: .retry(after: nil), now: now, deadline: deadline, jitter: 0.5) != nil)
        #expect(
            policy.delay(afterSends: 12, action: .retry(after: nil), now: now, deadline: deadline, jitter: 0.5) == nil)
    }
}
