public import Foundation

/// How long to wait before trying again after a failure: exponential backoff with "equal jitter", the one
/// retry timing of Ringer (RingerKit's request retries and event-stream reconnects, the server's push
/// retries, the HTTP/2 client's reconnects), each with its own parameters.
///
/// The ceiling before retry n is `min(maximumDelay, initialDelay × 2^(n-1))`; the wait is half of it plus a
/// random part of up to the other half, so many clients that failed together do not retry in step and none
/// retries sooner than half the ceiling (AWS Architecture Blog, "Exponential Backoff and Jitter").
/// A pure value: the random number comes in as an argument, so callers inject their randomness and tests
/// fix it.
public struct Backoff: Sendable, Hashable {
    /// Ceiling of the first retry's wait, seconds.
    public var initialDelay: TimeInterval
    /// Cap of every ceiling, seconds.
    public var maximumDelay: TimeInterval

    /// Creates a policy.
    /// - Parameters:
    ///   - initialDelay: ceiling of the first retry's wait, seconds (negative counts as 0).
    ///   - maximumDelay: cap of every ceiling, seconds (negative counts as 0).
    public init(initialDelay: TimeInterval, maximumDelay: TimeInterval) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// The longest wait before a retry, without jitter.
    /// - Parameter retry: 1 for the first retry; smaller values count as 1.
    /// - Returns: seconds, never negative.
    public func ceiling(beforeRetry retry: Int) -> TimeInterval {
        // 2^30 × any sane initial delay is past every cap; the bound keeps pow finite.
        let exponent = Double(min(max(retry - 1, 0), 30))
        return max(0, min(maximumDelay, max(0, initialDelay) * pow(2, exponent)))
    }

    /// The wait before a retry.
    /// - Parameters:
    ///   - retry: 1 for the first retry; smaller values count as 1.
    ///   - random: a number in `0...1` (clamped): 0 waits half the ceiling, 1 the whole ceiling.
    /// - Returns: seconds, never negative.
    public func delay(beforeRetry retry: Int, random: Double) -> TimeInterval {
        let ceiling = ceiling(beforeRetry: retry)
        let random = random.isNaN ? 0 : min(1, max(0, random))
        return ceiling / 2 + ceiling / 2 * random
    }
}
