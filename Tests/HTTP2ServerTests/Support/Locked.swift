import Foundation

/// A value shared between the test, the server's handler tasks and helper threads, guarded by a lock.
final class Locked<Value>: @unchecked Sendable {
    // Every access goes through `withLock`, which makes the unchecked conformance sound.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
