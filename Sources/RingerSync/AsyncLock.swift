import Foundation

/// A first-in, first-out lock for async code: at most one holder at a time, waiters resume in order.
///
/// Actors are reentrant at every `await`; work that must not interleave across suspension points
/// (store a change, then deliver its events in sequence order) holds this lock instead.
public final class AsyncLock: Sendable {
    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    /// Creates an unlocked lock.
    public init() {}

    /// Runs `body` while holding the lock, waiting for earlier holders first.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws; the lock is released either way.
    public func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.held {
                    state.waiters.append(continuation)
                    return false
                }
                state.held = true
                return true
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
