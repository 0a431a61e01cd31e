#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small POSIX helpers shared by the listener, the wake pipes and the connection threads.
enum Posix {
    /// `strerror` text for an `errno` value.
    static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Closes a descriptor, ignoring the result (there is nothing useful to do when `close` fails).
    static func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    /// Makes a descriptor non-blocking and close-on-exec (so child processes never inherit sockets).
    /// - Returns: `false` when `fcntl` fails.
    @discardableResult
    static func configure(_ descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { return false }
        let descriptorFlags = fcntl(descriptor, F_GETFD)
        return descriptorFlags >= 0 && fcntl(descriptor, F_SETFD, descriptorFlags | FD_CLOEXEC) == 0
    }

    /// Blocks SIGPIPE for the calling thread only. A write to a socket the peer closed then fails with
    /// EPIPE instead of killing the process; the pending signal stays with this thread and dies with it.
    static func blockBrokenPipeSignal() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Milliseconds for `poll` until `deadline` (rounded up, at least 0), or -1 (wait forever) for nil.
    static func pollTimeout(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let remaining = ContinuousClock.now.duration(to: deadline)
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}

/// A non-blocking self-pipe that makes a thread's `poll` return when another thread has work for it.
///
/// Thread-safety: ``wake()`` may be called from any thread while the pipe is open; the owner closes it once,
/// after every other thread has stopped using it (callers guard that with their own lock or a thread join).
final class WakePipe {
    /// The end to watch for `POLLIN`.
    let readDescriptor: Int32
    private let writeDescriptor: Int32

    /// Opens the pipe.
    /// - Throws: ``HTTP2ServerError/socket(function:errno:message:)`` when `pipe` or `fcntl` fails.
    init() throws {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            let code = errno
            throw HTTP2ServerError.socket(function: "pipe", errno: code, message: Posix.message(code))
        }
        guard Posix.configure(descriptors[0]), Posix.configure(descriptors[1]) else {
            let code = errno
            Posix.closeDescriptor(descriptors[0])
            Posix.closeDescriptor(descriptors[1])
            throw HTTP2ServerError.socket(function: "fcntl", errno: code, message: Posix.message(code))
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    /// Makes the read end readable. A full pipe is already readable, so EAGAIN is fine to ignore.
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe so the next `poll` waits again.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
    }

    /// Closes both ends; call exactly once.
    func close() {
        Posix.closeDescriptor(readDescriptor)
        Posix.closeDescriptor(writeDescriptor)
    }
}
