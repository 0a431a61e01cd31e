import RingerSync

/// A small pool of long-lived connections to one push provider's host (an APNs host, the FCM host): a few
/// lanes, each an ``HTTP2Client`` (its own nghttp2 loop and thread) holding one HTTP/2 connection, started
/// on first use. A request goes to the lane with the fewest in flight, so the lanes share the load and a
/// lane stuck on a bad connection gets fewer.
///
/// One connection per loop thread, rather than several on one loop, spreads the client's work over cores
/// (most of its per-request cost is TLS and HTTP/2 work on the loop thread) and keeps every lane's
/// deadlines, backoff and stream cap about one connection. Apple and Google both ask for a few long-lived
/// connections rather than many.
///
/// Thread-safe: the lanes and their in-flight counts sit behind a lock.
public final class HTTP2ClientPool: Sendable {
    private struct Lanes {
        var clients: [HTTP2Client] = []
        var inFlight: [Int] = []
        var isShutDown = false
    }

    private let configuration: HTTP2Client.Configuration
    private let size: Int
    private let lanes = LockedValue(Lanes())

    /// Checks the configuration now, so a bad one fails at start-up rather than on the first request.
    /// - Parameters:
    ///   - configuration: each lane's settings (its `maxConnectionsPerHost` is set to 1).
    ///   - size: number of lanes (connections), at least 1.
    /// - Throws: ``HTTP2ClientError/invalidRequest(_:)`` for a configuration the client would refuse.
    public init(configuration: HTTP2Client.Configuration, size: Int) throws {
        var lane = configuration
        lane.maxConnectionsPerHost = 1
        try lane.validate()
        self.configuration = lane
        self.size = max(size, 1)
    }

    /// Sends a request on the least busy lane.
    /// - Parameter request: the request.
    /// - Returns: the response.
    /// - Throws: what ``HTTP2Client/send(_:)`` throws; what ``HTTP2Client/init(configuration:)`` throws when the
    ///   lanes cannot start (an unreadable certificate or CA file); ``HTTP2ClientError/shutDown`` after
    ///   ``shutdown()``.
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        let (index, client) = try lease()
        defer { lanes.withLock { $0.inFlight[index] -= 1 } }
        return try await client.send(request)
    }

    private func lease() throws -> (Int, HTTP2Client) {
        try lanes.withLock { lanes in
            guard !lanes.isShutDown else { throw HTTP2ClientError.shutDown }
            if lanes.clients.isEmpty {
                do {
                    for _ in 0..<size {
                        lanes.clients.append(try HTTP2Client(configuration: configuration))
                        lanes.inFlight.append(0)
                    }
                } catch {
                    lanes.clients.forEach { $0.shutdown() }
                    lanes.clients = []
                    lanes.inFlight = []
                    throw error
                }
            }
            var best = 0
            for index in lanes.inFlight.indices where lanes.inFlight[index] < lanes.inFlight[best] {
                best = index
            }
            lanes.inFlight[best] += 1
            return (best, lanes.clients[best])
        }
    }

    /// The lanes' counters added up; zeros before the first request.
    public var statistics: HTTP2Client.Statistics {
        let clients = lanes.withLock { $0.clients }
        return clients.reduce(HTTP2Client.Statistics()) { $0 + $1.statistics }
    }

    /// Stops every lane's loop (failing what is in flight) and refuses later requests. Idempotent.
    public func shutdown() {
        let clients = lanes.withLock { lanes -> [HTTP2Client] in
            lanes.isShutDown = true
            return lanes.clients
        }
        clients.forEach { $0.shutdown() }
    }
}
