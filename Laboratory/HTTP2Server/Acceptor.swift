import RingerSupport
import SocketSupport
import TLSSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The accept thread's work: waits on the listening socket and a wake pipe, and hands each new TCP
/// connection to ``ServerContext/startConnection(descriptor:)``.
///
/// Thread-safety: ``run()`` runs on the accept thread; ``stop()`` may be called from any thread, once,
/// followed by a join of that thread and then ``close()``.
final class Acceptor: Sendable {
    private let listenerDescriptor: Int32
    private let context: ServerContext
    // Written by stop() from another thread; the pipe stays open until close(), after the join.
    private let wakePipe: LockedValue<WakePipe>
    private let wakeDescriptor: Int32

    init(listener: Listener, context: ServerContext) throws {
        let pipe = try HTTP2ServerError.wrapping { () throws(PosixError) in try WakePipe() }
        listenerDescriptor = listener.descriptor
        wakeDescriptor = pipe.readDescriptor
        wakePipe = LockedValue(pipe)
        self.context = context
    }

    /// The accept loop; returns after ``stop()``.
    func run() {
        var descriptors = [
            pollfd(fd: listenerDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        var retryAfterFailure = false
        while true {
            // After EMFILE and the like the listener stays readable; back off instead of spinning.
            let ready = poll(&descriptors, 2, retryAfterFailure ? 100 : -1)
            if ready < 0, errno != EINTR { return }
            if descriptors[1].revents != 0 { return }
            retryAfterFailure = false
            while true {
                let descriptor = accept(listenerDescriptor, nil, nil)
                if descriptor < 0 {
                    let code = errno
                    if code == EINTR || code == ECONNABORTED { continue }
                    retryAfterFailure = code != EAGAIN && code != EWOULDBLOCK
                    break
                }
                guard Posix.configure(descriptor) else {
                    Posix.closeDescriptor(descriptor)
                    continue
                }
                TCPOptions.disableNagle(descriptor)
                context.startConnection(descriptor: descriptor)
            }
        }
    }

    /// Asks ``run()`` to return.
    func stop() {
        wakePipe.withLock { $0.wake() }
    }

    /// Closes the wake pipe; call after the accept thread was joined.
    func close() {
        wakePipe.withLock { $0.close() }
    }
}
