import Foundation

/// A value guarded by a lock (Foundation only, so the SDK can use it too), for state shared across threads where an actor cannot be used
/// (synchronous callers, C callback threads).
public final class LockedValue<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written while holding `lock`.
    private let lock = NSLock()
    private var value: Value

    /// Creates the box holding `value`.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    public var snapshot: Value { withLock { $0 } }
}
