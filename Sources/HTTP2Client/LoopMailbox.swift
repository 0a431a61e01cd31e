import Dispatch
import RingerSupport
import SocketSupport

/// Everything callers share with the loop thread: queued requests and cancellations, the shutdown flag, and
/// the wake pipe that ends the loop's `poll`, under one lock; and, under its own, the stream capacity the loop
/// last published.
final class LoopMailbox: Sendable {
    /// What the loop thread takes in one go.
    struct Batch {
        var submissions: [PendingResponse]
        var cancellations: [PendingResponse]
        var isShuttingDown: Bool
    }

    private struct State {
        /// Nil once the loop thread has exited and closed it, so no wake-up can touch a closed descriptor.
        var pipe: WakePipe?
        var submissions: [PendingResponse] = []
        var cancellations: [PendingResponse] = []
        var isShuttingDown = false
    }

    /// The descriptor the loop polls for `POLLIN`.
    let wakeDescriptor: Int32
    private let state: LockedValue<State>
    /// Kept apart from ``state``, which every submission takes: the pool reads this for every request.
    private let capacity = LockedValue(1)
    /// Entered before the loop thread starts, left as its last act: `wait()` is the join.
    private let running = DispatchGroup()

    /// Opens the wake pipe.
    /// - Throws: ``HTTP2ClientError/transport(function:code:message:)`` when `pipe` fails.
    init() throws(HTTP2ClientError) {
        let pipe: WakePipe
        do {
            pipe = try WakePipe()
        } catch {
            throw .transport(function: error.function, code: Int(error.code), message: Posix.message(error.code))
        }
        wakeDescriptor = pipe.readDescriptor
        state = LockedValue(State(pipe: pipe))
    }

    /// Queues a request for the loop thread.
    ///
    /// Only the first request of a batch wakes the loop: while the queue is not empty a wake-up is already on
    /// its way, and the loop takes the whole queue at once (one system call per batch, not per request).
    /// - Returns: false if the client is shutting down (the request was not queued).
    func submit(_ pending: PendingResponse) -> Bool {
        state.withLock { state in
            guard !state.isShuttingDown, let pipe = state.pipe else { return false }
            state.submissions.append(pending)
            if state.submissions.count == 1 && state.cancellations.isEmpty { pipe.wake() }
            return true
        }
    }

    /// Asks the loop thread to abandon a request whose task was cancelled.
    func cancel(_ pending: PendingResponse) {
        // The flag covers a cancellation that overtakes the submission; the queue entry covers a request
        // that is already on the wire.
        pending.markCancelled()
        state.withLock { state in
            guard !state.isShuttingDown, let pipe = state.pipe else { return }
            state.cancellations.append(pending)
            if state.cancellations.count == 1 && state.submissions.isEmpty { pipe.wake() }
        }
    }

    /// Tells the loop thread to fail all requests and exit; later submissions are refused.
    func requestShutdown() {
        state.withLock { state in
            state.isShuttingDown = true
            state.pipe?.wake()
        }
    }

    /// Empties the queues, and the wake pipe when `poll` found it readable. Loop thread only.
    func takeBatch(drainingWakePipe: Bool) -> Batch {
        state.withLock { state in
            if drainingWakePipe { state.pipe?.drain() }
            defer {
                state.submissions.removeAll()
                state.cancellations.removeAll()
            }
            return Batch(
                submissions: state.submissions, cancellations: state.cancellations,
                isShuttingDown: state.isShuttingDown)
        }
    }

    /// Publishes what ``streamCapacity`` reports. Loop thread only, once per loop turn.
    func publish(streamCapacity: Int) {
        capacity.withLock { if $0 != streamCapacity { $0 = streamCapacity } }
    }

    /// Requests the loop's connections could carry at once when it last looked (``ClientLoop``): the sum of
    /// their stream limits; 1 while no connection has the server's SETTINGS yet (the client does not know the
    /// limit, and nghttp2 would open one stream); 0 while reconnects back off after a failure.
    var streamCapacity: Int { capacity.withLock { $0 } }

    /// Closes the wake pipe as the loop thread exits. Loop thread only.
    func retire() {
        state.withLock { state in
            state.pipe?.close()
            state.pipe = nil
        }
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
}
