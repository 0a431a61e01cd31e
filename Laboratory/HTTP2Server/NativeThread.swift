import SocketSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A joinable POSIX thread. The server uses real threads, not Swift tasks, for the accept loop and the
/// connection loops because they block in `poll`.
struct NativeThread: Sendable {
    private let handle: pthread_t

    /// Starts `body` on a new thread.
    /// - Parameter body: The thread's work; it owns whatever it captured.
    /// - Returns: The thread, or nil when `pthread_create` fails (the failure's `errno` is returned instead).
    static func start(_ body: @escaping () -> Void) -> Result<NativeThread, HTTP2ServerError> {
        let start = Unmanaged.passRetained(ThreadStart(body)).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, runNativeThread, start)
        guard result == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(start).release()
            return .failure(.socket(function: "pthread_create", errno: result, message: Posix.message(result)))
        }
        return .success(NativeThread(handle: handle))
    }

    /// Waits for the thread to finish. Never call it from the thread itself.
    func join() {
        pthread_join(handle, nil)
    }

    /// Lets the calling thread release its resources on exit because nobody will join it.
    static func detachCurrent() {
        pthread_detach(pthread_self())
    }
}

/// The closure a new thread runs, carried through `pthread_create`'s argument.
final class ThreadStart {
    let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
    }
}

/// `pthread_create`'s entry point: runs the ``ThreadStart`` and releases it.
func runNativeThread(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    let start = Unmanaged<ThreadStart>.fromOpaque(argument).takeRetainedValue()
    start.body()
    return nil
}
