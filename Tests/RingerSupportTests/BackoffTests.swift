import Foundation
import RingerSupport
import Testing

@Suite struct BackoffTests {
    @Test func ceilingDoublesFromTheInitialDelayUpToTheCap() {
        let backoff = Backoff(initialDelay: 0.5, maximumDelay: 8)
        #expect((1...7).map { backoff.ceiling(beforeRetry: $0) } == [0.5, 1, 2, 4, 8, 8, 8])
    }

    @Test func waitIsBetweenHalfTheCeilingAndTheCeiling() {
        let backoff = Backoff(initialDelay: 1, maximumDelay: 60)
        #expect(backoff.delay(beforeRetry: 3, random: 0) == 2)
        #expect(backoff.delay(beforeRetry: 3, random: 0.5) == 3)
        #expect(backoff.delay(beforeRetry: 3, random: 1) == 4)
    }

    @Test func outOfRangeInputsAreClampedNotTrusted() {
        let backoff = Backoff(initialDelay: 1, maximumDelay: 60)
        #expect(backoff.delay(beforeRetry: 0, random: 1) == 1)
        #expect(backoff.delay(beforeRetry: -5, random: 1) == 1)
        #expect(backoff.delay(beforeRetry: 2, random: 7) == 2)
        #expect(backoff.delay(beforeRetry: 2, random: -1) == 1)
        #expect(backoff.delay(beforeRetry: 2, random: .nan) == 1)
        #expect(backoff.delay(beforeRetry: Int.max, random: 1) == 60)
        #expect(Backoff(initialDelay: -1, maximumDelay: 5).delay(beforeRetry: 3, random: 1) == 0)
        #expect(Backoff(initialDelay: 1, maximumDelay: -5).delay(beforeRetry: 3, random: 1) == 0)
    }
}
