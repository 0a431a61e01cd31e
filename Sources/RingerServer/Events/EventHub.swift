import Foundation
import RingerStore
import RingerSupport
import RingerWire

/// Where a subscriber's events are written: an open WebSocket, or a test double.
public protocol EventSink: Sendable {
    /// Queues one text frame. Must not block.
    func send(text: String)
    /// Closes the connection normally (1000).
    func close()
    /// Closes the connection with a WebSocket close code and reason (RFC 6455 §7.4).
    /// - Parameters:
    ///   - code: the status code; 4000–4999 are the application's own.
    ///   - reason: a short UTF-8 text, at most 123 bytes.
    func close(code: UInt16, reason: String)
}

/// Delivers call events to the WebSockets of each user's devices, and replays missed ones.
///
/// Every event is stored (with its per-user `seq`) before it reaches the hub, so a device that
/// reconnects with `?since=<seq>` gets what it missed, then the live stream, in `seq` order with no
/// repeats. The replay is bounded: at most ``replayLimit`` events, the newest ones (they say where
/// each call is now). A `since` beyond the user's newest event (a stale value from another
/// install) counts as "now", so live events are never held back.
///
/// Sharded by user: each user's sockets live in one entry of a striped table, so publishing an
/// event, ``isOnline(userID:)`` and ``isConnected(userID:deviceID:)`` touch that user's entry only,
/// under a lock that only users of the same stripe share, never the whole table.
///
/// Per-user order: the store numbers each user's events consecutively (1, 2, 3 …), and the hub
/// releases them to the user's sockets strictly in that order. An event that arrives ahead of a
/// missing one waits; the missing ones are read from the store (an event is stored, and every
/// lower `seq` of that user with it, before it is published), so a reordering delays an event but
/// never loses it. The baseline (the highest `seq` already stored) is read while holding the
/// user's publication lock (`publications`, the lock ``CallService`` holds while it stores and
/// publishes), so no event of that user is between the store and the hub at that moment.
///
/// Thread-safe; ``admit(id:userID:deviceID:sink:since:)``, ``deliver(_:)`` and the presence
/// queries never suspend (the upgrade decision calls them on the libwebsockets thread).
final class EventHub: Sendable {
    /// The WebSocket close sent to a socket that a newer one of the same device replaced.
    static let replacedClose = (code: UInt16(4001), reason: "replaced by a newer connection of this device")

    /// The outcome of ``admit(id:userID:deviceID:sink:since:)``.
    enum Admission: Equatable, Sendable {
        /// The socket is subscribed (live events are held for it until ``goLive(id:userID:)``).
        case admitted
        /// The user already holds ``maxSocketsPerUser`` sockets of other devices: refused.
        case full
    }

    private struct Subscriber {
        let deviceID: String?
        let sink: any EventSink
        let since: Int64?
        /// The highest `seq` written to this socket (replay and live overlap while it goes live).
        var lastSeq: Int64
        /// Live events held back while the replay is read from the store; nil once live.
        var pending: [Outgoing]?
        /// When it was admitted (the server's clock), to tell which of one device's sockets on two servers is newer.
        var admittedAt = Date.distantPast
    }

    /// An event with its JSON text, encoded once for every socket.
    private struct Outgoing {
        let stored: StoredEvent
        let text: String
        var seq: Int64 { stored.event.seq }
    }

    /// One user's sockets and the order of their stream.
    private struct UserStream {
        /// The id of the socket that created the entry: a gap read started for an earlier entry of
        /// the same user (all its sockets gone meanwhile) must not touch this one.
        let epoch: UInt64
        var sockets: [UInt64: Subscriber] = [:]
        /// Which socket holds each announced device (at most one: the newest wins).
        var byDevice: [String: UInt64] = [:]
        /// The highest `seq` released to the sockets; nil until the baseline is read or an event came.
        var released: Int64?
        /// Whether the user's newest stored `seq` was read into ``released`` (once per entry).
        var hasBaseline = false
        /// Events that arrived ahead of a missing `seq`, by `seq`.
        var early: [Int64: Outgoing] = [:]
        /// Whether the missing events are being read from the store.
        var fillingGap = false
    }

    /// Most events replayed on one reconnect.
    let replayLimit = 500
    /// Most sockets one user may hold (sockets of one device replace each other and count once).
    let maxSocketsPerUser: Int
    private let store: any RingerStore
    private let publications: KeyedAsyncLock
    private let stripes: [LockedValue<[String: UserStream]>]
    private let encoder = RingerJSON.encoder()
    private let clock: any ServerClock
    /// Told when a user's first socket here opens (`true`) and their last one closes (`false`): the cluster's
    /// presence (``ClusterLink/presenceChanged(userID:online:)``). Called outside the hub's locks.
    let presenceObserver = LockedValue<(@Sendable (String, Bool) -> Void)?>(nil)
    /// Told when a socket announcing a device is admitted (user, device, when), so the cluster can close that
    /// device's older socket on another server (``replaceDevice(userID:deviceID:connectedAt:)``).
    let deviceObserver = LockedValue<(@Sendable (String, String, Date) -> Void)?>(nil)

    /// - Parameters:
    ///   - store: where events and the replay are read.
    ///   - publications: the per-user locks under which events are stored and published.
    ///   - maxSocketsPerUser: sockets per user, at least 1.
    ///   - stripes: independently locked parts of the user table.
    ///   - clock: the server's clock, sent in `stream.ready` (`server_time_ms`) so phones judge ring deadlines on it.
    init(
        store: any RingerStore, publications: KeyedAsyncLock, maxSocketsPerUser: Int = 10, stripes: Int = 64,
        clock: any ServerClock = SystemServerClock()
    ) {
        self.clock = clock
        self.store = store
        self.publications = publications
        self.maxSocketsPerUser = max(1, maxSocketsPerUser)
        self.stripes = (0..<max(1, stripes)).map { _ in LockedValue([:]) }
    }

    // MARK: Sockets

    /// Subscribes a socket at once (so presence is true from the upgrade on), holding its live
    /// events until ``goLive(id:userID:)`` has written the replay. A socket announcing a device that
    /// already holds one replaces it: the older socket is closed with ``replacedClose``.
    /// - Parameters:
    ///   - id: unique per connection.
    ///   - userID: the authenticated user.
    ///   - deviceID: the device holding the socket, if it said.
    ///   - sink: where its events go.
    ///   - since: replay events with a greater `seq`; nil for live events only.
    /// - Returns: ``Admission/full`` when the user already holds ``maxSocketsPerUser`` other sockets.
    func admit(id: UInt64, userID: String, deviceID: String?, sink: any EventSink, since: Int64?) -> Admission {
        var first = false
        let admitted = clock.now()
        let replaced = stripe(of: userID).withLock { streams -> (any EventSink)?? in
            if let stream = streams[userID], stream.sockets.count >= maxSocketsPerUser,
                deviceID.flatMap({ stream.byDevice[$0] }) == nil
            {
                return .none
            }
            first = streams[userID] == nil
            var stream = streams.removeValue(forKey: userID) ?? UserStream(epoch: id)
            var replaced: (any EventSink)?
            if let deviceID, let older = stream.byDevice[deviceID] {
                replaced = stream.sockets.removeValue(forKey: older)?.sink
            }
            stream.sockets[id] = Subscriber(
                deviceID: deviceID, sink: sink, since: since, lastSeq: since ?? .min,
                pending: [], admittedAt: admitted)
            if let deviceID { stream.byDevice[deviceID] = id }
            streams[userID] = stream
            return .some(replaced)
        }
        guard let replaced else { return .full }
        replaced?.close(code: Self.replacedClose.code, reason: Self.replacedClose.reason)
        if first { presenceObserver.snapshot?(userID, true) }
        if let deviceID { deviceObserver.snapshot?(userID, deviceID, admitted) }
        return .admitted
    }

    /// Replays what the socket missed (with `since`), writes the events held meanwhile, then sends
    /// ``StreamReady`` with the seq to resume from, so a device that never saw an event can still
    /// reconnect with `since` and get what it missed while its socket was down. A store failure
    /// closes the socket (without the replay it would silently miss events; it reconnects and retries).
    /// - Parameters:
    ///   - id: the id given to ``admit(id:userID:deviceID:sink:since:)``.
    ///   - userID: its user.
    func goLive(id: UInt64, userID: String) async {
        guard let since = subscriber(id, of: userID).map({ $0.since }) else { return }
        let latest: Int64
        var missed: [Outgoing] = []
        do {
            latest = try await publications.withLocks([userID]) {
                // Nothing of this user is between the store and the hub now: the baseline is exact.
                let latest = try await store.latestSeq(forUser: userID)
                self.stripe(of: userID).withLock { streams in
                    // Once per entry: a later socket of the user must not move an order already kept.
                    guard var stream = streams[userID], !stream.hasBaseline else { return }
                    stream.released = max(stream.released ?? latest, latest)
                    stream.hasBaseline = true
                    streams[userID] = stream
                }
                return latest
            }
            if let since {
                missed = try await store.events(forUser: userID, after: min(since, latest), limit: replayLimit)
                    .compactMap(outgoing)
            }
        } catch {
            remove(id, of: userID)?.close()
            return
        }
        stripe(of: userID).withLock { streams in
            guard var subscriber = streams[userID]?.sockets[id] else { return }
            if let since, since > latest { subscriber.lastSeq = latest }
            let held = subscriber.pending ?? []
            subscriber.pending = nil
            for event in missed + held { Self.write(event, to: &subscriber) }
            // The newest stored seq, or the last event written if a newer one was held meanwhile.
            let resumeFrom = max(latest, subscriber.lastSeq, 0)
            if let data = try? encoder.encode(StreamReady(seq: resumeFrom, serverTime: clock.now())) {
                subscriber.sink.send(text: String(decoding: data, as: UTF8.self))
            }
            streams[userID]?.sockets[id] = subscriber
        }
    }

    /// Removes a subscriber (its socket closed); a socket that was replaced or never admitted is ignored.
    func disconnect(id: UInt64, userID: String) {
        _ = remove(id, of: userID)
    }

    // MARK: Events

    /// Sends stored events to the sockets of their users, each user's in `seq` order, skipping the
    /// device that acted. Costs work for the recipients' entries only.
    /// - Parameter events: events as the store returned them (any order).
    func deliver(_ events: [StoredEvent]) {
        var byUser: [String: [Outgoing]] = [:]
        var listening: [String: Bool] = [:]
        for event in events {
            // Nothing is encoded for a user with no stream here (most of a server's events, issue 33). A stream
            // admitted after this look has its baseline read after the event was committed, so the event is at or
            // below it: replayed from the store when the socket asked `since`, and covered by the `seq` of its
            // `stream.ready` when it did not, as for any event stored before a socket opened.
            let here = listening[event.userID] ?? stripe(of: event.userID).withLock { $0[event.userID] != nil }
            listening[event.userID] = here
            guard here, let encoded = outgoing(event) else { continue }
            byUser[event.userID, default: []].append(encoded)
        }
        for (userID, encoded) in byUser { release(encoded, of: userID) }
    }

    /// True when the user holds at least one open socket. O(1).
    func isOnline(userID: String) -> Bool {
        stripe(of: userID).withLock { !($0[userID]?.sockets.isEmpty ?? true) }
    }

    /// True when the user holds an open socket announced as this device. O(1).
    func isConnected(userID: String, deviceID: String) -> Bool {
        stripe(of: userID).withLock { $0[userID]?.byDevice[deviceID] != nil }
    }

    /// The device opened a socket on another server at `connectedAt`: its socket here, if older, is closed with
    /// ``replacedClose``, as a newer socket on this server would close it (a reconnect that reached another
    /// server while the old connection lingered).
    func replaceDevice(userID: String, deviceID: String, connectedAt: Date) {
        let replaced = stripe(of: userID).withLock { streams -> (any EventSink)? in
            guard var stream = streams[userID], let id = stream.byDevice[deviceID],
                let old = stream.sockets[id], old.admittedAt < connectedAt
            else { return nil }
            stream.sockets[id] = nil
            stream.byDevice[deviceID] = nil
            streams[userID] = stream.sockets.isEmpty ? nil : stream
            return old.sink
        }
        guard let replaced else { return }
        if stripe(of: userID).withLock({ $0[userID] == nil }) { presenceObserver.snapshot?(userID, false) }
        replaced.close(code: Self.replacedClose.code, reason: Self.replacedClose.reason)
    }

    /// The users holding at least one socket here (the cluster's presence refresh).
    func onlineUsers() -> [String] {
        stripes.flatMap { stripe in stripe.withLock { Array($0.keys) } }
    }

    /// Reads from the store what the user's sockets here have not had up to `seq` (another server stored it and
    /// Redis lost or has not yet brought the message), unless they have it or a read is already under way.
    func catchUp(userID: String, to seq: Int64) {
        let gap = stripe(of: userID).withLock { streams -> (epoch: UInt64, after: Int64)? in
            guard var stream = streams[userID], stream.hasBaseline, let released = stream.released, released < seq,
                !stream.fillingGap
            else { return nil }
            stream.fillingGap = true
            streams[userID] = stream
            return (stream.epoch, released)
        }
        if let gap { Task { await fillGap(of: userID, epoch: gap.epoch, after: gap.after) } }
    }

    /// Reads from the store whatever every user holding a socket here missed (the cluster's subscription was
    /// down, so nothing that happened on other servers meanwhile arrived).
    func catchUpAll() {
        var gaps: [(userID: String, epoch: UInt64, after: Int64)] = []
        for stripe in stripes {
            stripe.withLock { streams in
                for (userID, var stream) in streams where stream.hasBaseline && !stream.fillingGap {
                    guard let released = stream.released else { continue }
                    stream.fillingGap = true
                    streams[userID] = stream
                    gaps.append((userID, stream.epoch, released))
                }
            }
        }
        for gap in gaps { Task { await fillGap(of: gap.userID, epoch: gap.epoch, after: gap.after) } }
    }

    /// How many sockets every user holds together (metrics).
    func totalSockets() -> Int {
        stripes.reduce(0) { total, stripe in total + stripe.withLock { $0.values.reduce(0) { $0 + $1.sockets.count } } }
    }

    /// How many sockets the user holds (tests, diagnostics).
    func socketCount(userID: String) -> Int {
        stripe(of: userID).withLock { $0[userID]?.sockets.count ?? 0 }
    }

    /// Whether two users' entries share a stripe, and so its lock (tests).
    func sharesStripe(_ first: String, _ second: String) -> Bool {
        stripe(of: first) === stripe(of: second)
    }

    // MARK: Internals

    private func stripe(of userID: String) -> LockedValue<[String: UserStream]> {
        stripes[Int(UInt(bitPattern: userID.hashValue) % UInt(stripes.count))]
    }

    private func subscriber(_ id: UInt64, of userID: String) -> Subscriber? {
        stripe(of: userID).withLock { $0[userID]?.sockets[id] }
    }

    private func remove(_ id: UInt64, of userID: String) -> (any EventSink)? {
        var last = false
        let sink = stripe(of: userID).withLock { streams -> (any EventSink)? in
            guard streams[userID]?.sockets[id] != nil, var stream = streams.removeValue(forKey: userID),
                let gone = stream.sockets.removeValue(forKey: id)
            else { return nil }
            if let device = gone.deviceID, stream.byDevice[device] == id { stream.byDevice[device] = nil }
            // The order state goes with the last socket; the next one reads a new baseline.
            last = stream.sockets.isEmpty
            streams[userID] = last ? nil : stream
            return gone.sink
        }
        if last { presenceObserver.snapshot?(userID, false) }
        return sink
    }

    /// Releases a user's events in `seq` order; starts reading missing ones from the store on a gap.
    private func release(_ events: [Outgoing], of userID: String) {
        let gap = stripe(of: userID).withLock { streams -> (epoch: UInt64, after: Int64)? in
            // Taken out while changed, so its socket table is uniquely referenced and not copied.
            guard var stream = streams.removeValue(forKey: userID) else { return nil }
            for event in events { Self.accept(event, into: &stream) }
            var gap: (epoch: UInt64, after: Int64)?
            if !stream.early.isEmpty, !stream.fillingGap, let released = stream.released {
                stream.fillingGap = true
                gap = (stream.epoch, released)
            }
            streams[userID] = stream
            return gap
        }
        if let gap { Task { await fillGap(of: userID, epoch: gap.epoch, after: gap.after) } }
    }

    /// Reads the events missing after `seq` from the store, then releases what waited; if the store
    /// has not got them either (more than ``replayLimit`` newer ones), the waiting events go out
    /// anyway rather than hold the stream forever.
    private func fillGap(of userID: String, epoch: UInt64, after seq: Int64) async {
        let found = (try? await store.events(forUser: userID, after: seq, limit: replayLimit)) ?? []
        let filled = found.compactMap(outgoing)
        stripe(of: userID).withLock { streams in
            guard streams[userID]?.epoch == epoch, var stream = streams.removeValue(forKey: userID) else { return }
            stream.fillingGap = false
            for event in filled { Self.accept(event, into: &stream) }
            for seq in stream.early.keys.sorted() {
                guard let event = stream.early.removeValue(forKey: seq) else { continue }
                stream.released = max(stream.released ?? seq, seq)
                Self.fanOut(event, in: &stream)
            }
            streams[userID] = stream
        }
    }

    /// Puts one event in its place in the user's order: released when it is the next `seq` (with
    /// the early ones it unblocks), kept when it is ahead, ignored when already released.
    private static func accept(_ event: Outgoing, into stream: inout UserStream) {
        guard let released = stream.released else {
            // No baseline yet: the socket is still going live and holds what arrives; the
            // publication lock keeps these in order.
            stream.released = event.seq
            fanOut(event, in: &stream)
            return
        }
        if event.seq <= released { return }
        if event.seq > released + 1 {
            stream.early[event.seq] = event
            return
        }
        stream.released = event.seq
        fanOut(event, in: &stream)
        while let next = stream.early.removeValue(forKey: (stream.released ?? 0) + 1) {
            stream.released = next.seq
            fanOut(next, in: &stream)
        }
    }

    /// Hands one released event to every socket of the user (held while a socket goes live).
    private static func fanOut(_ event: Outgoing, in stream: inout UserStream) {
        // In place through the values' indices: no copy of the socket table per event.
        var index = stream.sockets.startIndex
        while index != stream.sockets.endIndex {
            if stream.sockets.values[index].pending != nil {
                stream.sockets.values[index].pending?.append(event)
            } else {
                write(event, to: &stream.sockets.values[index])
            }
            stream.sockets.formIndex(after: &index)
        }
    }

    /// Writes one event unless the socket had it already (a replayed event also delivered live).
    private static func write(_ event: Outgoing, to subscriber: inout Subscriber) {
        guard event.seq > subscriber.lastSeq else { return }
        subscriber.lastSeq = event.seq
        if let except = event.stored.exceptDeviceID, except == subscriber.deviceID { return }
        subscriber.sink.send(text: event.text)
    }

    private func outgoing(_ event: StoredEvent) -> Outgoing? {
        // Jansson's text is the encoder's (RingerStore's `CallEvent.jsonWriter`, issue 33).
        guard
            let text = event.event.jsonWriter.text
                ?? (try? encoder.encode(event.event)).map({ String(decoding: $0, as: UTF8.self) })
        else { return nil }
        return Outgoing(stored: event, text: text)
    }
}
