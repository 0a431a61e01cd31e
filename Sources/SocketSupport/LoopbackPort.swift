#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// TCP ports on 127.0.0.1 chosen by the kernel: one that was free a moment ago, for a child process that must be
/// told its port (PostgreSQL, redis-server, a `ringer serve` node that has to come back on the same port after a
/// kill) rather than report one it chose; or a bound socket that holds its port.
public enum LoopbackPort {
    /// Binds port 0 with `SO_REUSEADDR`, reads the port the kernel chose, and closes the socket, so the child can
    /// bind it at once.
    /// - Returns: the port.
    /// - Throws: ``PosixError`` when no socket can be bound on 127.0.0.1.
    public static func free() throws(PosixError) -> Int {
        let (descriptor, port) = try bound(listening: false, reusingAddress: true)
        Posix.closeDescriptor(descriptor)
        return port
    }

    /// A close-on-exec TCP socket bound to 127.0.0.1 on a port the kernel chose, listening or not.
    /// - Parameters:
    ///   - listening: call `listen` too (a backlog of 16).
    ///   - reusingAddress: set `SO_REUSEADDR`, so another socket can bind the port as soon as this one is closed
    ///     (connections it accepted leave the port in TIME_WAIT).
    /// - Returns: the descriptor, which the caller closes, and the port.
    /// - Throws: ``PosixError`` when `socket`, `bind` or `listen` fails.
    public static func bound(
        listening: Bool, reusingAddress: Bool = false
    ) throws(PosixError) -> (descriptor: Int32, port: Int) {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw PosixError("socket") }
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
            let failure = PosixError("bind 127.0.0.1:0")
            Posix.closeDescriptor(descriptor)
            throw failure
        }
        if listening, listen(descriptor, 16) != 0 {
            let failure = PosixError("listen")
            Posix.closeDescriptor(descriptor)
            throw failure
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
