public import Foundation

/// Exponential backoff with "equal jitter": the wait before retry n is half of
/// `min(maximumDelay, initialDelay × 2^(n-1))` plus a random part up to the other half, so many
/// phones that lost the server at once do not come back in step. Used for every retry in RingerKit
/// (event stream reconnects, call actions, push-token registration).
public struct RetryBackoff: Sendable {
    /// Base delay of the first retry, seconds.
    public var initialDelay: TimeInterval
    /// Cap of the exponential delay, seconds.
    public var maximumDelay: TimeInterval
    /// Returns a value in `0...1` (clamped); random by default, fixed in tests.
    public var jitter: @Sendable () -> Double

    /// Creates a backoff policy.
    /// - Parameters:
    ///   - initialDelay: base delay of the first retry, seconds.
    ///   - maximumDelay: cap of the exponential delay, seconds.
    ///   - jitter: returns a value in `0...1`.
    public init(initialDelay: TimeInterval = 1, maximumDelay: TimeInterval = 60,
                jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
    }

    /// The wait before a retry.
    /// - Parameter retry: 1 for the first retry.
    /// - Returns: seconds, never negative.
    public func delay(beforeRetry retry: Int) -> TimeInterval {
        let exponent = Double(min(max(retry - 1, 0), 30))
        let capped = max(0, min(maximumDelay, initialDelay * pow(2, exponent)))
        let random = min(1, max(0, jitter()))
        return capped / 2 + capped / 2 * random
    }
}
