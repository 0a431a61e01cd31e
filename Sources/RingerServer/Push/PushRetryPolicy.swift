import Foundation
import RingerSupport

/// When a push that may succeed later is sent again: the one retry rule for every provider.
///
/// A lost ringing push is a missed call, so a retryable answer is sent again for as long as it still matters
/// (the whole ring, not a fixed number of tries: a provider outage of 20 s must not lose a call with 25 s left),
/// honouring the provider's `Retry-After` (FCM: "Retry-After"; APNs 429 `TooManyRequests` carries none),
/// else after Ringer's one exponential backoff with equal jitter (``Backoff``): 0.5 s, 1 s, 2 s, 4 s, then
/// every 8 s, each drawn from its upper half, so a struggling provider gets at most about ten requests per
/// push over a 45 s ring.
/// A pure value: time and randomness come in as arguments.
struct PushRetryPolicy: Sendable {
    /// Most sends per push, the first included: a bound for very long deadlines (a missed-call alert is kept
    /// for a day), never reached within a ring.
    var maxSends = 12
    /// The wait without `Retry-After`, seconds on the server's clock: the ceiling starts at 0.5 s and doubles
    /// up to 8 s.
    var backoff = Backoff(initialDelay: 0.5, maximumDelay: 8)
    /// Seconds that must remain before the deadline after the wait, for an answer to come back in time.
    var answerMargin: TimeInterval = 1

    /// The wait before the next send, or nil to stop.
    /// - Parameters:
    ///   - sends: sends made so far (1 after the first).
    ///   - action: what the last answer asked for.
    ///   - now: the server's time.
    ///   - deadline: when the push stops mattering (server clock).
    ///   - jitter: a random number in 0…1.
    /// - Returns: seconds to wait, or nil when the push is not retried.
    func delay(afterSends sends: Int, action: PushAction, now: Date, deadline: Date, jitter: Double) -> TimeInterval? {
        guard case .retry(let retryAfter) = action, sends < maxSends else { return nil }
        // The retry after `sends` sends is retry number `sends`.
        let delay = retryAfter.map { max($0, 0) } ?? backoff.delay(beforeRetry: sends, random: jitter)
        guard now.addingTimeInterval(delay + answerMargin) < deadline else { return nil }
        return delay
    }
}
