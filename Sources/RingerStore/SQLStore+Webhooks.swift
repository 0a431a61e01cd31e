public import Foundation
import RingerCore
public import RingerWire

/// A webhook endpoint as the store keeps it: its record and its signing secrets, sealed by the server
/// (`SecretBox`); the store never sees a secret in the clear.
public struct StoredWebhookEndpoint: Hashable, Sendable {
    /// The record the API shows.
    public var info: WebhookEndpoint
    /// The current signing secret, sealed.
    public var sealedSecret: String
    /// The rotated-out secret that still signs until `info.previousSecretExpiresAt`, sealed.
    public var sealedPreviousSecret: String?

    /// Creates the record.
    public init(info: WebhookEndpoint, sealedSecret: String, sealedPreviousSecret: String? = nil) {
        self.info = info
        self.sealedSecret = sealedSecret
        self.sealedPreviousSecret = sealedPreviousSecret
    }
}

extension SQLStore {
    // MARK: Endpoints

    /// The columns an endpoint is read from, in ``endpoint(_:)``'s order.
    private static let endpointColumns = """
        endpoint_id, url, event_types, description, enabled, disabled_reason, secret, previous_secret,
        previous_secret_expires_at, created_at, updated_at
        """

    private static func endpoint(_ row: any SQLRow) -> StoredWebhookEndpoint {
        let types = (row.text(2) ?? "").split(separator: " ").map { WebhookEventType(rawValue: String($0)) }
        return StoredWebhookEndpoint(
            info: WebhookEndpoint(
                endpointID: row.text(0) ?? "", url: row.text(1) ?? "", eventTypes: types, description: row.text(3),
                enabled: row.integer(4) != 0, disabledReason: row.text(5),
                previousSecretExpiresAt: row.text(8).map { _ in Date(timeIntervalSince1970: row.real(8)) },
                createdAt: Date(timeIntervalSince1970: row.real(9)),
                updatedAt: Date(timeIntervalSince1970: row.real(10))),
            sealedSecret: row.text(6) ?? "", sealedPreviousSecret: row.text(7))
    }

    /// The bindings of an endpoint's columns but its id, in ``endpointColumns``' order after the id.
    private static func endpointValues(_ endpoint: StoredWebhookEndpoint) -> [SQLValue] {
        let info = endpoint.info
        return [
            .text(info.url), .text(info.eventTypes.map(\.rawValue).joined(separator: " ")), .optional(info.description),
            .integer(info.enabled ? 1 : 0), .optional(info.disabledReason), .text(endpoint.sealedSecret),
            .optional(endpoint.sealedPreviousSecret),
            info.previousSecretExpiresAt.map { .real($0.timeIntervalSince1970) } ?? .null,
            .real(info.createdAt.timeIntervalSince1970), .real(info.updatedAt.timeIntervalSince1970),
        ]
    }

    public func insertWebhookEndpoint(_ endpoint: StoredWebhookEndpoint) async throws {
        try await run { db in
            try db.query(
                "INSERT INTO webhook_endpoints (\(Self.endpointColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [.text(endpoint.info.endpointID)] + Self.endpointValues(endpoint))
        }
    }

    public func webhookEndpoints() async throws -> [StoredWebhookEndpoint] {
        try await run { db in
            var found: [StoredWebhookEndpoint] = []
            try db.query(
                "SELECT \(Self.endpointColumns) FROM webhook_endpoints ORDER BY created_at, \(db.dialect.insertionOrder)",
                []
            ) { found.append(Self.endpoint($0)) }
            return found
        }
    }

    public func webhookEndpoint(id: String) async throws -> StoredWebhookEndpoint? {
        try await run { db in
            var found: StoredWebhookEndpoint?
            try db.query("SELECT \(Self.endpointColumns) FROM webhook_endpoints WHERE endpoint_id = ?", [.text(id)]) {
                found = Self.endpoint($0)
            }
            return found
        }
    }

    public func replaceWebhookEndpoint(_ endpoint: StoredWebhookEndpoint) async throws -> Bool {
        try await run { db in
            try db.query(
                """
                UPDATE webhook_endpoints SET url = ?, event_types = ?, description = ?, enabled = ?, disabled_reason = ?,
                  secret = ?, previous_secret = ?, previous_secret_expires_at = ?, created_at = ?, updated_at = ?
                WHERE endpoint_id = ?
                """, Self.endpointValues(endpoint) + [.text(endpoint.info.endpointID)])
            return db.changes > 0
        }
    }

    public func deleteWebhookEndpoint(id: String) async throws -> Bool {
        try await run { db in
            try db.transaction {
                try db.query("DELETE FROM webhook_deliveries WHERE endpoint_id = ?", [.text(id)])
                try db.query("DELETE FROM webhook_endpoints WHERE endpoint_id = ?", [.text(id)])
                return db.changes > 0
            }
        }
    }

    // MARK: Deliveries

    /// The columns a delivery is read from (with its event's type and call), in ``delivery(_:)``'s order.
    private static let deliveryColumns = """
        d.delivery_id, d.event_id, e.type, e.call_id, d.state, d.attempts, d.next_attempt_at, d.last_attempt_at,
        d.last_status, d.last_error, d.delivered_at, d.created_at
        """

    private static func delivery(_ row: any SQLRow) -> WebhookDelivery {
        let state = WebhookDeliveryState(rawValue: row.text(4) ?? "")
        func date(_ index: Int32) -> Date? { row.text(index).map { _ in Date(timeIntervalSince1970: row.real(index)) } }
        return WebhookDelivery(
            deliveryID: row.integer(0), eventID: row.text(1) ?? "",
            eventType: WebhookEventType(rawValue: row.text(2) ?? ""),
            callID: row.text(3), state: state, attempts: Int(row.integer(5)),
            nextAttemptAt: state == .pending ? date(6) : nil, lastAttemptAt: date(7),
            lastStatus: row.text(8).map { _ in Int(row.integer(8)) }, lastError: row.text(9), deliveredAt: date(10),
            createdAt: Date(timeIntervalSince1970: row.real(11)))
    }

    public func webhookDeliveries(
        endpointID: String, state: WebhookDeliveryState?, before: Int64?, limit: Int
    ) async throws -> [WebhookDelivery] {
        try await run { db in
            var found: [WebhookDelivery] = []
            var bindings: [SQLValue] = [.text(endpointID), .integer(before ?? .max)]
            var filter = ""
            if let state {
                filter = " AND d.state = ?"
                bindings.append(.text(state.rawValue))
            }
            try db.query(
                """
                SELECT \(Self.deliveryColumns) FROM webhook_deliveries d JOIN webhook_events e ON e.event_id = d.event_id
                WHERE d.endpoint_id = ? AND d.delivery_id < ?\(filter) ORDER BY d.delivery_id DESC LIMIT ?
                """, bindings + [.integer(Int64(max(1, min(limit, 100))))]
            ) { found.append(Self.delivery($0)) }
            return found
        }
    }

    public func redeliverWebhook(deliveryID: Int64, endpointID: String, at now: Date) async throws -> WebhookDelivery? {
        try await run { db in
            try db.transaction {
                // A fresh series of attempts, from now; its lease, if any, is the past's.
                try db.query(
                    """
                    UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = ?, claimed_by = NULL,
                      claimed_until = NULL
                    WHERE delivery_id = ? AND endpoint_id = ?
                    """, [.real(now.timeIntervalSince1970), .integer(deliveryID), .text(endpointID)])
                guard db.changes > 0 else { return nil }
                var found: WebhookDelivery?
                try db.query(
                    """
                    SELECT \(Self.deliveryColumns) FROM webhook_deliveries d JOIN webhook_events e ON e.event_id = d.event_id
                    WHERE d.delivery_id = ?
                    """, [.integer(deliveryID)]
                ) { found = Self.delivery($0) }
                return found
            }
        }
    }

    // MARK: The outbox, inside the change's transaction

    /// The enabled endpoints and the types each takes (nil: every type); read inside the change's transaction, so an
    /// endpoint gets every event committed after its own creation.
    private static func subscribers(in db: any SQLConnection) throws -> [(id: String, types: Set<String>?)] {
        var found: [(id: String, types: Set<String>?)] = []
        try db.query("SELECT endpoint_id, event_types FROM webhook_endpoints WHERE enabled = 1", []) { row in
            let types = (row.text(1) ?? "").split(separator: " ").map(String.init)
            found.append((row.text(0) ?? "", types.isEmpty ? nil : Set(types)))
        }
        return found
    }

    /// Writes the events of a call's change (``CallMachine/webhookEvents(from:to:)``) to the outbox with a delivery per
    /// subscribed endpoint, numbering them in the call's sequence; nothing when no endpoint takes them.
    static func recordWebhookEvents(from before: CallMachine?, to after: CallMachine, in db: any SQLConnection) throws {
        let events = CallMachine.webhookEvents(from: before, to: after)
        guard !events.isEmpty else { return }
        let subscribers = try subscribers(in: db)
        guard !subscribers.isEmpty else { return }
        let call = after.call
        for event in events {
            let targets = subscribers.filter { $0.types?.contains(event.type.rawValue) ?? true }.map(\.id)
            guard !targets.isEmpty else { continue }
            var seq: Int64 = 0
            try db.query(
                "UPDATE calls SET webhook_seq = webhook_seq + 1 WHERE call_id = ? RETURNING webhook_seq",
                [.text(call.callID)]
            ) { seq = $0.integer(0) }
            var duration: Int64?
            if event.type == .callEnded, let accepted = call.acceptedAt, let ended = call.endedAt {
                duration = ended.unixMilliseconds - accepted.unixMilliseconds
            }
            let data = WebhookData(
                call: call, seq: seq, userID: event.userID, deviceID: event.deviceID, durationMs: duration)
            try outbox(event.type, data, callID: call.callID, to: targets, in: db)
        }
    }

    /// Writes a device's event to the outbox with a delivery per subscribed endpoint.
    static func recordDeviceEvent(_ data: WebhookData, in db: any SQLConnection) throws {
        let type = WebhookEventType.devicePushTokenRemoved
        let targets = try subscribers(in: db).filter { $0.types?.contains(type.rawValue) ?? true }.map(\.id)
        guard !targets.isEmpty else { return }
        try outbox(type, data, callID: nil, to: targets, in: db)
    }

    /// One event and its deliveries, due at once.
    private static func outbox(
        _ type: WebhookEventType, _ data: WebhookData, callID: String?, to endpoints: [String],
        in db: any SQLConnection
    ) throws {
        let now = Date()
        let id = "msg_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let payload = try encodeText(WebhookPayload(type: type, timestamp: now, data: data))
        let time = SQLValue.real(now.timeIntervalSince1970)
        try db.query(
            "INSERT INTO webhook_events (event_id, type, call_id, payload, created_at) VALUES (?, ?, ?, ?, ?)",
            [.text(id), .text(type.rawValue), .optional(callID), .text(payload), time])
        for endpoint in endpoints {
            try db.query(
                """
                INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, next_attempt_at, created_at)
                VALUES (?, ?, 'pending', 0, ?, ?)
                """, [.text(id), .text(endpoint), time, time])
        }
    }
}
