#if canImport(Glibc)
import RingerSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// State that only one lws service thread may touch, checked at run time (like NIOLoopBound).
///
/// lws calls its protocol callback on the thread that runs `lws_service`, so the per-connection
/// tables live here without a lock. The thread claims the box when its loop starts.
final class ServiceThreadBound<Value: AnyObject>: @unchecked Sendable {
    private let storage: Value
    private let owner = LockedValue<pthread_t?>(nil)

    /// Wraps `value`, which no thread owns yet.
    init(_ value: Value) {
        storage = value
    }

    /// Makes the calling thread the only one allowed to use the value.
    func claimForCurrentThread() {
        owner.withLock { $0 = pthread_self() }
    }

    /// Whether the calling thread is the owner.
    var isOnOwnerThread: Bool {
        owner.withLock { owner in owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// The value; traps when called from another thread, which is a programming error.
    var value: Value {
        precondition(isOnOwnerThread, "lws service-thread state touched from another thread")
        return storage
    }
}
