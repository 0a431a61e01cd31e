#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SocketSupport

/// A loopback TCP port that is bound but not listening, so connecting to it is refused at once; or, made
/// with `listening: true`, one that listens but never accepts, so connections succeed and nothing is ever
/// answered (a server that hangs before TLS).
/// Holding the socket keeps any other process from taking the port during the test; it is closed on
/// deinit. Not Sendable: keep it in the test that made it.
public final class ClosedPort {
    /// The bound port number.
    public let port: Int
    private let descriptor: Int32

    /// Binds a socket to 127.0.0.1 on an ephemeral port.
    /// - Parameter listening: listen (never accepting) instead of refusing connections.
    /// - Throws: ``TestSupportError`` when `socket()`, `bind()` or `listen()` fails.
    public init(listening: Bool = false) throws {
        (descriptor, port) = try Self.loopbackSocket(listening: listening)
    }

    /// A port on 127.0.0.1 that was free a moment ago (for a child process to listen on).
    /// - Throws: ``TestSupportError`` when no socket can be bound.
    public static func freePort() throws -> Int {
        do {
            return try LoopbackPort.free()
        } catch {
            throw TestSupportError.setup("no free port on 127.0.0.1: \(error)")
        }
    }

    /// A TCP socket bound to 127.0.0.1 on an ephemeral port, listening or not.
    /// - Parameters:
    ///   - listening: call `listen` too.
    ///   - reusingAddress: set `SO_REUSEADDR`, so another server can bind the port as soon as this one is
    ///     closed (connections it accepted leave the port in TIME_WAIT).
    /// - Returns: the descriptor (the caller closes it) and the port.
    /// - Throws: ``TestSupportError`` when `socket()`, `bind()` or `listen()` fails.
    static func loopbackSocket(listening: Bool, reusingAddress: Bool = false) throws -> (descriptor: Int32, port: Int) {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw TestSupportError.setup("socket() failed with errno \(errno)") }
        if reusingAddress {
            var reuse: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw TestSupportError.setup("bind() to 127.0.0.1 failed with errno \(code)")
        }
        if listening, listen(descriptor, 16) != 0 {
            let code = errno
            close(descriptor)
            throw TestSupportError.setup("listen() failed with errno \(code)")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    deinit {
        close(descriptor)
    }
}
