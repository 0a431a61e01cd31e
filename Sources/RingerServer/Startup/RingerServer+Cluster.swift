import Foundation
import RingerSupport
import RingerRedis
import RingerStore

/// Wiring this server into a cluster (`--redis`).
extension RingerServer {
    /// The link to the other servers, when `--redis` is set: their events reach the sockets here and this
    /// server's watch over accepted calls; what Redis lost is read back from the store.
    /// - Throws: ``ConfigurationError`` naming `--redis` for a URL that cannot be used or a Redis that cannot be reached.
    static func clusterLink(
        _ configuration: ServerConfiguration, incarnation: String, store: any RingerStore, hub: EventHub,
        service: CallService, clock: any ServerClock, log: Logger
    ) throws -> ClusterLink? {
        guard let text = configuration.redisURL else { return nil }
        let url: RedisURL
        do {
            url = try RedisURL(parsing: text)
        } catch {
            throw ConfigurationError("--redis (RINGER_REDIS): \(error)")
        }
        if !PostgresTarget.isPostgresURL(configuration.databasePath) {
            log.warning(
                "--redis is set but --database is an SQLite file: servers of a cluster must share one PostgreSQL database"
            )
        }
        let handlers = ClusterLink.Handlers(
            events: { [weak service] events in service?.learn(fromCluster: events) },
            heard: { [weak service] callID, user in
                service?.acceptedCalls.heard(callID: callID, user: user, at: clock.now())
            },
            connected: { [weak hub] user, device, date in
                hub?.replaceDevice(userID: user, deviceID: device, connectedAt: date)
            },
            resubscribed: { [weak hub, weak service] in
                hub?.catchUpAll()
                service?.cluster.snapshot?.refreshAfterReconnect()
            },
            localUsers: { [weak hub] in hub?.onlineUsers() ?? [] },
            reconcile: { [weak hub] since in
                guard let recent = try? await store.recentSequences(since: since) else { return }
                for (userID, seq) in recent { hub?.catchUp(userID: userID, to: seq) }
            })
        return try ClusterLink(
            url: url, keys: ClusterKeys(prefix: configuration.redisPrefix), incarnation: incarnation, clock: clock,
            log: log, handlers: handlers)
    }
}
