/// The Redis names a cluster's servers share, all under one prefix (`--redis-prefix`, `ringer` by default), so
/// several clusters (staging beside production, test runs side by side) can use one Redis without hearing each
/// other: pub/sub channels ignore the database number (Redis: "Pub/Sub", "Database & Scoping").
struct ClusterKeys: Sendable {
    /// The pub/sub channel every server publishes its events on and subscribes to: `<prefix>:events`.
    let events: String
    /// The hash of servers and their heartbeats (unix milliseconds): `<prefix>:nodes`.
    let nodes: String
    private let prefix: String

    /// - Parameter prefix: a ``ServerConfiguration/isValidRedisPrefix(_:)`` prefix.
    init(prefix: String) {
        self.prefix = prefix
        events = prefix + ":events"
        nodes = prefix + ":nodes"
    }

    /// The hash of servers holding a socket of `userID` (server → last refresh): `<prefix>:presence:<user>`.
    func presence(_ userID: String) -> String { prefix + ":presence:" + userID }
}
