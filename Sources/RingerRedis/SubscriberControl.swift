import Foundation
import RingerSupport
import SocketSupport

/// What a ``RedisSubscriber`` and its thread share: the channels wanted, the stop request, and the pipe
/// that wakes the thread's `poll` when either changes. The pipe is closed when both have let go.
final class SubscriberControl: @unchecked Sendable {
    // @unchecked: `state` is locked; the pipe's descriptors are written and read from any thread (write and
    // read on a pipe are thread-safe) and closed only in deinit, when no thread holds the control.
    struct State {
        var channels: Set<String>
        var started = false
        var stopping = false
        /// The subscriber's thread, once running, so that `stop()` from a callback does not wait for itself.
        var loopThread: LoopThread?
    }

    let state: LockedValue<State>
    /// Left when the thread has finished (entered by `start()`).
    let finished = DispatchGroup()
    private let pipe: WakePipe

    init(channels: Set<String>) throws(RedisError) {
        state = LockedValue(State(channels: channels))
        do {
            pipe = try WakePipe()
        } catch {
            throw .system(reason: error.description)
        }
    }

    deinit {
        pipe.close()
    }

    /// The descriptor to watch for `POLLIN`.
    var wakeDescriptor: Int32 { pipe.readDescriptor }

    /// Whether `stop()` was called.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// The channels wanted now.
    var channels: Set<String> { state.withLock { $0.channels } }

    /// Makes the thread's `poll` return.
    func wake() { pipe.wake() }

    /// Empties the pipe after a wake-up.
    func drain() { pipe.drain() }
}
