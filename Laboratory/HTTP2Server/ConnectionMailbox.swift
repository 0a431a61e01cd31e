import RingerHTTP
import RingerSupport
import SocketSupport

/// What other threads hand to one connection's thread: handler results, new settings, stop requests.
///
/// Thread-safety: every method may be called from any thread. Posting writes the wake pipe the connection
/// thread polls; after ``close()`` posts are dropped, and the lock guarantees no post writes to a pipe
/// descriptor that was closed (and possibly reused).
final class ConnectionMailbox: Sendable {
    /// How a connection should end.
    enum Command: Sendable {
        /// Server shutdown: GOAWAY and close_notify on a best-effort basis, then close.
        case stop
        /// Fault injection: close the TCP connection at once, no GOAWAY, no close_notify.
        case abort
    }

    /// Everything posted since the last ``take()``.
    struct Delivery {
        var responses: [(streamID: Int32, response: HTTPResponse)] = []
        var maxConcurrentStreams: Int?
        var command: Command?
    }

    private struct State {
        var delivery = Delivery()
        var pipe: WakePipe?
    }

    /// The descriptor the connection thread polls for `POLLIN`.
    let wakeDescriptor: Int32
    private let state: LockedValue<State>

    /// Opens the wake pipe.
    /// - Throws: ``HTTP2ServerError`` when `pipe` fails.
    init() throws {
        let pipe = try HTTP2ServerError.wrapping { () throws(PosixError) in try WakePipe() }
        wakeDescriptor = pipe.readDescriptor
        state = LockedValue(State(pipe: pipe))
    }

    /// Queues a handler's response for a stream.
    /// Only the first post since the last ``take()`` writes the wake pipe: the connection thread takes
    /// everything at once, so one wake-up per batch is enough (a write per response showed in profiles).
    func post(_ response: HTTPResponse, streamID: Int32) {
        state.withLock { state in
            guard let pipe = state.pipe else { return }
            state.delivery.responses.append((streamID, response))
            if state.delivery.responses.count == 1 && state.delivery.maxConcurrentStreams == nil
                && state.delivery.command == nil
            {
                pipe.wake()
            }
        }
    }

    /// Asks the connection to send SETTINGS_MAX_CONCURRENT_STREAMS = `value`.
    func post(maxConcurrentStreams value: Int) {
        state.withLock { state in
            guard let pipe = state.pipe else { return }
            state.delivery.maxConcurrentStreams = value
            pipe.wake()
        }
    }

    /// Asks the connection to end; an abort is never downgraded to a stop.
    func post(_ command: Command) {
        state.withLock { state in
            guard let pipe = state.pipe else { return }
            if state.delivery.command != .abort { state.delivery.command = command }
            pipe.wake()
        }
    }

    /// Empties the wake pipe and returns what was posted; connection thread only.
    func take() -> Delivery {
        state.withLock { state in
            state.pipe?.drain()
            let delivery = state.delivery
            state.delivery = Delivery()
            return delivery
        }
    }

    /// Closes the pipe and drops what is queued; connection thread only, once, when it is done.
    func close() {
        state.withLock { state in
            state.pipe?.close()
            state.pipe = nil
            state.delivery = Delivery()
        }
    }
}
