public import Foundation

/// What becomes of a webhook delivery after an attempt (decision 0009 §3), as Standard Webhooks recommends: a 2xx
/// answer delivers it; `410 Gone` disables the endpoint; anything else (another status, 3xx included, since redirects
/// are not followed, or no answer) is retried on the specification's example schedule, each wait drawn within ±10 %
/// so endpoints that failed together are not retried together, and never before the endpoint's `Retry-After`; after
/// the last attempt it has failed. A pure value: time and randomness come in as arguments.
public struct WebhookRetryRule: Sendable, Hashable {
    /// The wait before each retry, seconds: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (Standard Webhooks'
    /// example schedule after the immediate first attempt): ten attempts over about three days.
    public var delays: [TimeInterval] = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400]
    /// The longest `Retry-After` honoured, seconds; a longer one waits this long.
    public var maximumRetryAfter: TimeInterval = 86_400

    /// What to do.
    public enum Decision: Sendable, Hashable {
        /// The endpoint has it.
        case delivered
        /// Try again at this time.
        case retry(at: Date)
        /// Every attempt failed: the delivery stays `failed` until redelivered.
        case failed
        /// The endpoint answered `410 Gone`: disable it, and fail its pending deliveries.
        case endpointGone
    }

    /// The rule with the specification's schedule.
    public init() {}

    /// The rule with other waits (tests of the whole series).
    public init(delays: [TimeInterval], maximumRetryAfter: TimeInterval = 86_400) {
        self.delays = delays
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// The most attempts, the first included.
    public var maximumAttempts: Int { delays.count + 1 }

    /// Decides after an attempt.
    /// - Parameters:
    ///   - status: the HTTP status, nil when no answer came (refused, timed out, not a public address).
    ///   - attempts: attempts made, this one included (1 after the first).
    ///   - retryAfter: the answer's `Retry-After`, in seconds from `now`, if it had one.
    ///   - now: the server's time.
    ///   - jitter: a random number in 0…1.
    public func decide(
        status: Int?, attempts: Int, retryAfter: TimeInterval?, now: Date, jitter: Double
    ) -> Decision {
        if let status, (200...299).contains(status) { return .delivered }
        if status == 410 { return .endpointGone }
        guard attempts >= 1, attempts <= delays.count else { return .failed }
        let planned = delays[attempts - 1] * (0.9 + 0.2 * min(max(jitter, 0), 1))
        let wait = max(planned, min(max(retryAfter ?? 0, 0), maximumRetryAfter))
        return .retry(at: now.addingTimeInterval(wait))
    }
}
