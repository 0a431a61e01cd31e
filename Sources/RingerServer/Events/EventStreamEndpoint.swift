import Foundation
import LibWebSockets
import RingerHTTP
import RingerSupport
import RingerStore
import RingerWire

/// `GET /v1/events` upgraded to a WebSocket (docs/openapi.yaml `openEventStream`): the socket joins the
/// ``EventHub`` before the handshake, so the per-user cap and "the newest socket of a device wins" are decided
/// synchronously; the replay (`since`) and going live follow on a task.
///
/// Thread-safety: ``upgrade(_:user:connection:)`` runs on the libwebsockets thread and does no I/O.
final class EventStreamEndpoint: Sendable {
    private let hub: EventHub
    private let store: any RingerStore
    private let limits: RateLimits
    private let clock: any ServerClock
    private let log: Logger
    /// Names each socket in the hub; never reused while the server runs.
    private let nextConnectionID = LockedValue<UInt64>(0)

    init(hub: EventHub, store: any RingerStore, limits: RateLimits, clock: any ServerClock, log: Logger) {
        self.hub = hub
        self.store = store
        self.limits = limits
        self.clock = clock
        self.log = log
    }

    /// Decides the upgrade of an authenticated user's request: its connect rate, `since` and `device_id`, then a
    /// place in the hub.
    /// - Parameters:
    ///   - request: the upgrade request; `since` (a sequence number, 0 or more) and `device_id` (an identifier)
    ///     come from its query.
    ///   - user: the user its token names.
    ///   - connection: the socket, which the hub keeps as the user's ``EventSink`` once admitted.
    /// - Returns: `.accept` with the socket's delegate, or `.reject` with 429 `too-many-sockets`.
    /// - Throws: ``RateLimitExceeded`` past `--rate-limit-event-streams-per-minute`; 400 ``Problem`` for a bad
    ///   `since` or `device_id`.
    func upgrade(_ request: HTTPRequest, user: Party, connection: WebSocketConnection) throws -> WebSocketUpgrade {
        try limits.admitEventStreamConnect(user: user.id)
        var since: Int64?
        if let text = request.query["since"] {
            guard let value = Int64(text), value >= 0 else {
                throw APIProblem.invalidField("since must be a sequence number (0 or more)")
            }
            since = value
        }
        let deviceID = request.query["device_id"]
        if let deviceID, !Identifier.isValid(deviceID) {
            throw APIProblem.invalidDeviceID()
        }
        let id = nextConnectionID.withLock { id -> UInt64 in
            id += 1
            return id
        }
        guard hub.admit(id: id, userID: user.id, deviceID: deviceID, sink: connection, since: since) == .admitted else {
            log.debug(
                "event stream refused: socket cap",
                [
                    "user.id": .string(user.id),
                    "ws.max_sockets_per_user": .string("\(hub.maxSocketsPerUser)"),
                ])
            return .reject(APIProblem.response(APIProblem.tooManySockets(limit: hub.maxSocketsPerUser)))
        }
        let hub = self.hub
        let store = self.store
        let now = clock.now()
        Task {
            try? await store.upsertUser(id: user.id, name: user.name, at: now)
            await hub.goLive(id: id, userID: user.id)
        }
        log.debug("event stream opened", ["user.id": .string(user.id), "device.id": .string(deviceID ?? "")])
        return .accept(EventSession(id: id, userID: user.id, hub: hub))
    }
}

extension WebSocketConnection: EventSink {}

/// The delegate of one `/v1/events` socket: the hub is the only reader of the server's events,
/// clients send nothing the server needs.
private final class EventSession: WebSocketDelegate {
    let id: UInt64
    let userID: String
    let hub: EventHub

    init(id: UInt64, userID: String, hub: EventHub) {
        self.id = id
        self.userID = userID
        self.hub = hub
    }

    func webSocket(_ connection: WebSocketConnection, didReceiveText text: String) {}

    func webSocketDidClose(_ connection: WebSocketConnection) {
        hub.disconnect(id: id, userID: userID)
    }
}
