import Foundation

/// A TCP port on 127.0.0.1 that was free a moment ago, for children that must be told their port
/// (PostgreSQL, redis-server) rather than report one they chose.
enum LoopbackPort {
    /// Binds port 0, reads the port the kernel chose, and closes the socket.
    /// - Returns: the port.
    /// - Throws: ``BenchmarkError/setup(_:)`` when no socket can be bound.
    static func free() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchmarkError.setup("socket failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw BenchmarkError.setup("cannot bind a port on 127.0.0.1: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
