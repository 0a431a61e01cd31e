import Foundation
import RingerSupport

/// Counts work in flight (HTTP requests, pushes) so shutdown can drain it: once draining, new work is
/// refused and ``drain(timeout:)`` waits for the running work, so a SIGTERM never cuts a call creation
/// between storing it and answering the caller, nor drops a VoIP push already decided.
final class InFlightWork: Sendable {
    private struct State {
        var running = 0
        var draining = false
    }

    private let state = LockedValue(State())

    /// Admits one piece of work (a request, a push).
    /// - Returns: false once draining has begun: the caller refuses the work (503 for a request).
    func enter() -> Bool {
        state.withLock { state in
            guard !state.draining else { return false }
            state.running += 1
            return true
        }
    }

    /// Marks admitted work finished.
    func leave() { state.withLock { $0.running -= 1 } }

    /// Refuses new work and waits until the running work finished, at most `timeout` seconds.
    /// - Returns: how many were still running when it gave up (0 when all finished).
    func drain(timeout: TimeInterval) async -> Int {
        state.withLock { $0.draining = true }
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.running }) == 0 { return 0 }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return state.withLock { $0.running }
    }
}
