import Foundation

/// A value guarded by a lock, for state that several threads touch.
///
/// - Important: Only `withLock` reaches the value; do not let a reference to non-`Sendable`
///   contents escape the closure.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Wraps `value`.
    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    /// - Parameter body: Reads or mutates the value; must not block or call back into this box.
    /// - Returns: What `body` returns.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
