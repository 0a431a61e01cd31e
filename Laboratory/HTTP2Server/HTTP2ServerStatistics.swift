extension HTTP2Server {
    /// Counters since the server was created. A plain value.
    public struct Statistics: Sendable, Hashable {
        /// TCP connections accepted (including ones that failed the TLS or HTTP/2 handshake later).
        public var connectionsAccepted = 0
        /// Streams refused with RST_STREAM(REFUSED_STREAM), unprocessed (RFC 9113 §8.7): over the
        /// SETTINGS_MAX_CONCURRENT_STREAMS not yet acknowledged by the client, or after a GOAWAY.
        public var streamsRefused = 0

        /// Creates zeroed counters.
        public init() {}
    }
}
