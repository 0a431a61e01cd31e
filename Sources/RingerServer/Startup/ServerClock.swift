public import Foundation

/// The server's notion of time, injectable so tests and scenarios can run ring timeouts fast.
public protocol ServerClock: Sendable {
    /// The current wall-clock time.
    func now() -> Date
    /// Suspends until `deadline` (wall clock).
    /// - Throws: `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
    /// Real seconds that `seconds` of this clock's time take: how long a network request may wait for an
    /// answer when this much of a call's ring time is left. Real time by default.
    /// - Parameter seconds: a duration on this clock, seconds.
    /// - Returns: the same duration in real seconds.
    func realSeconds(_ seconds: TimeInterval) -> TimeInterval
}

extension ServerClock {
    /// Real time: a second is a second.
    public func realSeconds(_ seconds: TimeInterval) -> TimeInterval { seconds }
}

/// Real time.
public struct SystemServerClock: ServerClock {
    /// Creates the clock.
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 { try await Task.sleep(for: .seconds(seconds + 0.001)) }
    }
}
