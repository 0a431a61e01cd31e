#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread that owns a socket loop's state, checked at run time (as `LibWebSockets`' `ServiceThreadBound`
/// does for lws): nghttp2 sessions, OpenSSL connections and the tables around them have no locks, so a touch
/// from any other thread is a programming error and must trap, not race.
///
/// The owner is the thread that created the value; make it where the loop runs (the loop's own constructor,
/// or the first thing the loop thread does). Thread-safety: immutable; ``check(_:)`` may be called anywhere.
public struct LoopThread: @unchecked Sendable {
    // pthread_t is an integer on Glibc and a pointer on Darwin; either way only compared, never dereferenced.
    private let owner: pthread_t

    /// Makes the calling thread the owner.
    public init() {
        owner = pthread_self()
    }

    /// Whether the calling thread is the owner.
    public var isCurrent: Bool {
        pthread_equal(owner, pthread_self()) != 0
    }

    /// Traps unless called on the owner thread.
    /// - Parameter what: the state being touched, for the trap's message.
    @inline(__always)
    public func check(_ what: @autoclosure () -> String) {
        precondition(isCurrent, "\(what()) touched off its loop thread")
    }
}
