public import Foundation
public import RingerServer

/// Scenario time: a wall clock that runs `1 / scale` times faster than real time, so a 45 s ring-out
/// takes 0.45 s of real time at `scale` 0.01. With `scale` 1 it is real time.
///
/// The server (ring deadlines, timestamps), the simulated devices' expiry checks and the APNs
/// sandbox's stored-push expiry all read this one clock, so they agree on when a call's deadline
/// passed. Provider-token ages (`iat`) stay on real time: the APNs client and the sandbox's token
/// check do not use it. Immutable and thread-safe.
public struct ScenarioClock: ServerClock {
    /// Real seconds per scenario second (0 < scale ≤ 1 in practice; 1 is real time).
    public let scale: Double
    /// The wall-clock instant at which scenario time and real time agreed.
    public let origin: Date
    private let realOrigin: ContinuousClock.Instant

    /// Creates a clock that reads the real time now and then runs `1 / scale` times faster. The origin is a whole
    /// millisecond, so `ringer-lab node --test-time-origin` (unix milliseconds) names it exactly.
    /// - Parameter scale: real seconds per scenario second, greater than 0 (anything else means 1).
    public init(scale: Double) {
        self.init(
            scale: scale,
            origin: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000))
    }

    /// Creates a clock whose scenario time equals the wall clock at `origin` and has run `1 / scale` times faster
    /// since: separate processes given the same origin and scale (`ringer-lab node --test-time-origin
    /// --test-time-scale`, test-only) keep one scenario time, as far as their wall clocks agree. Read against the
    /// wall clock once, here; after that on the monotonic clock, so a wall-clock step does not move it.
    /// - Parameters:
    ///   - scale: real seconds per scenario second, greater than 0 (anything else means 1).
    ///   - origin: the wall-clock instant at which scenario time and real time agree.
    public init(scale: Double, origin: Date) {
        self.scale = scale > 0 ? scale : 1
        let sinceOrigin = Date().timeIntervalSince(origin)
        realOrigin = ContinuousClock.now - .seconds(sinceOrigin)
        self.origin = origin
    }

    /// The current scenario time.
    /// - Returns: the wall-clock date of the scenario's time line.
    public func now() -> Date {
        let elapsed = realOrigin.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return origin.addingTimeInterval(seconds / scale)
    }

    /// Suspends until the scenario time reaches `deadline`.
    /// - Parameter deadline: a scenario-time date.
    /// - Throws: `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Date) async throws {
        let remaining = deadline.timeIntervalSince(now())
        if remaining > 0 { try await Task.sleep(for: .seconds(remaining * scale + 0.000_5)) }
    }

    /// Real seconds that `scenarioSeconds` of scenario time take.
    /// - Parameter scenarioSeconds: a duration in scenario seconds.
    /// - Returns: the same duration in real seconds.
    public func real(_ scenarioSeconds: TimeInterval) -> TimeInterval { scenarioSeconds * scale }

    /// The same as ``real(_:)``: the server converts what is left of a ring deadline into a network
    /// request's real deadline with it.
    /// - Parameter seconds: a duration in scenario seconds.
    /// - Returns: the same duration in real seconds.
    public func realSeconds(_ seconds: TimeInterval) -> TimeInterval { real(seconds) }
}
