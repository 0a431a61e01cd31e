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
///
/// With a per-address cap (``WebServer/Configuration/maxConnectionsPerAddress``) a connection from an address
/// that already holds as many is closed as soon as it is accepted, before lws allocates anything for it, and
/// counted in a second report of its own. Without it ~1,100 slow connections from one peer exhausted the
/// descriptors and every other client waited.
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
    private var capReport: AcceptFailureReport
    private var budgetReport: AcceptFailureReport
    private var cap: PerAddressCap?
    private var budget: ConnectionBudget
    /// The address each counted connection was admitted under, by its lws connection (network wsi).
    private var countedConnections: [OpaquePointer: String] = [:]
    private var isShutDown = false

    /// - Parameters:
    ///   - listenDescriptor: A non-blocking listening socket; closed by ``close()``.
    ///   - reportInterval: Seconds between two log lines about failing or refused accepts.
    ///   - maxConnectionsPerAddress: The per-address cap, or nil for none.
    ///   - capsLoopback: Whether loopback peers count towards the cap.
    ///   - maxConnections: The connection budget (``ConnectionBudget``).
    init(
        listenDescriptor: Int32, reportInterval: Int, maxConnectionsPerAddress: Int? = nil, capsLoopback: Bool = false,
        maxConnections: Int
    ) {
        self.listenDescriptor = listenDescriptor
        reserveDescriptor = Self.openReserve()
        report = AcceptFailureReport(interval: reportInterval)
        capReport = AcceptFailureReport(interval: reportInterval, subject: "connection refused")
        budgetReport = AcceptFailureReport(interval: reportInterval, subject: "connection budget")
        cap = maxConnectionsPerAddress.map { PerAddressCap(limit: $0, capsLoopback: capsLoopback) }
        budget = ConnectionBudget(limit: maxConnections)
    }

    /// Accepts up to ``batch`` waiting connections, each handed to `adopt` (which owns it from then on).
    /// - Parameters:
    ///   - milliseconds: The current time on a monotonic clock, in milliseconds.
    ///   - adopt: Takes one accepted, non-blocking, close-on-exec descriptor; returns its lws connection, or nil
    ///     when it could not be adopted (then lws has closed it).
    ///   - shed: Closes a connection the budget gave up to make room (it is already forgotten here).
    func acceptPending(at milliseconds: Int, adopt: (Int32) -> OpaquePointer?, shed: (OpaquePointer) -> Void) -> Outcome
    {
        let second = milliseconds / 1000
        for _ in 0..<Self.batch {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let descriptor = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listenDescriptor, $0, &length) }
            }
            if descriptor >= 0 {
                var counted: String?
                if cap != nil {
                    let peer = Self.numericHost(address)
                    switch cap!.admit(peer) {
                    case .refused(let key):
                        Posix.closeDescriptor(descriptor)
                        let reason = "\(key) already holds \(cap!.limit) connections (the per-address cap)"
                        if let line = capReport.refused(because: reason, at: second) {
                            LibWebSocketsLog.report(.warning, line)
                        }
                        continue
                    case .counted(let key): counted = key
                    case .exempt: break
                    }
                }
                switch budget.admit(at: milliseconds) {
                case .admit:
                    break
                case .admitShedding(let victim):
                    if let wsi = OpaquePointer(bitPattern: victim) { shed(wsi) }
                    if let line = budgetReport.refused(
                        because: "shed the slowest or longest-idle connection to make room "
                            + "(\(budget.limit) connections, the budget)", at: second)
                    {
                        LibWebSocketsLog.report(.warning, line)
                    }
                case .refuse:
                    Posix.closeDescriptor(descriptor)
                    if let counted { cap?.release(counted) }
                    if let line = budgetReport.refused(
                        because: "every one of the \(budget.limit) connections of the budget "
                            + "is busy or long-lived; the new one was closed", at: second)
                    {
                        LibWebSocketsLog.report(.warning, line)
                    }
                    continue
                }
                guard Posix.configure(descriptor) else {
                    Posix.closeDescriptor(descriptor)
                    if let counted { cap?.release(counted) }
                    continue
                }
                var one: Int32 = 1
                // Answers are small and latency matters more than segment count.
                _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                let wsi = adopt(descriptor)
                if let wsi { budget.opened(UInt(bitPattern: wsi), at: milliseconds) }
                if let counted {
                    if let wsi { countedConnections[wsi] = counted } else { cap?.release(counted) }
                }
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

    /// A connection lws is freeing (`LWS_CALLBACK_WSI_DESTROY`): its address holds one fewer. Any other wsi
    /// (an HTTP/2 stream, a client) is not counted and ignored.
    func connectionClosed(_ wsi: OpaquePointer) {
        budget.closed(UInt(bitPattern: wsi))
        guard let address = countedConnections.removeValue(forKey: wsi) else { return }
        cap?.release(address)
    }

    /// Where a connection now stands for the budget (``ConnectionBudget/Standing``). An HTTP/2 stream or a client
    /// connection is not counted and is ignored.
    /// - Parameters:
    ///   - wsi: The connection's network wsi.
    ///   - standing: Its new standing.
    ///   - milliseconds: The current time on a monotonic clock, in milliseconds.
    func connection(_ wsi: OpaquePointer, is standing: ConnectionBudget.Standing, at milliseconds: Int) {
        budget.change(UInt(bitPattern: wsi), to: standing, at: milliseconds)
    }

    /// The numeric host of a peer address (IPv4 dotted or IPv6 text), `"?"` if it cannot be printed.
    private static func numericHost(_ address: sockaddr_storage) -> String {
        var address = address
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo(
                    $0, socklen_t(MemoryLayout<sockaddr_storage>.size), &host, socklen_t(host.count), nil, 0,
                    NI_NUMERICHOST)
            }
        }
        guard status == 0 else { return "?" }
        return String(decoding: host.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
