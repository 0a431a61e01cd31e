#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket on 127.0.0.1 with an ephemeral port, for a free port to start Redis on (bound, then
/// closed) or a server that never answers (listening, never accepting: the kernel completes the
/// handshake and keeps what the client sends). Closed on deinit.
final class LoopbackSocket {
    let port: Int
    private var descriptor: Int32

    /// A port nothing listens on once this returns (bound and closed at once).
    static func freePort() throws -> Int {
        let socket = try LoopbackSocket(listening: false)
        socket.close()
        return socket.port
    }

    init(listening: Bool) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw TestSetupError("socket() failed with errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = descriptor
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound, !listening || listen(fd, 16) == 0 else {
            let code = errno
            closeSocket(fd)
            throw TestSetupError("bind/listen on 127.0.0.1 failed with errno \(code)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        if descriptor >= 0 { closeSocket(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}

private func closeSocket(_ descriptor: Int32) {
    _ = close(descriptor)
}
