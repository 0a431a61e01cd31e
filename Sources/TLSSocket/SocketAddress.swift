import SocketSupport

#if canImport(Glibc)
public import Glibc  // sockaddr in withSockaddr(_:)
#elseif canImport(Darwin)
public import Darwin
#endif

/// One resolved address of a host, and the non-blocking TCP connect to it.
public struct SocketAddress {
    /// `AF_INET` or `AF_INET6`.
    public let family: Int32
    private let storage: sockaddr_storage
    private let length: socklen_t

    /// Resolves `host` with `getaddrinfo`, keeping the system's order (RFC 6724 preferences).
    ///
    /// This blocks the calling thread while the resolver works; a push provider connects to a handful of hosts,
    /// rarely, and keeps the connections for hours, so this happens about once per connection, not per request.
    /// - Parameters:
    ///   - host: name or address literal.
    ///   - port: TCP port (0 with `passive` for an ephemeral one).
    ///   - passive: addresses to listen on (`AI_PASSIVE`) rather than to connect to (`AI_ADDRCONFIG`: only
    ///     families this host has configured).
    /// - Throws: ``TLSSocketError`` from `getaddrinfo` (its code is the `EAI_*` result).
    public static func resolve(host: String, port: Int, passive: Bool = false) throws(TLSSocketError) -> [SocketAddress]
    {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = (passive ? AI_PASSIVE : AI_ADDRCONFIG) | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(host, String(port), &hints, &list)
        guard result == 0, let list else {
            throw TLSSocketError(
                function: "getaddrinfo", code: Int(result),
                message: "cannot resolve \(host): \(String(cString: gai_strerror(result)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            if let address = current.pointee.ai_addr,
                Int(current.pointee.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size
            {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(
                        from: UnsafeRawBufferPointer(start: address, count: Int(current.pointee.ai_addrlen)))
                }
                addresses.append(
                    SocketAddress(
                        family: current.pointee.ai_family, storage: storage,
                        length: current.pointee.ai_addrlen))
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// Opens a non-blocking, close-on-exec socket with TCP_NODELAY and starts connecting; completion is seen as
    /// `POLLOUT` (then ``TCPConnector/finish()`` reads the outcome).
    /// - Parameter keepAlive: seconds of silence before TCP keep-alive probes (tcp(7)); nil for none.
    /// - Returns: the socket, or the failure of `socket`/`fcntl`/`connect`.
    public func startConnect(keepAlive: Double?) -> Result<Int32, TLSSocketError> {
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return .failure(Self.error("socket")) }
        guard Posix.configure(descriptor) else {
            let failure = Self.error("fcntl")
            Posix.closeDescriptor(descriptor)
            return .failure(failure)
        }
        TCPOptions.disableNagle(descriptor)
        if let keepAlive {
            let idle = Int32(keepAlive.rounded(.up))
            TCPOptions.set(descriptor, SOL_SOCKET, SO_KEEPALIVE, 1)
            TCPOptions.set(descriptor, Int32(IPPROTO_TCP), TCP_KEEPIDLE, idle)
            TCPOptions.set(descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL, min(idle, 10))
        }
        let result = withSockaddr { connect(descriptor, $0, $1) }
        guard result == 0 || errno == EINPROGRESS else {
            let failure = Self.error("connect")
            Posix.closeDescriptor(descriptor)
            return .failure(failure)
        }
        return .success(descriptor)
    }

    /// Calls `body` with the address as `bind` and `connect` take it.
    public func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = storage
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// The local port a socket is bound to; 0 if unknown.
    public static func localPort(of descriptor: Int32) -> Int {
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
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            return 0
        }
    }

    private static func error(_ function: String) -> TLSSocketError {
        let code = errno
        return TLSSocketError(function: function, code: Int(code), message: Posix.message(code))
    }
}

/// Socket options both ends of an HTTP/2 connection set.
public enum TCPOptions {
    /// TCP_NODELAY: frames are written whole, one loop turn at a time, and latency matters more than segment
    /// count, so there is no reason to wait for more (Nagle's algorithm).
    public static func disableNagle(_ descriptor: Int32) {
        set(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    }

    /// Sets an integer option, best effort: a socket without the option still works.
    static func set(_ descriptor: Int32, _ level: Int32, _ option: Int32, _ value: Int32) {
        var value = value
        _ = setsockopt(descriptor, level, option, &value, socklen_t(MemoryLayout<Int32>.size))
    }
}

/// A non-blocking TCP connect that falls back to the host's next address when one fails (the order is
/// `getaddrinfo`'s, RFC 6724), as a client of a dual-stack host must (RFC 8305 §1, without the racing).
///
/// Thread-safety: a value owned by one loop thread.
public struct TCPConnector {
    /// The socket being connected; watch it for `POLLOUT`, then call ``finish()``. -1 once given up.
    public private(set) var descriptor: Int32 = -1
    private var addresses: [SocketAddress]
    private let keepAlive: Double?
    private let peer: String

    /// Resolves `host` and starts connecting to its first address that takes a `connect`.
    /// - Parameters:
    ///   - host: name or address literal.
    ///   - port: TCP port.
    ///   - peer: how messages name the peer (e.g. `api.push.apple.com:443`).
    ///   - keepAlive: TCP keep-alive idle seconds for every socket tried; nil for none.
    /// - Throws: ``TLSSocketError`` when the name does not resolve or no address takes a `connect`.
    public init(host: String, port: Int, peer: String, keepAlive: Double?) throws(TLSSocketError) {
        addresses = try SocketAddress.resolve(host: host, port: port)
        self.keepAlive = keepAlive
        self.peer = peer
        try connectNext(host: host)
    }

    /// How the connect ended, once the socket is writable.
    public enum Outcome {
        /// Connected: the socket now belongs to the caller.
        case connected(Int32)
        /// The next address is being tried: keep watching ``descriptor``.
        case retrying
        /// Every address failed; the error is the last refusal.
        case failed(TLSSocketError)
    }

    /// Reads the outcome of the connect in progress (`SO_ERROR`) and moves to the next address when it failed.
    public mutating func finish() -> Outcome {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { code = errno }
        guard code != 0 else {
            let connected = descriptor
            descriptor = -1
            return .connected(connected)
        }
        abandon()
        do {
            try connectNext(host: peer)
            return .retrying
        } catch {
            return .failed(
                TLSSocketError(function: "connect", code: Int(code), message: "\(Posix.message(code)) (\(peer))"))
        }
    }

    /// Closes the socket being connected, if any (the connect is given up).
    public mutating func abandon() {
        if descriptor >= 0 { Posix.closeDescriptor(descriptor) }
        descriptor = -1
    }

    private mutating func connectNext(host: String) throws(TLSSocketError) {
        var lastError = TLSSocketError(function: "getaddrinfo", code: 0, message: "no address for \(host)")
        while !addresses.isEmpty {
            switch addresses.removeFirst().startConnect(keepAlive: keepAlive) {
            case .success(let socket):
                descriptor = socket
                return
            case .failure(let error):
                lastError = error
            }
        }
        throw lastError
    }
}
