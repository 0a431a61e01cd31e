import RingerSupport

/// A connection pool for one push provider's host (an APNs host, the FCM host): a few long-lived HTTP/2
/// connections, each held by its own ``HTTP2Client`` (its own nghttp2 loop and thread), started on first use.
///
/// A request goes to the first connection with a free stream (fewer in flight than its
/// ``HTTP2Client/streamCapacity``: the server's SETTINGS_MAX_CONCURRENT_STREAMS, capped by the client's); when
/// every connection is full, to the one with the fewest in flight, where it waits for a stream. So one connection
/// carries the load while it can: HTTP/2 multiplexes hundreds of streams on one connection, and spreading a
/// load that fits one connection over two cost about a fifth more CPU per request on both ends
/// (BENCHMARKS.md: each connection's writes and reads batch fewer frames, and two loop threads wake instead of
/// one). The next connections take what one cannot: a server that allows few streams (APNs may start
/// at 1), a burst before the first SETTINGS (each connection counts 1 stream until its own arrive), and a
/// connection whose host failed (capacity 0 while its reconnects back off). A connection gone silent keeps its
/// capacity until
/// ``HTTP2Client/Configuration/recyclesSilentConnections`` closes its connection at the first missed
/// deadline. One connection per loop thread keeps every connection's deadlines, backoff and stream cap
/// about that connection alone. Apple and Google both ask for a few long-lived connections rather than many.
///
/// Thread-safe: the connections' clients and their in-flight counts sit behind a lock.
public final class HTTP2ClientPool: Sendable {
    private struct Connections {
        var clients: [HTTP2Client] = []
        var inFlight: [Int] = []
        var isShutDown = false
    }

    private let configuration: HTTP2Client.Configuration
    private let size: Int
    private let connections = LockedValue(Connections())

    /// Checks the configuration now, so a bad one fails at start-up rather than on the first request.
    /// - Parameters:
    ///   - configuration: each connection's client settings (its `maxConnectionsPerHost` is set to 1).
    ///   - size: number of connections, at least 1.
    /// - Throws: ``HTTP2ClientError/invalidRequest(_:)`` for a configuration the client would refuse.
    public init(configuration: HTTP2Client.Configuration, size: Int) throws {
        var single = configuration
        single.maxConnectionsPerHost = 1
        try single.validate()
        self.configuration = single
        self.size = max(size, 1)
    }

    /// Sends a request on the first connection with a free stream, else the least busy one.
    /// - Parameter request: the request.
    /// - Returns: the response.
    /// - Throws: what ``HTTP2Client/send(_:)`` throws; what ``HTTP2Client/init(configuration:)`` throws when the
    ///   connections' clients cannot start (an unreadable certificate or CA file); ``HTTP2ClientError/shutDown`` after
    ///   ``shutdown()``.
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        let (index, client) = try lease()
        defer { connections.withLock { $0.inFlight[index] -= 1 } }
        return try await client.send(request)
    }

    private func lease() throws -> (Int, HTTP2Client) {
        try connections.withLock { pool in
            guard !pool.isShutDown else { throw HTTP2ClientError.shutDown }
            if pool.clients.isEmpty {
                do {
                    for _ in 0..<size {
                        pool.clients.append(try HTTP2Client(configuration: configuration))
                        pool.inFlight.append(0)
                    }
                } catch {
                    pool.clients.forEach { $0.shutdown() }
                    pool.clients = []
                    pool.inFlight = []
                    throw error
                }
            }
            let clients = pool.clients
            let chosen = Self.connection(inFlight: pool.inFlight) { clients[$0].streamCapacity }
            pool.inFlight[chosen] += 1
            return (chosen, pool.clients[chosen])
        }
    }

    /// The connection a new request goes to: the first with fewer in flight than its capacity, else the one
    /// with the fewest in flight (the first of those).
    /// - Parameters:
    ///   - inFlight: requests each connection holds (sent or waiting in its client); not empty.
    ///   - capacity: each connection's ``HTTP2Client/streamCapacity``, same count.
    /// - Returns: an index into `inFlight`.
    static func connection(inFlight: [Int], capacity: [Int]) -> Int {
        connection(inFlight: inFlight) { capacity[$0] }
    }

    /// As ``connection(inFlight:capacity:)``, with each connection's capacity read only when needed: usually the
    /// first connection's alone, with no array made for every request.
    static func connection(inFlight: [Int], capacity: (Int) -> Int) -> Int {
        if let free = inFlight.indices.first(where: { inFlight[$0] < capacity($0) }) { return free }
        var best = 0
        for index in inFlight.indices where inFlight[index] < inFlight[best] {
            best = index
        }
        return best
    }

    /// The connections' counters added up; zeros before the first request.
    public var statistics: HTTP2Client.Statistics {
        let clients = connections.withLock { $0.clients }
        return clients.reduce(HTTP2Client.Statistics()) { $0 + $1.statistics }
    }

    /// Stops every connection's loop (failing what is in flight) and refuses later requests. Idempotent.
    public func shutdown() {
        let clients = connections.withLock { pool -> [HTTP2Client] in
            pool.isShutDown = true
            return pool.clients
        }
        clients.forEach { $0.shutdown() }
    }
}
