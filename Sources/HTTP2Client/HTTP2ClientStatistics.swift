extension HTTP2Client {
    /// Counters since the client was created, for metrics and tests. A plain value.
    public struct Statistics: Sendable, Hashable {
        /// TCP sockets libcurl opened (one per connection attempt).
        public var connectionsOpened = 0
        /// Connections closed by the client because they stayed silent past a request's deadline
        /// (see ``Configuration/recyclesSilentConnections``).
        public var connectionsRecycled = 0
        /// Requests sent again after a connection failure (see ``HTTP2Request/connectionRetries``).
        public var requestsRetried = 0
        /// Requests that got no complete answer by their deadline.
        public var requestsTimedOut = 0
        /// Times a request start was held back by the reconnect backoff.
        public var reconnectsDelayed = 0

        /// Creates zeroed counters.
        public init() {}
    }
}
