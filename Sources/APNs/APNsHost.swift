import HTTP2Client
import RingerSync

/// One APNs host's connection pool: an ``HTTP2Client`` started on first use and kept for the client's life.
/// Each host has its own, so the sandbox and production hosts share no connection, loop or state.
///
/// Thread-safe: the lazily created client sits behind a lock.
final class APNsHost: Sendable {
    private let configuration: HTTP2Client.Configuration
    private let slot = LockedValue<(client: HTTP2Client?, isShutDown: Bool)>((nil, false))

    /// Checks the configuration now, so a bad one fails at start-up rather than on the first push.
    /// - Throws: `HTTP2ClientError.invalidRequest` for a configuration libcurl would refuse.
    init(configuration: HTTP2Client.Configuration) throws {
        try configuration.validate()
        self.configuration = configuration
    }

    /// The host's client, started on the first call.
    /// - Throws: ``APNsClientError/transport(_:)`` when libcurl cannot start, or after ``shutdown()``.
    func client() throws -> HTTP2Client {
        try slot.withLock { slot in
            if let client = slot.client { return client }
            guard !slot.isShutDown else { throw APNsClientError.transport(HTTP2ClientError.shutDown.description) }
            do {
                let client = try HTTP2Client(configuration: configuration)
                slot.client = client
                return client
            } catch {
                throw APNsClientError.transport(String(describing: error))
            }
        }
    }

    /// The host's counters; zeros before the first push.
    var statistics: HTTP2Client.Statistics {
        slot.withLock { $0.client?.statistics } ?? HTTP2Client.Statistics()
    }

    /// Stops the host's loop (failing what is in flight) and refuses later pushes. Idempotent.
    func shutdown() {
        let client = slot.withLock { slot -> HTTP2Client? in
            slot.isShutDown = true
            return slot.client
        }
        client?.shutdown()
    }
}
