extension HTTP2Client {
    /// Counters since the client was created, for metrics and tests. A plain value.
    public struct Statistics: Sendable, Hashable {
        /// Connections the client started (one per connection attempt).
        public var connectionsOpened = 0
        /// Connections closed by the client because they were presumed dead: silent past a request's deadline
        /// (see ``Configuration/recyclesSilentConnections``) or a keep-alive PING went unanswered.
        public var connectionsRecycled = 0
        /// Requests sent again after a connection failure (see ``HTTP2Request/connectionRetries``).
        public var requestsRetried = 0
        /// Requests that got no complete answer by their deadline.
        public var requestsTimedOut = 0
        /// Requests held back by the reconnect backoff (each counted once).
        public var reconnectsDelayed = 0
        /// Requests sent again because the server refused their stream unprocessed: REFUSED_STREAM, a stream
        /// above a GOAWAY's last-stream-id, or one whose connection ended before it was written (RFC 9113 §8.7).
        public var streamsRefused = 0
        /// Keep-alive PINGs sent on idle connections (see ``Configuration/keepAliveInterval``).
        public var pingsSent = 0

        /// Creates zeroed counters.
        public init() {}

        /// Adds two sets of counters, e.g. the clients of a connection pool.
        public static func + (lhs: Statistics, rhs: Statistics) -> Statistics {
            var sum = lhs
            sum.connectionsOpened += rhs.connectionsOpened
            sum.connectionsRecycled += rhs.connectionsRecycled
            sum.requestsRetried += rhs.requestsRetried
            sum.requestsTimedOut += rhs.requestsTimedOut
            sum.reconnectsDelayed += rhs.reconnectsDelayed
            sum.streamsRefused += rhs.streamsRefused
            sum.pingsSent += rhs.pingsSent
            return sum
        }
    }
}
