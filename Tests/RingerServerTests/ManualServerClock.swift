import Foundation
import RingerServer
import RingerSupport
import RingerTestSupport

/// The server tests' one clock moved by hand: a wall clock that stands still until the test moves it
/// (``advance(by:)``, ``step(by:)``). What the server's sleepers (ring sweep, keepalive wheel, push retries) do
/// is the test's choice, ``Sleeps``. Thread-safe.
final class ManualServerClock: ServerClock {
    /// What a sleep on the clock does.
    enum Sleeps: Sendable {
        /// Never ends on its own, so no timer fires (rate limits and read costs refilled by moving the clock).
        case never
        /// Ends once the clock has been moved past its deadline (checked every 5 ms): timers fire when the test
        /// moves time over them, and ``step(by:)`` can tell when the server's sweep has run.
        case untilPassed
        /// Moves the clock to its deadline at once and is recorded in ``recordedSleeps``: a retry loop runs
        /// through its waits without waiting.
        case jumpAhead
    }

    private struct State {
        var now: Date
        /// Sleeps begun after the latest move.
        var sleepsSinceMove = 0
        /// Each ``Sleeps/jumpAhead`` sleep's length, seconds.
        var sleeps: [TimeInterval] = []
    }

    private let state: LockedValue<State>
    private let sleepKind: Sleeps
    private let scale: Double

    /// - Parameters:
    ///   - start: the time the clock shows until it is moved.
    ///   - sleeps: what a sleep does.
    ///   - scale: real seconds per second of this clock (``realSeconds(_:)``: a network timeout drawn from a
    ///     call's ring time).
    init(start: Date = Date(), sleeps: Sleeps, scale: Double = 1) {
        state = LockedValue(State(now: start))
        sleepKind = sleeps
        self.scale = scale
    }

    func now() -> Date { state.withLock { $0.now } }

    func sleep(until deadline: Date) async throws {
        switch sleepKind {
        case .never:
            while true { try await Task.sleep(for: .seconds(3600)) }
        case .untilPassed:
            state.withLock { $0.sleepsSinceMove += 1 }
            while now() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        case .jumpAhead:
            state.withLock { state in
                state.sleeps.append(deadline.timeIntervalSince(state.now))
                state.now = max(state.now, deadline)
            }
        }
    }

    func realSeconds(_ seconds: TimeInterval) -> TimeInterval { seconds * scale }

    /// The length of each ``Sleeps/jumpAhead`` sleep so far, seconds, in order.
    var recordedSleeps: [TimeInterval] { state.withLock { $0.sleeps } }

    /// Moves the clock without waiting for anyone.
    /// - Parameter seconds: how far.
    func advance(by seconds: TimeInterval) {
        state.withLock { $0.now = $0.now.addingTimeInterval(seconds) }
    }

    /// Moves the clock, then waits (up to 10 s) until some sleeper slept again: with ``Sleeps/untilPassed``, the
    /// sweep due at the new time is over.
    /// - Parameter seconds: how far.
    func step(by seconds: TimeInterval) async {
        state.withLock { state in
            state.now = state.now.addingTimeInterval(seconds)
            state.sleepsSinceMove = 0
        }
        _ = await eventually { self.state.withLock { $0.sleepsSinceMove > 0 } }
    }
}
