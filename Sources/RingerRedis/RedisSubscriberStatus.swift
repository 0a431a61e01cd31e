extension RedisSubscriber {
    /// The subscriber's connection state, reported to `onStatus` on the subscriber's thread.
    public enum Status: Sendable, Hashable {
        /// Subscribed to every channel asked for when the connection was made: reported at each (re)connect.
        /// After a ``lost(_:)``, messages published in between were missed (Redis pub/sub keeps nothing).
        case connected
        /// The connection broke, or the first connect failed; the reason. Reported once per outage, not for
        /// every failed reconnect attempt; reconnecting goes on until ``RedisSubscriber/stop()``.
        case lost(RedisError)
    }
}
