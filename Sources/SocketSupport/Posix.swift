#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX call that failed: the function and its `errno`.
public struct PosixError: Error, Equatable, CustomStringConvertible {
    /// The C function that failed, e.g. `pipe`.
    public let function: String
    /// Its `errno`.
    public let code: Int32

    /// Captures the current `errno` for `function`.
    /// - Parameter function: The C function that just failed.
    public init(_ function: String) {
        self.function = function
        code = errno
    }

    /// `function: strerror(code)`.
    public var description: String {
        "\(function): \(Posix.message(code))"
    }
}

/// Small POSIX helpers for the socket loops of the HTTP/2 server and client: descriptors, signals, poll timeouts.
public enum Posix {
    /// `strerror` text for an `errno` value.
    public static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Closes a descriptor, ignoring the result (there is nothing useful to do when `close` fails).
    public static func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    /// Makes a descriptor non-blocking and close-on-exec (so child processes never inherit sockets).
    /// - Returns: `false` when `fcntl` fails.
    @discardableResult
    public static func configure(_ descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else { return false }
        let descriptorFlags = fcntl(descriptor, F_GETFD)
        return descriptorFlags >= 0 && fcntl(descriptor, F_SETFD, descriptorFlags | FD_CLOEXEC) == 0
    }

    /// Blocks SIGPIPE for the calling thread only. A write to a socket the peer closed then fails with
    /// EPIPE instead of killing the process; the pending signal stays with this thread and dies with it.
    public static func blockBrokenPipeSignal() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Milliseconds for `poll` until `deadline` (rounded up, at least 0), or -1 (wait forever) for nil.
    public static func pollTimeout(until deadline: ContinuousClock.Instant?) -> Int32 {
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
public final class WakePipe {
    /// The end to watch for `POLLIN`.
    public let readDescriptor: Int32
    private let writeDescriptor: Int32

    /// Opens the pipe.
    /// - Throws: ``PosixError`` when `pipe` or `fcntl` fails.
    public init() throws(PosixError) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw PosixError("pipe")
        }
        guard Posix.configure(descriptors[0]), Posix.configure(descriptors[1]) else {
            let failure = PosixError("fcntl")
            Posix.closeDescriptor(descriptors[0])
            Posix.closeDescriptor(descriptors[1])
            throw failure
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    /// Makes the read end readable. A full pipe is already readable, so EAGAIN is fine to ignore.
    public func wake() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe so the next `poll` waits again.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
    }

    /// Closes both ends; call exactly once.
    public func close() {
        Posix.closeDescriptor(readDescriptor)
        Posix.closeDescriptor(writeDescriptor)
    }
}
