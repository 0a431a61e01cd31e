#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's listening TCP socket, opened by the wrapper rather than by lws so that the wrapper
/// does the `accept` and can survive descriptor exhaustion (``ConnectionAcceptor``).
enum ListenSocket {
    /// Binds and listens (non-blocking, close-on-exec, `SO_REUSEADDR`).
    /// - Parameters:
    ///   - host: A numeric IPv4/IPv6 address or a host name; `""`, `"0.0.0.0"` and `"*"` mean every
    ///     IPv4 interface, `"localhost"` means 127.0.0.1.
    ///   - port: TCP port; 0 picks a free one.
    ///   - backlog: Length of the kernel's queue of connections not yet accepted.
    /// - Returns: The descriptor and the bound port.
    /// - Throws: A description of the failing call and its `errno` text.
    static func open(
        host: String, port: Int, backlog: Int32 = 1024
    ) throws(ListenFailure) -> (descriptor: Int32, port: Int) {
        let name: String
        switch host {
        case "", "0.0.0.0", "*": name = "0.0.0.0"
        case "localhost": name = "127.0.0.1"
        default: name = host
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(name, String(port), &hints, &list)
        guard lookup == 0, let first = list else {
            throw ListenFailure(detail: "getaddrinfo \(name): \(String(cString: gai_strerror(lookup)))")
        }
        defer { freeaddrinfo(list) }
        let descriptor = socket(
            first.pointee.ai_family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ListenFailure(call: "socket") }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let failure = ListenFailure(call: "bind \(name):\(port)")
            close(descriptor)
            throw failure
        }
        guard listen(descriptor, backlog) == 0 else {
            let failure = ListenFailure(call: "listen")
            close(descriptor)
            throw failure
        }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let failure = ListenFailure(call: "getsockname")
            close(descriptor)
            throw failure
        }
        let bound = withUnsafePointer(to: &address) { pointer -> UInt16 in
            pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        // sin_port and sin6_port sit at the same offset, so this reads either family.
        return (descriptor, Int(bound))
    }
}

/// Why the listening socket could not be opened: the call and its `errno` text.
struct ListenFailure: Error {
    let detail: String

    init(detail: String) {
        self.detail = detail
    }

    /// Captures `errno` for `call`.
    init(call: String) {
        detail = "\(call): \(String(cString: strerror(errno)))"
    }
}
