import SocketSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// A port on 127.0.0.1 that was free a moment ago (for a child process to listen on): ``FixturePort/free()``.
    /// - Throws: ``TestSupportError`` when no socket can be bound.
    public static func freePort() throws -> Int { try FixturePort.free() }

    /// A TCP socket bound to 127.0.0.1 on an ephemeral port, listening or not (``LoopbackPort/bound(listening:reusingAddress:)``).
    /// - Returns: the descriptor (the caller closes it) and the port.
    /// - Throws: ``TestSupportError`` when `socket()`, `bind()` or `listen()` fails.
    static func loopbackSocket(listening: Bool, reusingAddress: Bool = false) throws -> (descriptor: Int32, port: Int) {
        do {
            return try LoopbackPort.bound(listening: listening, reusingAddress: reusingAddress)
        } catch {
            throw TestSupportError.setup("a socket on 127.0.0.1: \(error)")
        }
    }

    deinit {
        close(descriptor)
    }
}
