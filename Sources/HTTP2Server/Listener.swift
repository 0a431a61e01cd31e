#if canImport(Glibc)
import SocketSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bound, listening, non-blocking TCP socket.
struct Listener {
    /// The listening socket.
    let descriptor: Int32
    /// The port actually bound (the ephemeral one when 0 was asked for).
    let port: Int

    /// Resolves `host`, then binds and listens on the first address that works.
    /// - Parameters:
    ///   - host: Numeric address or name.
    ///   - port: Port, 0 for ephemeral.
    /// - Throws: ``HTTP2ServerError/socket(function:errno:message:)`` from the last failing call.
    static func open(host: String, port: Int) throws -> Listener {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var addresses: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(host, String(port), &hints, &addresses)
        guard lookup == 0, let first = addresses else {
            throw HTTP2ServerError.socket(function: "getaddrinfo", errno: lookup,
                                          message: "\(String(cString: gai_strerror(lookup))) (host \(host))")
        }
        defer { freeaddrinfo(first) }
        var failure = HTTP2ServerError.socket(function: "getaddrinfo", errno: 0, message: "no address for \(host)")
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let address = cursor {
            cursor = address.pointee.ai_next
            do {
                return try bindAndListen(address.pointee, host: host, port: port)
            } catch {
                if let error = error as? HTTP2ServerError { failure = error }
            }
        }
        throw failure
    }

    /// Closes the socket; call once, after the accept thread stopped.
    func close() {
        Posix.closeDescriptor(descriptor)
    }

    private static func bindAndListen(_ address: addrinfo, host: String, port: Int) throws -> Listener {
        let descriptor = socket(address.ai_family, address.ai_socktype, address.ai_protocol)
        guard descriptor >= 0 else { throw failure("socket", host: host, port: port) }
        var succeeded = false
        defer { if !succeeded { Posix.closeDescriptor(descriptor) } }
        // Lets a restarted server bind the port while old connections sit in TIME_WAIT.
        var one: Int32 = 1
        guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw failure("setsockopt", host: host, port: port)
        }
        guard bind(descriptor, address.ai_addr, address.ai_addrlen) == 0 else {
            throw failure("bind", host: host, port: port)
        }
        guard listen(descriptor, 128) == 0 else { throw failure("listen", host: host, port: port) }
        guard Posix.configure(descriptor) else { throw failure("fcntl", host: host, port: port) }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw failure("getsockname", host: host, port: port) }
        let family = Int32(bound.ss_family)
        let boundPort: UInt16 = withUnsafePointer(to: &bound) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
        }
        succeeded = true
        return Listener(descriptor: descriptor, port: Int(UInt16(bigEndian: boundPort)))
    }

    private static func failure(_ function: String, host: String, port: Int) -> HTTP2ServerError {
        let code = errno
        return HTTP2ServerError.socket(function: function, errno: code, message: "\(Posix.message(code)) (\(host) port \(port))")
    }
}
