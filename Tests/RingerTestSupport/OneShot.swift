import RingerSupport

/// A value that arrives once and that any number of tasks can await: a child's exit status, a peer's
/// first line. Thread-safe: the state lives in a `LockedValue`, so threads and termination handlers
/// may fulfil it while tasks wait.
final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [CheckedContinuation<Value, Never>] = []
    }

    private let state = LockedValue(State())

    /// True once ``fulfil(_:)`` has been called.
    var isFulfilled: Bool { state.withLock { $0.value != nil } }

    /// Sets the value and wakes every waiter; later calls are ignored.
    /// - Returns: true if this call set the value.
    @discardableResult
    func fulfil(_ value: Value) -> Bool {
        let waiters: [CheckedContinuation<Value, Never>]? = state.withLock { state in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        waiters?.forEach { $0.resume(returning: value) }
        return waiters != nil
    }

    /// Waits for the value (returns at once if it is already set).
    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready: Value? = state.withLock { state in
                if let value = state.value { return value }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
