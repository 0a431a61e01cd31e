import Foundation
import SocketSupport
#if canImport(Glibc)
import Glibc
#endif

/// One resolved address of a host, and the non-blocking TCP connect to it.
struct SocketAddress {
    private let family: Int32
    private let storage: sockaddr_storage
    private let length: socklen_t

    /// Resolves `host` with `getaddrinfo`, keeping the system's order (RFC 6724 preferences).
    ///
    /// This blocks the loop thread while the resolver works; a push provider connects to a handful of hosts,
    /// rarely, and keeps the connections for hours, so this happens about once per connection, not per request.
    /// - Throws: ``HTTP2ClientError/transport(function:code:message:)`` from `getaddrinfo`.
    static func resolve(host: String, port: Int) throws(HTTP2ClientError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(host, String(port), &hints, &list)
        guard result == 0, let list else {
            throw .transport(function: "getaddrinfo", code: Int(result),
                             message: "cannot resolve \(host): \(String(cString: gai_strerror(result)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let address = current.pointee.ai_addr, Int(current.pointee.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen)))
                }
                addresses.append(SocketAddress(family: current.pointee.ai_family, storage: storage,
                                               length: current.pointee.ai_addrlen))
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// Opens a non-blocking socket and starts connecting; completion is seen as `POLLOUT`.
    /// - Parameter keepAlive: seconds of silence before TCP keep-alive probes (tcp(7)); nil for none.
    /// - Returns: the socket, or the failure of `socket`/`connect`.
    func startConnect(keepAlive: TimeInterval?) -> Result<Int32, HTTP2ClientError> {
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return .failure(Self.error("socket")) }
        guard Posix.configure(descriptor) else {
            let failure = Self.error("fcntl")
            Posix.closeDescriptor(descriptor)
            return .failure(failure)
        }
        // Requests are written whole, one loop turn at a time: no reason to wait for more (Nagle).
        Self.set(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        if let keepAlive {
            let idle = Int32(keepAlive.rounded(.up))
            Self.set(descriptor, SOL_SOCKET, SO_KEEPALIVE, 1)
            Self.set(descriptor, Int32(IPPROTO_TCP), TCP_KEEPIDLE, idle)
            Self.set(descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL, min(idle, 10))
        }
        var address = storage
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        guard result == 0 || errno == EINPROGRESS else {
            let failure = Self.error("connect")
            Posix.closeDescriptor(descriptor)
            return .failure(failure)
        }
        return .success(descriptor)
    }

    /// The local port a connected socket is bound to; 0 if unknown.
    static func localPort(of descriptor: Int32) -> Int {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { return 0 }
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        default:
            return 0
        }
    }

    private static func set(_ descriptor: Int32, _ level: Int32, _ option: Int32, _ value: Int32) {
        var value = value
        // Best effort: a socket without the option still works.
        _ = setsockopt(descriptor, level, option, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    private static func error(_ function: String) -> HTTP2ClientError {
        let code = errno
        return .transport(function: function, code: Int(code), message: Posix.message(code))
    }
}
