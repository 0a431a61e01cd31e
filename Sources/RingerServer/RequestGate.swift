import Foundation
import RingerSync

/// Counts work in progress (HTTP requests, pushes) so shutdown can let it finish: once closed, new
/// work is refused and ``drain(timeout:)`` waits for the running work, so a SIGTERM never cuts a call
/// creation between storing it and answering the caller, nor drops a VoIP push already decided.
final class RequestGate: Sendable {
    private struct State {
        var running = 0
        var closed = false
    }

    private let state = LockedValue(State())

    /// Admits a request.
    /// - Returns: false once the gate is closed.
    func enter() -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.running += 1
            return true
        }
    }

    /// Marks an admitted request finished.
    func leave() { state.withLock { $0.running -= 1 } }

    /// Refuses new requests and waits until the running ones finished, at most `timeout` seconds.
    /// - Returns: how many were still running when it gave up (0 when all finished).
    func drain(timeout: TimeInterval) async -> Int {
        state.withLock { $0.closed = true }
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.running }) == 0 { return 0 }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return state.withLock { $0.running }
    }
}
