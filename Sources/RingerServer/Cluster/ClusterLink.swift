import Dispatch
import Foundation
import RingerSupport
import RingerRedis
import RingerStore
import RingerWire

/// One server's link to the other servers of its cluster, through Redis (`--redis`): events to the server that
/// holds a device's socket, who holds which user's sockets, and signs of life of accepted calls.
///
/// PostgreSQL stays the source of truth: every event is stored with its `seq` before it is published, so
/// whatever Redis loses is read back from the store. A server
/// - publishes each change's events on `<prefix>:events` (``ClusterKeys``); every server hands them to the sockets it holds (a
///   user's sockets may be on several servers; the hub keeps each user's `seq` order and fills gaps);
/// - after its subscription was down (Redis restarted, a network cut), re-reads what its users missed;
/// - every ``reconcileInterval`` seconds compares the streams that grew lately (``RingerStore/recentSequences(since:)``)
///   with what it delivered, and fills the difference: the cover for a message lost while everyone stayed
///   subscribed (its publisher died between commit and publish);
/// - keeps `<prefix>:presence:<user>` (server → last refresh) and `<prefix>:nodes` (server → heartbeat), so
///   ``isOnlineElsewhere(_:)`` answers whether the user holds a socket on another live server;
/// - tells the others when a device's socket opens here, so a device that reconnected to this server while its
///   old connection lingered on another holds one socket, the newer (no sticky sessions needed).
///
/// Redis unreachable: the server keeps serving and ringing by push; health says so; publishes are dropped (the
/// reconciliation fills them once Redis is back) and the subscriber reconnects with backoff.
/// Debian's hiredis (0.14) has no TLS: a TLS-only Redis is reached through a local tunnel (docs/operations.md).
final class ClusterLink: Sendable {
    /// Seconds between heartbeats (and presence refreshes every ``presenceRefreshInterval``).
    static let heartbeatInterval: TimeInterval = 2
    /// A server whose heartbeat is older than this many seconds is dead: its presence entries are ignored.
    static let nodeDeadAfter: TimeInterval = 8
    /// A server silent this many seconds is forgotten: its heartbeat is removed, and the heartbeat hash of a cluster
    /// whose every server went silent expires.
    static let nodeForgottenAfter: TimeInterval = 10 * nodeDeadAfter
    /// Seconds between refreshes of this server's presence entries; an entry older than 3× is ignored.
    static let presenceRefreshInterval: TimeInterval = 30
    /// Seconds between reconciliations against the store; each looks this far back, twice over.
    static let reconcileInterval: TimeInterval = 2

    /// This server's incarnation (``RingerServer/incarnation``): entries a killed predecessor of the same name left
    /// are never taken as this one's.
    let incarnation: String
    private let commands: RedisConnection
    /// Commands run here, in order (publishes keep the order of the changes), off Swift's cooperative pool.
    private let queue = DispatchQueue(label: "ringer-redis")
    private let subscriber: RedisSubscriber
    private let state = LockedValue(State())
    private let loops = LockedValue<[Task<Void, Never>]>([])
    private let log: Logger
    private let clock: any ServerClock
    private let url: RedisURL
    /// The channel and keys, under the cluster's prefix.
    private let keys: ClusterKeys

    private struct State {
        var subscribed = false
        var everSubscribed = false
        var commandsWork = true
        var lostSince: Date?
        var lastProblem: String?
        /// Servers and their heartbeats, as last read.
        var nodes: [String: Date] = [:]
        var dropped = 0
    }

    /// What the link hands the server.
    struct Handlers: Sendable {
        /// Events another server stored.
        var events: @Sendable ([StoredEvent]) -> Void
        /// A party of this accepted call was heard from on another server: the call id, and who when known.
        var heard: @Sendable (String, String?) -> Void
        /// A device opened a socket on another server (user, device, when).
        var connected: @Sendable (String, String, Date) -> Void
        /// The subscription came back after being down: what the sockets here missed must be re-read.
        var resubscribed: @Sendable () -> Void
        /// The users holding sockets on this server now.
        var localUsers: @Sendable () -> [String]
        /// Compares streams that grew since the date with what was delivered here.
        var reconcile: @Sendable (Date) async -> Void
    }

    private let handlers: Handlers

    /// Connects the command connection and prepares the subscriber. A Redis that refuses the login stops the start
    /// (a wrong password does not heal); one that cannot be reached does not: the server starts degraded, as it
    /// would run on if Redis went away later, and the link reconnects with backoff.
    /// - Throws: ``ConfigurationError`` naming `--redis` when Redis refuses the login or the URL is unusable.
    init(
        url: RedisURL, keys: ClusterKeys, incarnation: String, clock: any ServerClock, log: Logger, handlers: Handlers
    ) throws {
        self.url = url
        self.keys = keys
        self.clock = clock
        self.log = log
        self.handlers = handlers
        self.incarnation = incarnation
        commands = RedisConnection(url: url, connectTimeout: 2, commandTimeout: 2)
        do {
            try commands.connect()
        } catch let error where Self.isRefusal(error) {
            throw ConfigurationError("--redis (RINGER_REDIS): Redis at \(url) refuses this server: \(error)")
        } catch {
            state.withLock { ($0.commandsWork, $0.lastProblem) = (false, "\(error)") }
            log.warning(
                "Redis cannot be reached at start; serving without it until it can (calls ring by push, events "
                    + "reach other servers' sockets from the database)", ["error": .string("\(error)")])
        }
        let state = self.state
        let incarnation = self.incarnation
        do {
            subscriber = try RedisSubscriber(
                url: url, channels: [keys.events], connectTimeout: 2, healthCheckInterval: 5,
                onMessage: { _, payload in
                    guard let message = try? RingerJSON.decoder().decode(ClusterMessage.self, from: payload),
                        message.node != incarnation
                    else { return }
                    if let callID = message.heard { handlers.heard(callID, message.heardBy) }
                    if let socket = message.connected {
                        handlers.connected(socket.userID, socket.deviceID, Date(unixMilliseconds: socket.connectedAt))
                    }
                    let events = message.storedEvents
                    if !events.isEmpty { handlers.events(events) }
                },
                onStatus: { status in
                    let resubscribed = state.withLock { state -> Bool in
                        switch status {
                        case .connected:
                            defer { (state.subscribed, state.everSubscribed, state.lostSince) = (true, true, nil) }
                            return state.everSubscribed
                        case .lost(let error):
                            state.subscribed = false
                            state.lostSince = state.lostSince ?? clock.now()
                            state.lastProblem = "\(error)"
                            return false
                        }
                    }
                    if resubscribed { handlers.resubscribed() }
                })
        } catch {
            throw ConfigurationError("--redis (RINGER_REDIS): \(error)")
        }
    }

    /// Subscribes, and starts the heartbeat, the presence refresh and the reconciliation.
    func start() {
        subscriber.start()
        let loops = [
            every(Self.heartbeatInterval) { link in await link.beat() },
            every(Self.presenceRefreshInterval) { link in await link.refreshPresence() },
            every(Self.reconcileInterval) { link in
                await link.handlers.reconcile(link.clock.now().addingTimeInterval(-2 * Self.reconcileInterval - 1))
            },
        ]
        self.loops.withLock { $0 = loops }
    }

    /// Stops the loops and the subscriber, and takes this server's presence and heartbeat out of Redis.
    func shutdown() async {
        loops.withLock { loops in
            loops.forEach { $0.cancel() }
            loops.removeAll()
        }
        subscriber.stop()
        let users = handlers.localUsers()
        await run { [incarnation, keys] commands in
            for user in users { _ = try commands.command(["HDEL", keys.presence(user), incarnation]) }
            _ = try commands.command(["HDEL", keys.nodes, incarnation])
        }
    }

    // MARK: Telling the others

    /// Publishes stored events, in the order given across calls. Dropped while Redis is unreachable.
    func publish(_ events: [StoredEvent]) {
        guard !events.isEmpty else { return }
        send(ClusterMessage(node: incarnation, events: events))
    }

    /// Tells the others a party of an accepted call was heard from here.
    func heard(callID: String, user: String) {
        send(ClusterMessage(node: incarnation, heard: callID, by: user))
    }

    /// Writes this server's heartbeat and every presence entry again now: a Redis that restarted without
    /// persistence has lost them, and the others would otherwise not see this server's users online until the
    /// next refresh (up to ``presenceRefreshInterval``). Called when the subscription is back after a loss.
    func refreshAfterReconnect() {
        Task { [weak self] in
            await self?.beat()
            await self?.refreshPresence()
        }
    }

    /// A device's socket opened here: the others close its older socket, if they hold one.
    func deviceConnected(userID: String, deviceID: String, at date: Date) {
        send(
            ClusterMessage(
                node: incarnation,
                connected: .init(
                    userID: userID, deviceID: deviceID,
                    connectedAt: date.unixMilliseconds)))
    }

    /// The user's first socket on this server opened (`true`) or its last one closed (`false`).
    func presenceChanged(userID: String, online: Bool) {
        let incarnation = self.incarnation
        let now = clock.now().unixMilliseconds
        queue.async { [self] in
            _ = try? perform { commands in
                if online {
                    _ = try commands.command(["HSET", keys.presence(userID), incarnation, "\(now)"])
                    _ = try commands.command(["EXPIRE", keys.presence(userID), Self.presenceExpiry])
                } else {
                    _ = try commands.command(["HDEL", keys.presence(userID), incarnation])
                }
            }
        }
    }

    /// Whether the user holds a socket on another live server (a presence entry of a server whose heartbeat is
    /// fresh, refreshed within three refresh intervals); nil when Redis cannot say. Callers take nil as "maybe":
    /// the events reach such a socket from the store (the reconciliation) even while Redis is down.
    func isOnlineElsewhere(_ userID: String) async -> Bool? {
        let incarnation = self.incarnation
        // The entries, then the heartbeats of the servers they name, read fresh: a server that started a moment ago
        // is not in the heartbeat loop's view yet.
        let entries = await run { [keys] commands -> [(node: String, refreshed: Date, beat: Date?)] in
            let fields = try commands.command(["HGETALL", keys.presence(userID)]).elements ?? []
            var found: [(String, Date)] = []
            var index = 0
            while index + 1 < fields.count {
                defer { index += 2 }
                guard let node = fields[index].string, node != incarnation,
                    let refreshed = fields[index + 1].string.flatMap(Int64.init).map(Date.init(unixMilliseconds:))
                else { continue }
                found.append((node, refreshed))
            }
            guard !found.isEmpty else { return [] }
            let beats = try commands.command(["HMGET", keys.nodes] + found.map(\.0)).elements ?? []
            return found.enumerated().map { offset, entry in
                let beat =
                    offset < beats.count
                    ? beats[offset].string.flatMap(Int64.init).map(Date.init(unixMilliseconds:)) : nil
                return (entry.0, entry.1, beat)
            }
        }
        guard let entries else { return nil }
        let now = clock.now()
        return entries.contains { entry in
            guard let beat = entry.beat else { return false }
            return now.timeIntervalSince(entry.refreshed) < 3 * Self.presenceRefreshInterval
                && now.timeIntervalSince(beat) < Self.nodeDeadAfter
        }
    }

    // MARK: Health

    /// What `/healthz` shows: `connected`, or `lost` with since when and why.
    var health: ClusterHealth {
        let now = clock.now()
        return state.withLock { state in
            let connected = state.subscribed && state.commandsWork
            return ClusterHealth(
                nodeID: incarnation, redis: connected ? "connected" : "lost",
                redisProblem: connected ? nil : (state.lastProblem ?? "not subscribed yet"),
                nodes: state.nodes.filter { now.timeIntervalSince($0.value) < Self.nodeDeadAfter }.count)
        }
    }

    // MARK: Internals

    /// An answer from Redis itself (a refused `AUTH` or `SELECT`), as opposed to no answer.
    private static func isRefusal(_ error: RedisError) -> Bool {
        if case .server = error { return true }
        return false
    }

    private func send(_ message: ClusterMessage) {
        guard let payload = try? RingerJSON.encoder().encode(message) else { return }
        queue.async { [self] in
            // Down: dropped, not queued behind a timeout each; the reconciliation fills it once Redis is back.
            guard state.withLock({ $0.commandsWork || $0.subscribed }) else {
                state.withLock { $0.dropped += 1 }
                return
            }
            _ = try? perform { commands in
                _ = try commands.command([Data("PUBLISH".utf8), Data(keys.events.utf8), payload])
            }
        }
    }

    /// Runs Redis commands on ``queue``, recording whether they work. Call on ``queue`` only.
    private func perform<T>(_ body: (RedisConnection) throws -> T) throws -> T {
        do {
            let result = try body(commands)
            state.withLock { $0.commandsWork = true }
            return result
        } catch {
            let first = state.withLock { state -> Bool in
                defer { (state.commandsWork, state.lastProblem) = (false, "\(error)") }
                return state.commandsWork
            }
            if first { log.warning("Redis commands fail; ringing by push continues", ["error": .string("\(error)")]) }
            throw error
        }
    }

    /// Runs Redis commands on ``queue`` and awaits them; nil when they failed.
    private func run<T: Sendable>(_ body: @escaping @Sendable (RedisConnection) throws -> T) async -> T? {
        await withCheckedContinuation { continuation in
            queue.async { [self] in continuation.resume(returning: try? perform(body)) }
        }
    }

    /// Writes this server's heartbeat and reads everyone's.
    private func beat() async {
        let incarnation = self.incarnation
        let now = clock.now()
        let reply = await run { [keys] commands -> RedisReply in
            _ = try commands.command(["HSET", keys.nodes, incarnation, "\(now.unixMilliseconds)"])
            // Kept while any server beats; gone once the last one stopped (also one killed with no goodbye).
            _ = try commands.command(["EXPIRE", keys.nodes, Self.nodesExpiry])
            return try commands.command(["HGETALL", keys.nodes])
        }
        guard let fields = reply?.elements else { return }
        var nodes: [String: Date] = [:]
        var dead: [String] = []
        var index = 0
        while index + 1 < fields.count {
            defer { index += 2 }
            guard let node = fields[index].string,
                let beat = fields[index + 1].string.flatMap(Int64.init).map(Date.init(unixMilliseconds:))
            else { continue }
            // Forget the server (its presence hashes expire once nobody writes them).
            if now.timeIntervalSince(beat) > Self.nodeForgottenAfter {
                dead.append(node)
            } else {
                nodes[node] = beat
            }
        }
        state.withLock { $0.nodes = nodes }
        let gone = dead
        if !gone.isEmpty { _ = await run { [keys] commands in try commands.command(["HDEL", keys.nodes] + gone) } }
    }

    /// Writes this server's presence entry of every user holding a socket here again, with a fresh time.
    private func refreshPresence() async {
        let users = handlers.localUsers()
        let incarnation = self.incarnation
        let now = "\(clock.now().unixMilliseconds)"
        _ = await run { [keys] commands in
            for user in users {
                _ = try commands.command(["HSET", keys.presence(user), incarnation, now])
                _ = try commands.command(["EXPIRE", keys.presence(user), Self.presenceExpiry])
            }
        }
    }

    /// Seconds a user's presence hash outlives its last write: four refresh intervals, so entries of servers that
    /// died (and users gone from every server) leave Redis instead of piling up.
    private static let presenceExpiry = "\(Int(4 * presenceRefreshInterval))"

    /// Seconds the heartbeat hash outlives the last heartbeat written to it (``nodeForgottenAfter``), so a cluster
    /// that is gone (a test run's, under its own prefix) leaves no key behind.
    private static let nodesExpiry = "\(Int(nodeForgottenAfter))"

    /// A loop running `body` every `interval` seconds of the server's clock until cancelled.
    private func every(
        _ interval: TimeInterval, _ body: @escaping @Sendable (ClusterLink) async -> Void
    ) -> Task<Void, Never> {
        Task { [weak self] in
            while !Task.isCancelled, let self {
                await body(self)
                do { try await self.clock.sleep(until: self.clock.now().addingTimeInterval(interval)) } catch { return }
            }
        }
    }
}

/// The cluster part of `/healthz` (when `--redis` is set).
struct ClusterHealth: Codable, Sendable {
    /// This server's incarnation, `<node-id>/<start unix ms>`.
    var nodeID: String
    /// `connected`, or `lost` (events reach other servers' sockets only through the store until it is back).
    var redis: String
    /// Why it is lost, when it is.
    var redisProblem: String?
    /// Servers with a fresh heartbeat, this one included.
    var nodes: Int

    /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
    /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
    private enum CodingKeys: String, CodingKey {
        case redis, redisProblem, nodes
        case nodeID = "nodeId"
    }
}
