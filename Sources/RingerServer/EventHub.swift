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

    /// Adds a subscriber and, with `since`, replays the events after it before going live.
    /// - Parameters:
    ///   - id: unique per connection.
    ///   - userID: the authenticated user.
    ///   - deviceID: the device holding the socket, if it said.
    ///   - since: replay events with a greater `seq`; nil for live events only.
    func connect(id: UInt64, userID: String, deviceID: String?, sink: any EventSink, since: Int64?) async {
        if closedEarly.remove(id) != nil { return }
        guard let since else {
            subscribers[id] = Subscriber(userID: userID, deviceID: deviceID, sink: sink, lastSeq: .min, pending: nil)
            return
        }
        subscribers[id] = Subscriber(userID: userID, deviceID: deviceID, sink: sink, lastSeq: since, pending: [])
        let missed: [StoredEvent]
        do {
            let latest = try await store.latestSeq(forUser: userID)
            missed = try await store.events(forUser: userID, after: min(since, latest), limit: replayLimit)
            if since > latest { subscribers[id]?.lastSeq = latest }
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
