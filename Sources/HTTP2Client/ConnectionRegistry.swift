internal import CCurl
import Foundation
import RingerSync
#if canImport(Glibc)
import Glibc
#endif

/// The TCP connections libcurl has open for one client, learnt from its socket callbacks, and when each last
/// carried an answer.
///
/// It lets the loop close a connection that stays silent: libcurl 7.88 has no call to close one busy HTTP/2
/// connection, so the loop shuts its socket down (`shutdown(2)`, not `close`: libcurl still owns the
/// descriptor and closes it through ``connectionClosedCallback``). libcurl then sees the connection as dead,
/// fails the streams still on it and never reuses it. It also tells the loop when a connection has not yet
/// answered anything, i.e. when the server's SETTINGS may not have been read yet (see
/// ``MultiLoop``'s stream cap).
///
/// Thread-safety: used on the loop thread only (libcurl calls the socket callbacks from inside its
/// functions on that thread); the statistics box is the only shared part.
final class ConnectionRegistry {
    /// How long a new connection may stay unconfirmed before the loop stops waiting for its first answer.
    static let warmUpLimit: Duration = .seconds(2)

    private struct Socket {
        let openedAt: ContinuousClock.Instant
        /// Learnt with getsockname once the socket is connected.
        var port: Int?
        var lastAnswer: ContinuousClock.Instant?
    }

    private var sockets: [Int32: Socket] = [:]
    private var socketByPort: [Int: Int32] = [:]
    private let statistics: LockedValue<HTTP2Client.Statistics>

    init(statistics: LockedValue<HTTP2Client.Statistics>) {
        self.statistics = statistics
    }

    /// A socket libcurl created for a connection (`CURLOPT_SOCKOPTFUNCTION`).
    func opened(_ descriptor: Int32) {
        sockets[descriptor] = Socket(openedAt: .now)
        statistics.withLock { $0.connectionsOpened += 1 }
    }

    /// A socket libcurl is about to close (`CURLOPT_CLOSESOCKETFUNCTION`).
    func closing(_ descriptor: Int32) {
        guard let socket = sockets.removeValue(forKey: descriptor) else { return }
        if let port = socket.port {
            socketByPort[port] = nil
        }
    }

    /// Records that the connection on `localPort` just completed a response.
    func noteAnswer(localPort: Int) {
        // Read, change, write back: an in-place `sockets[descriptor]?.lastAnswer = …` allocates its
        // accessor's frame on the heap, once per answer.
        guard let descriptor = descriptor(localPort: localPort), var socket = sockets[descriptor] else { return }
        socket.lastAnswer = .now
        sockets[descriptor] = socket
    }

    /// True when the connection on `localPort` is open and completed no response since `instant`.
    func isSilent(localPort: Int, since instant: ContinuousClock.Instant) -> Bool {
        guard let descriptor = descriptor(localPort: localPort), let socket = sockets[descriptor] else { return false }
        guard let last = socket.lastAnswer else { return true }
        return last < instant
    }

    /// True while a connection opened less than ``warmUpLimit`` ago has not answered yet.
    func isWarmingUp(at now: ContinuousClock.Instant) -> Bool {
        sockets.values.contains { $0.lastAnswer == nil && now - $0.openedAt < Self.warmUpLimit }
    }

    /// Corks or uncorks every connection (`TCP_CORK`, tcp(7)).
    ///
    /// libcurl 7.88 writes each HTTP/2 frame as its own TLS record with its own `send`, and TCP_NODELAY (its
    /// default) puts each on the wire as its own segment: a request's HEADERS, its DATA, and the RST_STREAM
    /// 7.88 sends after every answered stream are three packets. Corked while `curl_multi_perform` runs, the
    /// kernel packs everything one loop turn writes into full segments; uncorking sends the rest at once,
    /// so nothing waits longer than that turn. Fewer packets cost less on both ends of the connection.
    /// - Parameter corked: true before `curl_multi_perform`, false after it.
    func setCorked(_ corked: Bool) {
        var value: Int32 = corked ? 1 : 0
        for descriptor in sockets.keys {
            // Harmless if it fails (a socket being torn down): data is then sent uncorked, as before.
            _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Shuts the connection on `localPort` down, so libcurl drops it.
    /// - Returns: true when such a connection was open.
    @discardableResult
    func recycle(localPort: Int) -> Bool {
        guard let descriptor = descriptor(localPort: localPort) else { return false }
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
        statistics.withLock { $0.connectionsRecycled += 1 }
        return true
    }

    /// The socket bound to `localPort`, learning the ports of newly connected sockets on a miss.
    private func descriptor(localPort: Int) -> Int32? {
        guard localPort != 0 else { return nil }
        if let descriptor = socketByPort[localPort] { return descriptor }
        for (descriptor, socket) in sockets where socket.port == nil {
            guard let port = Self.localPort(of: descriptor) else { continue }
            sockets[descriptor]?.port = port
            socketByPort[port] = descriptor
        }
        return socketByPort[localPort]
    }

    /// The local TCP port a socket is bound to, or nil when it has none yet.
    private static func localPort(of descriptor: Int32) -> Int? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return nil }
        let port: UInt16
        switch Int32(address.ss_family) {
        case AF_INET:
            port = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port } }
        case AF_INET6:
            port = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port } }
        default:
            return nil
        }
        let value = Int(UInt16(bigEndian: port))
        return value == 0 ? nil : value
    }
}

// libcurl calls these on the loop thread; `clientp` is the unretained ConnectionRegistry, which the loop keeps
// alive until after curl_multi_cleanup (the last point where libcurl closes sockets).

/// `CURLOPT_SOCKOPTFUNCTION`: a new socket, before it connects.
func connectionOpenedCallback(_ clientp: UnsafeMutableRawPointer?, _ descriptor: curl_socket_t, _ purpose: curlsocktype) -> Int32 {
    if let clientp, purpose == CURLSOCKTYPE_IPCXN {
        Unmanaged<ConnectionRegistry>.fromOpaque(clientp).takeUnretainedValue().opened(descriptor)
    }
    return CURL_SOCKOPT_OK
}

/// `CURLOPT_CLOSESOCKETFUNCTION`: libcurl is done with a socket; closing it is now this callback's job.
func connectionClosedCallback(_ clientp: UnsafeMutableRawPointer?, _ descriptor: curl_socket_t) -> Int32 {
    if let clientp {
        Unmanaged<ConnectionRegistry>.fromOpaque(clientp).takeUnretainedValue().closing(descriptor)
    }
    return close(descriptor)
}
