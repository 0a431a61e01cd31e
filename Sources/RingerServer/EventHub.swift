import Foundation
import RingerStore
import RingerWire

/// Where a subscriber's events are written: an open WebSocket, or a test double.
public protocol EventSink: Sendable {
    /// Queues one text frame. Must not block.
    func send(text: String)
    /// Closes the connection.
    func close()
}

/// Delivers call events to the WebSockets of each user's devices, and replays missed ones.
///
/// Every event is stored (with its per-user `seq`) before it reaches the hub, so a device that
/// reconnects with `?since=<seq>` gets what it missed, then the live stream, in `seq` order with no
/// repeats. The replay is bounded: at most ``replayLimit`` events, the newest ones (they say where
/// each call is now). A `since` beyond the user's newest event (a stale value from another
/// install) counts as "now", so live events are never held back.
actor EventHub {
    private struct Subscriber {
        let userID: String
        let deviceID: String?
        let sink: any EventSink
        var lastSeq: Int64
        /// Live events held back while the replay is read from the store; nil once live.
        var pending: [StoredEvent]?
    }

    /// Most events replayed on one reconnect.
    let replayLimit = 500
    private let store: any RingerStore
    private let encoder = RingerJSON.encoder()
    private var subscribers: [UInt64: Subscriber] = [:]
    /// Sockets that closed before their `connect` ran (the two hop to the hub separately).
    private var closedEarly: Set<UInt64> = []

    init(store: any RingerStore) { self.store = store }

    /// Adds a subscriber and, with `since`, replays the events after it before going live; then sends
    /// ``StreamReady`` with the seq to resume from, so a device that never saw an event can still
    /// reconnect with `since` and get what it missed while its socket was down.
    /// - Parameters:
    ///   - id: unique per connection.
    ///   - userID: the authenticated user.
    ///   - deviceID: the device holding the socket, if it said.
    ///   - since: replay events with a greater `seq`; nil for live events only.
    func connect(id: UInt64, userID: String, deviceID: String?, sink: any EventSink, since: Int64?) async {
        if closedEarly.remove(id) != nil { return }
        // Live events are held while the store is read, so replay, held and live events go out in order.
        subscribers[id] = Subscriber(userID: userID, deviceID: deviceID, sink: sink, lastSeq: since ?? .min, pending: [])
        let latest: Int64
        var missed: [StoredEvent] = []
        do {
            latest = try await store.latestSeq(forUser: userID)
            if let since {
                missed = try await store.events(forUser: userID, after: min(since, latest), limit: replayLimit)
                if since > latest { subscribers[id]?.lastSeq = latest }
            }
        } catch {
            // Without the replay the device would silently miss events: close, so it reconnects and retries.
            subscribers[id] = nil
            sink.close()
            return
        }
        guard var subscriber = subscribers[id] else { return }
        let held = subscriber.pending ?? []
        subscriber.pending = nil
        for event in missed + held { write(event, to: &subscriber) }
        // Without `since` an event stored just before `latest` was read may still be on its way to the
        // hub: it is delivered live (lastSeq stays low here), and the client counts events it receives
        // apart from this resume point.
        let resumeFrom = max(latest, subscriber.lastSeq, 0)
        if let data = try? encoder.encode(StreamReady(seq: resumeFrom)) {
            subscriber.sink.send(text: String(decoding: data, as: UTF8.self))
        }
        subscribers[id] = subscriber
    }

    /// Removes a subscriber (its socket closed).
    func disconnect(id: UInt64) {
        if subscribers.removeValue(forKey: id) == nil { closedEarly.insert(id) }
    }

    /// Sends stored events to every matching subscriber, skipping the device that acted.
    func deliver(_ events: [StoredEvent]) {
        for (id, var subscriber) in subscribers {
            for event in events where event.userID == subscriber.userID {
                if subscriber.pending != nil {
                    subscriber.pending?.append(event)
                } else {
                    write(event, to: &subscriber)
                }
            }
            subscribers[id] = subscriber
        }
    }

    /// True when the user holds at least one open socket.
    func isOnline(userID: String) -> Bool { subscribers.values.contains { $0.userID == userID } }

    /// True when the user holds an open socket announced as this device.
    func isConnected(userID: String, deviceID: String) -> Bool {
        subscribers.values.contains { $0.userID == userID && $0.deviceID == deviceID }
    }

    /// Closes every socket (server shutdown).
    func closeAll() {
        for subscriber in subscribers.values { subscriber.sink.close() }
        subscribers.removeAll()
    }

    private func write(_ event: StoredEvent, to subscriber: inout Subscriber) {
        guard event.event.seq > subscriber.lastSeq else { return }
        subscriber.lastSeq = event.event.seq
        if let except = event.exceptDeviceID, except == subscriber.deviceID { return }
        guard let data = try? encoder.encode(event.event) else { return }
        subscriber.sink.send(text: String(decoding: data, as: UTF8.self))
    }
}
