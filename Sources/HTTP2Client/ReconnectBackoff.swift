import Foundation

/// When requests may start towards a host whose connections keep failing, so a server that drops every
/// connection gets no reconnect storm (Apple treats rapid connect and disconnect to APNs as a
/// denial-of-service attack: "Sending notification requests to APNs").
///
/// After a failure only one request (the probe) goes out at a time; the others wait until it gets an answer,
/// which ends the backoff. Each failure in a row after the first adds a wait before the next probe, doubling
/// from ``initialDelay`` up to the cap, with jitter (50-100 %) so many clients do not reconnect in step.
/// Streams failing with the same connection count once. A value type owned by the loop thread.
struct ReconnectBackoff {
    /// The wait after the second failure in a row, in seconds.
    static let initialDelay: TimeInterval = 0.1

    private(set) var failures = 0
    /// No probe starts before then.
    private(set) var notBefore: ContinuousClock.Instant?
    private var lastFailedPort = 0
    private var probeInFlight = false

    /// True when a request may start now; if the host is failing it becomes the probe (call
    /// ``started()``).
    func mayStart(at now: ContinuousClock.Instant) -> Bool {
        guard failures > 0 else { return true }
        if probeInFlight { return false }
        if let notBefore, now < notBefore { return false }
        return true
    }

    /// Records that a request started.
    /// - Returns: true when it is the probe for a failing host.
    mutating func started() -> Bool {
        guard failures > 0 else { return false }
        probeInFlight = true
        return true
    }

    /// The probe finished, whatever its outcome (record that separately).
    mutating func probeEnded() {
        probeInFlight = false
    }

    /// Counts a connection failure seen by a transfer.
    /// - Parameters:
    ///   - localPort: the failed connection's local port, 0 when it never connected.
    ///   - maximum: the cap in seconds.
    ///   - now: the current instant.
    mutating func recordFailure(localPort: Int, maximum: TimeInterval, now: ContinuousClock.Instant) {
        if localPort != 0, localPort == lastFailedPort { return }
        lastFailedPort = localPort
        failures += 1
        guard failures > 1 else { return }
        let doubling = Self.initialDelay * pow(2, Double(min(failures - 2, 30)))
        notBefore = now + .seconds(min(doubling, maximum) * Double.random(in: 0.5...1))
    }

    /// The host answered: start freely again.
    mutating func recordSuccess() {
        self = ReconnectBackoff()
    }
}
