import TLSSocket

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
        let addresses: [SocketAddress]
        do {
            addresses = try SocketAddress.resolve(host: host, port: port, passive: true)
        } catch {
            throw HTTP2ServerError.socket(
                function: error.function, errno: Int32(clamping: error.code), message: error.message)
        }
        var failure = HTTP2ServerError.socket(function: "getaddrinfo", errno: 0, message: "no address for \(host)")
        for address in addresses {
            do {
                return try bindAndListen(address, host: host, port: port)
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

    private static func bindAndListen(_ address: SocketAddress, host: String, port: Int) throws -> Listener {
        let descriptor = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw failure("socket", host: host, port: port) }
        var succeeded = false
        defer { if !succeeded { Posix.closeDescriptor(descriptor) } }
        // Lets a restarted server bind the port while old connections sit in TIME_WAIT.
        var one: Int32 = 1
        guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw failure("setsockopt", host: host, port: port)
        }
        guard address.withSockaddr({ bind(descriptor, $0, $1) }) == 0 else {
            throw failure("bind", host: host, port: port)
        }
        guard listen(descriptor, 128) == 0 else { throw failure("listen", host: host, port: port) }
        guard Posix.configure(descriptor) else { throw failure("fcntl", host: host, port: port) }
        let boundPort = SocketAddress.localPort(of: descriptor)
        guard boundPort > 0 else { throw failure("getsockname", host: host, port: port) }
        succeeded = true
        return Listener(descriptor: descriptor, port: boundPort)
    }

    private static func failure(_ function: String, host: String, port: Int) -> HTTP2ServerError {
        let code = errno
        return HTTP2ServerError.socket(
            function: function, errno: code, message: "\(Posix.message(code)) (\(host) port \(port))")
    }
}
