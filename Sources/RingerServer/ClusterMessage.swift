import Foundation
import RingerStore
import RingerWire

/// What one server of a cluster tells the others on Redis' `ringer:events` channel, as JSON:
/// `{"node":"…","events":[{"user_id":"bob","except_device":null,"event":{"seq":7,"type":"call.accepted","call":{…}}}]}`
/// or `{"node":"…","heard":"<call id>"}` (a party of an accepted call was heard from on that server).
///
/// Pub/sub delivers at most once: a message lost here is filled from the store (``ClusterLink``), since every
/// event is stored, with its `seq`, before it is published.
struct ClusterMessage: Codable, Sendable {
    /// One stored event for one user.
    struct Event: Codable, Sendable {
        var userId: String
        var exceptDevice: String?
        var event: CallEvent
    }

    /// The sending server's incarnation (``ClusterLink/incarnation``); a server ignores its own messages.
    var node: String
    var events: [Event]?
    var heard: String?

    init(node: String, events: [StoredEvent]) {
        self.node = node
        self.events = events.map { Event(userId: $0.userID, exceptDevice: $0.exceptDeviceID, event: $0.event) }
    }

    init(node: String, heard callID: String) {
        self.node = node
        self.heard = callID
    }

    /// The events as the hub takes them.
    var storedEvents: [StoredEvent] {
        (events ?? []).map { StoredEvent(userID: $0.userId, exceptDeviceID: $0.exceptDevice, event: $0.event) }
    }
}
