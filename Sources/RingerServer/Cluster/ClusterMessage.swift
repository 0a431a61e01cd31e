import Foundation
import RingerStore
import RingerWire

/// What one server of a cluster tells the others on Redis' `<prefix>:events` channel (``ClusterKeys``), as JSON:
/// `{"node":"…","events":[{"user_id":"bob","except_device":null,"event":{"seq":7,"type":"call.accepted","call":{…}}}]}`
/// or `{"node":"…","heard":"<call id>","heard_by":"<user id>"}` (a party of an accepted call was heard from on that
/// server; `heard_by` is absent from servers before group calls), or
/// `{"node":"…","connected":{"user_id":"bob","device_id":"bob-iphone","connected_at":<unix ms>}}` (that device's
/// older socket on another server is closed, as a newer one on the same server would close it).
///
/// Pub/sub delivers at most once: a message lost here is filled from the store (``ClusterLink``), since every
/// event is stored, with its `seq`, before it is published.
struct ClusterMessage: Codable, Sendable {
    /// One stored event for one user.
    struct Event: Codable, Sendable {
        var userID: String
        var exceptDevice: String?
        var event: CallEvent

        /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
        /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
        private enum CodingKeys: String, CodingKey {
            case exceptDevice, event
            case userID = "userId"
        }
    }

    /// A device's socket opened on the sending server.
    struct DeviceSocket: Codable, Sendable {
        var userID: String
        var deviceID: String
        /// Unix milliseconds of the sending server's clock.
        var connectedAt: Int64

        /// The keys as the wire has always spelled them: Foundation's snake_case conversion turns `callId` into
        /// `call_id` and back, but reads `call_id` as `callId`, never `callID`.
        private enum CodingKeys: String, CodingKey {
            case connectedAt
            case userID = "userId"
            case deviceID = "deviceId"
        }
    }

    /// The sending server's incarnation (``ClusterLink/incarnation``); a server ignores its own messages.
    var node: String
    var events: [Event]?
    var heard: String?
    /// Who was heard from, so their leg of a group call is too.
    var heardBy: String?
    var connected: DeviceSocket?

    init(node: String, events: [StoredEvent]) {
        self.node = node
        self.events = events.map { Event(userID: $0.userID, exceptDevice: $0.exceptDeviceID, event: $0.event) }
    }

    init(node: String, heard callID: String, by user: String?) {
        self.node = node
        self.heard = callID
        self.heardBy = user
    }

    init(node: String, connected: DeviceSocket) {
        self.node = node
        self.connected = connected
    }

    /// The events as the hub takes them.
    var storedEvents: [StoredEvent] {
        (events ?? []).map { StoredEvent(userID: $0.userID, exceptDeviceID: $0.exceptDevice, event: $0.event) }
    }
}
