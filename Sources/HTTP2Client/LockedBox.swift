import Foundation

/// Mutable state shared across threads, reachable only while holding its lock.
///
/// Used instead of `Synchronization.Mutex` so the target also builds for older Apple deployment targets.
final class LockedBox<Value>: @unchecked Sendable {
    // Every access to `value` goes through `withLock`, which is what makes the unchecked conformance sound.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value; `body` must not block or re-enter this box.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
