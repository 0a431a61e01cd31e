import Foundation
import RingerSync
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP listener that accepts every connection and closes it at once, counting them: a host that is
/// up but drops every connection, for tests that need "at least one attempt failed" to have happened before
/// the real server takes the port. Thread-safe; call ``stop()`` to free the port.
public final class DroppingListener: Sendable {
    /// The listening port.
    public let port: Int
    private let descriptor: Int32
    private let accepted = LockedValue(0)
    private let stopped = LockedValue(false)
    private let done = OneShot<Void>()

    /// Listens on 127.0.0.1 on an ephemeral port and starts accepting on a thread of its own.
    /// - Throws: ``TestSupportError`` when the socket cannot be set up.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestSupportError.setup("socket() failed with errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
                    && listen(descriptor, 16) == 0
            }
        }
        guard ready else {
            close(descriptor)
            throw TestSupportError.setup("bind() or listen() on 127.0.0.1 failed with errno \(errno)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Connections accepted (and closed) so far.
    public var acceptedCount: Int { accepted.withLock { $0 } }

    /// Stops accepting and closes the listening socket, so another server can bind the port. Idempotent.
    public func stop() async {
        guard stopped.withLock({ state in defer { state = true }; return !state }) else { return }
        _ = shutdown(descriptor, Int32(SHUT_RDWR))  // ends the blocked accept()
        await done.value()
        close(descriptor)
    }

    private func acceptLoop() {
        defer { _ = done.fulfil(()) }
        while !stopped.withLock({ $0 }) {
            let connection = accept(descriptor, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            accepted.withLock { $0 += 1 }
            close(connection)
        }
    }
}
