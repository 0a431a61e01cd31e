import Foundation
import RingerSupport

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
        (descriptor, port) = try ClosedPort.loopbackSocket(listening: true, reusingAddress: true)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Connections accepted (and closed) so far.
    public var acceptedCount: Int { accepted.withLock { $0 } }

    /// Stops accepting and closes the listening socket, so another server can bind the port. Idempotent.
    public func stop() async {
        guard
            stopped.withLock({ state in
                defer { state = true }
                return !state
            })
        else { return }
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
