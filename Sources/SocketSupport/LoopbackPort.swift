#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port on 127.0.0.1 that was free a moment ago, for a child process that must be told its port
/// (PostgreSQL, redis-server, a `ringer serve` node that has to come back on the same port after a kill)
/// rather than report one it chose.
public enum LoopbackPort {
    /// Binds port 0 with `SO_REUSEADDR`, reads the port the kernel chose, and closes the socket, so the child can
    /// bind it at once.
    /// - Returns: the port.
    /// - Throws: ``PosixError`` when no socket can be bound on 127.0.0.1.
    public static func free() throws(PosixError) -> Int {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw PosixError("socket") }
        defer { Posix.closeDescriptor(descriptor) }
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
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
        guard bound else { throw PosixError("bind 127.0.0.1:0") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
