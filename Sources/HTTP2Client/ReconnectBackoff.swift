import Foundation
import RingerSupport

/// When a new connection may be opened to a host whose connections keep failing, so a server that drops
/// every connection gets no reconnect storm (Apple treats rapid connect and disconnect to APNs as a
/// denial-of-service attack: "Sending notification requests to APNs").
///
/// The first failure reconnects at once; each further one in a row waits before the next attempt, doubling
/// from ``initialDelay`` up to the cap, with jitter (50-100 %, `RingerSupport.Backoff`'s equal jitter) so many
/// clients do not reconnect in step. A response from the host ends the backoff. Requests wait within their
/// deadlines. A value type owned by the loop thread; one per origin.
struct ReconnectBackoff {
    /// The wait after the second failure in a row, in seconds.
    static let initialDelay: TimeInterval = 0.1

    private(set) var failures = 0
    /// No connection is opened before then.
    private(set) var notBefore: ContinuousClock.Instant?
    /// Why the last connection failed, when known: a request that expires without ever having been sent is
    /// reported with it, not as a mere timeout.
    private(set) var lastFailure: HTTP2ClientError?

    /// True when a connection may be opened now.
    func mayConnect(at now: ContinuousClock.Instant) -> Bool {
        guard let notBefore else { return true }
        return now >= notBefore
    }

    /// Counts a connection that failed (could not be set up, or was lost).
    /// - Parameters:
    ///   - error: why, when known (kept as ``lastFailure``).
    ///   - maximum: the cap in seconds.
    ///   - now: the current instant.
    ///   - random: a number in `0...1` for the jitter (tests fix it).
    mutating func recordFailure(
        _ error: HTTP2ClientError?, maximum: TimeInterval, now: ContinuousClock.Instant,
        random: Double = .random(in: 0...1)
    ) {
        if let error { lastFailure = error }
        failures += 1
        // The first failure is retried at once, so the second failure in a row is the backoff's first retry.
        guard failures > 1 else { return }
        let policy = Backoff(initialDelay: Self.initialDelay, maximumDelay: maximum)
        notBefore = now + .seconds(policy.delay(beforeRetry: failures - 1, random: random))
    }
}
