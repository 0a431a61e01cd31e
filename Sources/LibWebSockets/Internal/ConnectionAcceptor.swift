import SocketSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Accepts the server's TCP connections on the service thread and hands each to lws; survives
/// descriptor exhaustion without spinning. Service thread only.
///
/// lws 4.1.6's own listener logs and returns on every failed `accept`, and the still-readable listener
/// wakes it again at once: out of descriptors it spun at 100% CPU writing ~13,000 lines a second. Here,
/// on EMFILE/ENFILE the acceptor frees a reserve descriptor, accepts the waiting connection and closes
/// it at once (the peer sees the close instead of waiting in the backlog), and takes the reserve
/// back; when even that fails it asks its owner to pause accepting for a moment. Failures are logged
/// through ``AcceptFailureReport``: one line per interval.
final class ConnectionAcceptor {
    /// What the owner should do after ``acceptPending(at:adopt:)``.
    enum Outcome: Equatable {
        /// Keep watching the listener.
        case keepWatching
        /// Stop watching the listener for a moment (descriptors are exhausted and no reserve is left).
        case pause
    }

    /// Connections accepted per readiness event, so a connection storm leaves the loop room for the
    /// sockets it already serves (the listener stays readable and comes round again).
    static let batch = 64

    let listenDescriptor: Int32
    private var reserveDescriptor: Int32
    private var report: AcceptFailureReport
    private var isShutDown = false

    /// - Parameters:
    ///   - listenDescriptor: A non-blocking listening socket; closed by ``close()``.
    ///   - reportInterval: Seconds between two log lines about failing accepts.
    init(listenDescriptor: Int32, reportInterval: Int) {
        self.listenDescriptor = listenDescriptor
        reserveDescriptor = Self.openReserve()
        report = AcceptFailureReport(interval: reportInterval)
    }

    /// Accepts up to ``batch`` waiting connections, each handed to `adopt` (which owns it from then on).
    /// - Parameters:
    ///   - second: The current second of a monotonic clock (for the failure report).
    ///   - adopt: Takes one accepted, non-blocking, close-on-exec descriptor.
    func acceptPending(at second: Int, adopt: (Int32) -> Void) -> Outcome {
        for _ in 0..<Self.batch {
            let descriptor = accept(listenDescriptor, nil, nil)
            if descriptor >= 0 {
                guard Posix.configure(descriptor) else {
                    Posix.closeDescriptor(descriptor)
                    continue
                }
                var one: Int32 = 1
                // Answers are small and latency matters more than segment count.
                _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                adopt(descriptor)
                continue
            }
            let code = errno
            switch code {
            case EAGAIN, EWOULDBLOCK:
                return .keepWatching
            case EINTR, ECONNABORTED, EPROTO:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                let reason = "\(Self.name(of: code)) (\(String(cString: strerror(code))))"
                if let line = report.refused(because: reason, at: second) { LibWebSocketsLog.report(.error, line) }
                guard shedOne() else { return .pause }
            default:
                if let line = report.refused(because: String(cString: strerror(code)), at: second) {
                    LibWebSocketsLog.report(.error, line)
                }
                return .pause
            }
        }
        return .keepWatching
    }

    /// Closes the listener and the reserve. Idempotent: the shutdown closes the listener early (new
    /// connections are refused at once rather than wait in the backlog) and again at the end.
    func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        Posix.closeDescriptor(listenDescriptor)
        if reserveDescriptor >= 0 { Posix.closeDescriptor(reserveDescriptor) }
        reserveDescriptor = -1
    }

    /// Spends the reserve descriptor on accepting one waiting connection and closing it.
    /// - Returns: `false` when there was no reserve to spend or no connection could be taken.
    private func shedOne() -> Bool {
        guard reserveDescriptor >= 0 else {
            reserveDescriptor = Self.openReserve()
            return false
        }
        Posix.closeDescriptor(reserveDescriptor)
        let descriptor = accept(listenDescriptor, nil, nil)
        if descriptor >= 0 { Posix.closeDescriptor(descriptor) }
        reserveDescriptor = Self.openReserve()
        return descriptor >= 0 && reserveDescriptor >= 0
    }

    private static func openReserve() -> Int32 {
        open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    private static func name(of code: Int32) -> String {
        switch code {
        case EMFILE: return "EMFILE"
        case ENFILE: return "ENFILE"
        case ENOBUFS: return "ENOBUFS"
        case ENOMEM: return "ENOMEM"
        default: return "errno \(code)"
        }
    }
}
