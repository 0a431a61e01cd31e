internal import CCurl
import RingerSync
import Dispatch

/// Everything callers share with the loop thread: queued requests and cancellations, the shutdown flag,
/// and the multi handle used to wake the loop. One lock guards it all.
final class LoopMailbox: Sendable {
    /// What the loop thread takes in one go.
    struct Batch {
        var submissions: [PendingResponse]
        var cancellations: [PendingResponse]
        var isShuttingDown: Bool
    }

    private struct State {
        /// Only used here for `curl_multi_wakeup` (documented as callable from any thread); nil once the
        /// loop thread has begun `curl_multi_cleanup`, so no wake-up can touch a freed handle.
        var multi: UnsafeMutableRawPointer?
        var submissions: [PendingResponse] = []
        var cancellations: [PendingResponse] = []
        var isShuttingDown = false
    }

    private let state: LockedValue<State>
    /// Entered before the loop thread starts, left as its last act: `wait()` is the join.
    private let running = DispatchGroup()

    init(multi: UnsafeMutableRawPointer) {
        state = LockedValue(State(multi: multi))
    }

    /// The multi handle for the loop thread to drive; nil once retired. Loop thread only.
    func multiHandle() -> UnsafeMutableRawPointer? {
        state.withLock { $0.multi }
    }

    /// Queues a request for the loop thread.
    ///
    /// Only the first request of a batch wakes the loop: while the queue is not empty a wake-up is already
    /// on its way, and the loop takes the whole queue at once (one system call per batch, not per request).
    /// - Returns: false if the client is shutting down (the request was not queued).
    func submit(_ pending: PendingResponse) -> Bool {
        state.withLock { state in
            guard !state.isShuttingDown, let multi = state.multi else { return false }
            state.submissions.append(pending)
            if state.submissions.count == 1 && state.cancellations.isEmpty {
                Self.wake(multi)
            }
            return true
        }
    }

    /// Asks the loop thread to abandon a request whose task was cancelled.
    func cancel(_ pending: PendingResponse) {
        // The flag covers a cancellation that overtakes the submission; the queue entry covers a
        // request that is already on the wire.
        pending.markCancelled()
        state.withLock { state in
            guard !state.isShuttingDown, let multi = state.multi else { return }
            state.cancellations.append(pending)
            if state.cancellations.count == 1 && state.submissions.isEmpty {
                Self.wake(multi)
            }
        }
    }

    /// Tells the loop thread to fail all requests and exit; later submissions are refused.
    func requestShutdown() {
        state.withLock { state in
            state.isShuttingDown = true
            if let multi = state.multi {
                Self.wake(multi)
            }
        }
    }

    /// Empties the queues. Loop thread only.
    func takeBatch() -> Batch {
        state.withLock { state in
            defer {
                state.submissions.removeAll()
                state.cancellations.removeAll()
            }
            return Batch(submissions: state.submissions, cancellations: state.cancellations,
                         isShuttingDown: state.isShuttingDown)
        }
    }

    /// Stops further wake-ups before the loop thread frees the multi handle. Loop thread only.
    func retireMultiHandle() {
        state.withLock { $0.multi = nil }
    }

    /// Marks the loop thread as started; call before starting it.
    func loopWillStart() {
        running.enter()
    }

    /// Marks the loop thread as finished; its last call.
    func loopDidExit() {
        running.leave()
    }

    /// Blocks until the loop thread has exited (at once if it already has).
    func waitForLoopExit() {
        running.wait()
    }

    private static func wake(_ multi: UnsafeMutableRawPointer) {
        // A failed wake-up is harmless: the loop also polls on a short timer (MultiLoop.pollIntervalMs).
        _ = curl_multi_wakeup(multi)
    }
}
