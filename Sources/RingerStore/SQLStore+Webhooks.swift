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
    static let endpointColumns = """
        endpoint_id, url, event_types, description, enabled, disabled_reason, secret, previous_secret,
        previous_secret_expires_at, created_at, updated_at
        """

    /// An endpoint from ``endpointColumns``, read from column `first` on.
    static func endpoint(_ row: any SQLRow, from first: Int32 = 0) -> StoredWebhookEndpoint {
        let types = (row.text(first + 2) ?? "").split(separator: " ").map { WebhookEventType(rawValue: String($0)) }
        return StoredWebhookEndpoint(
            info: WebhookEndpoint(
                endpointID: row.text(first) ?? "", url: row.text(first + 1) ?? "", eventTypes: types,
                description: row.text(first + 3), enabled: row.integer(first + 4) != 0,
                disabledReason: row.text(first + 5),
                previousSecretExpiresAt: row.date(first + 8),
                createdAt: Date(timeIntervalSince1970: row.real(first + 9)),
                updatedAt: Date(timeIntervalSince1970: row.real(first + 10))),
            sealedSecret: row.text(first + 6) ?? "", sealedPreviousSecret: row.text(first + 7))
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
        try await run { db in try Self.endpoint(id: id, in: db) }
    }

    /// The endpoint with this id, read on `db` (inside a change's transaction, as it is after the change).
    private static func endpoint(id: String, in db: any SQLConnection) throws -> StoredWebhookEndpoint? {
        var found: StoredWebhookEndpoint?
        try db.query("SELECT \(endpointColumns) FROM webhook_endpoints WHERE endpoint_id = ?", [.text(id)]) {
            found = endpoint($0)
        }
        return found
    }

    public func updateWebhookEndpoint(
        id: String, url: String, eventTypes: [WebhookEventType], description: String?, enabled: Bool?, at now: Date
    ) async throws -> StoredWebhookEndpoint? {
        try await run { db in
            try db.transaction {
                let time = SQLValue.real(now.timeIntervalSince1970)
                // Only the fields a change names: a secret rotated, or the endpoint disabled by a 410, meanwhile stays.
                // Enabling clears why it was disabled; disabling fails what waits for it, which nothing would send.
                try db.query(
                    """
                    UPDATE webhook_endpoints SET url = ?, event_types = ?, description = ?, enabled = COALESCE(?, enabled),
                      disabled_reason = CASE WHEN ? = 1 THEN NULL ELSE disabled_reason END, updated_at = ?
                    WHERE endpoint_id = ?
                    """,
                    [
                        .text(url), .text(eventTypes.map(\.rawValue).joined(separator: " ")), .optional(description),
                        enabled.map { .integer($0 ? 1 : 0) } ?? .null, .integer(enabled == true ? 1 : 0), time,
                        .text(id),
                    ])
                guard db.changes > 0 else { return nil }
                if enabled == false { try Self.failPending(endpoint: id, because: "the endpoint was disabled", in: db) }
                return try Self.endpoint(id: id, in: db)
            }
        }
    }

    public func rotateWebhookSecret(
        id: String, sealedSecret: String, keepPreviousUntil: Date?, at now: Date
    ) async throws -> StoredWebhookEndpoint? {
        try await run { db in
            try db.transaction {
                // The secret that signed until now becomes the previous one in the same statement, so two rotations at
                // once never lose the secret the other answered.
                try db.query(
                    """
                    UPDATE webhook_endpoints SET previous_secret = CASE WHEN ? = 1 THEN secret ELSE NULL END,
                      previous_secret_expires_at = ?, secret = ?, updated_at = ?
                    WHERE endpoint_id = ?
                    """,
                    [
                        .integer(keepPreviousUntil == nil ? 0 : 1),
                        keepPreviousUntil.map { .real($0.timeIntervalSince1970) } ?? .null, .text(sealedSecret),
                        .real(now.timeIntervalSince1970), .text(id),
                    ])
                guard db.changes > 0 else { return nil }
                return try Self.endpoint(id: id, in: db)
            }
        }
    }

    /// Fails an endpoint's pending deliveries, which nothing will send while it is disabled; inside the caller's
    /// transaction. Redelivering one after the endpoint is enabled again sends it.
    private static func failPending(endpoint: String, because reason: String, in db: any SQLConnection) throws {
        try db.query(
            """
            UPDATE webhook_deliveries SET state = 'failed', last_error = ?, claimed_by = NULL, claimed_until = NULL
            WHERE endpoint_id = ? AND state = 'pending'
            """, [.text(reason), .text(endpoint)])
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
        return WebhookDelivery(
            deliveryID: row.integer(0), eventID: row.text(1) ?? "",
            eventType: WebhookEventType(rawValue: row.text(2) ?? ""),
            callID: row.text(3), state: state, attempts: Int(row.integer(5)),
            nextAttemptAt: state == .pending ? row.date(6) : nil, lastAttemptAt: row.date(7),
            lastStatus: row.text(8).map { _ in Int(row.integer(8)) }, lastError: row.text(9), deliveredAt: row.date(10),
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

    /// Every endpoint, the types each takes (nil: every type) and whether it is enabled; read inside the change's
    /// transaction, so an endpoint gets every event committed after its own creation. A disabled endpoint's deliveries
    /// are written `failed`, so what it missed while disabled can be redelivered once it is enabled again.
    private static func subscribers(
        in db: any SQLConnection
    ) throws -> [(id: String, types: Set<String>?, enabled: Bool)] {
        var found: [(id: String, types: Set<String>?, enabled: Bool)] = []
        try db.query("SELECT endpoint_id, event_types, enabled FROM webhook_endpoints", []) { row in
            let types = (row.text(1) ?? "").split(separator: " ").map(String.init)
            found.append((row.text(0) ?? "", types.isEmpty ? nil : Set(types), row.integer(2) != 0))
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
            let targets = subscribers.filter { $0.types?.contains(event.type.rawValue) ?? true }.map {
                ($0.id, $0.enabled)
            }
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
        let targets = try subscribers(in: db).filter { $0.types?.contains(type.rawValue) ?? true }.map {
            ($0.id, $0.enabled)
        }
        guard !targets.isEmpty else { return }
        try outbox(type, data, callID: nil, to: targets, in: db)
    }

    /// One event and its deliveries, due at once.
    private static func outbox(
        _ type: WebhookEventType, _ data: WebhookData, callID: String?, to endpoints: [(id: String, enabled: Bool)],
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
                INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, next_attempt_at, last_error, created_at)
                VALUES (?, ?, ?, 0, ?, ?, ?)
                """,
                [
                    .text(id), .text(endpoint.id), .text(endpoint.enabled ? "pending" : "failed"), time,
                    endpoint.enabled ? .null : .text("the endpoint was disabled"), time,
                ])
        }
    }
}

/// A delivery a server claimed for one attempt, with what the attempt needs.
public struct ClaimedWebhookDelivery: Sendable, Hashable {
    /// The delivery.
    public var deliveryID: Int64
    /// The event's id (`webhook-id`).
    public var eventID: String
    /// The event's body, as stored.
    public var payload: String
    /// The endpoint, with its sealed secrets.
    public var endpoint: StoredWebhookEndpoint
    /// Attempts made before this one.
    public var attempts: Int
    /// The claim's token (its lease's end, as stored): ``RingerStore/finishWebhookDelivery(_:by:at:outcome:)`` names it.
    public var claim: Double
}

/// How one attempt ended, as the server stores it.
public enum WebhookAttemptOutcome: Sendable, Hashable {
    /// The endpoint answered 2xx.
    case delivered(status: Int)
    /// It failed; try again at `retryAt`, or never (nil: the delivery is `failed`).
    case failed(status: Int?, error: String, retryAt: Date?)
    /// It answered `410 Gone`: the endpoint is disabled and its pending deliveries fail.
    case endpointGone
    /// Nothing was sent (this server cannot sign it: its secret does not open here); not counted as an attempt, due
    /// again at `retryAt`.
    case postponed(error: String, retryAt: Date)
}

extension SQLStore {
    public func claimWebhookDeliveries(
        at now: Date, by node: String, lease: TimeInterval, limit: Int, perEndpoint: Int, inFlight: [String: Int],
        nodeDeadAfter: TimeInterval
    ) async throws -> [ClaimedWebhookDelivery] {
        guard limit > 0 else { return [] }
        return try await run { db in
            try db.transaction {
                let time = now.timeIntervalSince1970
                // Due, and not held: never claimed, or its claim ran out, or its claimer stopped beating (it died
                // mid-attempt: the attempt is made again, and the receiver de-duplicates by webhook-id).
                var rows: [(id: Int64, endpoint: String)] = []
                // Endpoints with all their slots in flight here are passed over in the query itself, so their backlog
                // never fills the window and hides another endpoint's deliveries; only enabled endpoints' are taken.
                let full = inFlight.filter { $0.value >= perEndpoint }.map(\.key)
                let skip =
                    full.isEmpty ? "" : " AND d.endpoint_id NOT IN (\(full.map { _ in "?" }.joined(separator: ", ")))"
                try db.query(
                    """
                    SELECT d.delivery_id, d.endpoint_id FROM webhook_deliveries d
                    WHERE d.state = 'pending' AND d.next_attempt_at <= ?
                      AND (d.claimed_until IS NULL OR d.claimed_until < ?
                        OR (d.claimed_by <> ?
                          AND NOT EXISTS (SELECT 1 FROM ringer_nodes n WHERE n.node = d.claimed_by AND n.heartbeat_at > ?)))
                      AND EXISTS (SELECT 1 FROM webhook_endpoints p WHERE p.endpoint_id = d.endpoint_id AND p.enabled = 1)\(skip)
                    ORDER BY d.next_attempt_at LIMIT ?\(db.dialect.claimRows)
                    """,
                    [.real(time), .real(time), .text(node), .real(time - nodeDeadAfter)] + full.map { .text($0) }
                        + [.integer(Int64(limit * 4))]
                ) { row in rows.append((row.integer(0), row.text(1) ?? "")) }
                // At most `perEndpoint` at once per endpoint: a slow one holds its own slots only.
                var taken = inFlight
                var chosen: [Int64] = []
                for row in rows where chosen.count < limit && taken[row.endpoint, default: 0] < perEndpoint {
                    taken[row.endpoint, default: 0] += 1
                    chosen.append(row.id)
                }
                var claimed: [ClaimedWebhookDelivery] = []
                // The lease's end is the claim's token: a finish must name it, so an attempt whose claim lapsed and was
                // taken again (by another server, or this one) stores nothing.
                let until = time + lease
                for id in chosen {
                    try db.query(
                        "UPDATE webhook_deliveries SET claimed_by = ?, claimed_until = ? WHERE delivery_id = ?",
                        [.text(node), .real(until), .integer(id)])
                    try db.query(
                        """
                        SELECT d.delivery_id, d.event_id, e.payload, d.attempts, \(Self.prefixedEndpointColumns)
                        FROM webhook_deliveries d JOIN webhook_events e ON e.event_id = d.event_id
                        JOIN webhook_endpoints p ON p.endpoint_id = d.endpoint_id
                        WHERE d.delivery_id = ? AND p.enabled = 1
                        """, [.integer(id)]
                    ) { row in
                        claimed.append(
                            ClaimedWebhookDelivery(
                                deliveryID: row.integer(0), eventID: row.text(1) ?? "", payload: row.text(2) ?? "",
                                endpoint: Self.endpoint(row, from: 4), attempts: Int(row.integer(3)), claim: until))
                    }
                }
                return claimed
            }
        }
    }

    /// ``endpointColumns`` read through the alias `p`.
    private static let prefixedEndpointColumns = endpointColumns.split(separator: ",")
        .map { "p." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")

    public func finishWebhookDelivery(
        _ claimed: ClaimedWebhookDelivery, by node: String, at now: Date, outcome: WebhookAttemptOutcome
    )
        async throws
    {
        let deliveryID = claimed.deliveryID
        try await run { db in
            try db.transaction {
                let time = SQLValue.real(now.timeIntervalSince1970)
                let mine: [SQLValue] = [.integer(deliveryID), .text(node), .real(claimed.claim)]
                switch outcome {
                case .delivered(let status):
                    try db.query(
                        """
                        UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1, last_attempt_at = ?,
                          last_status = ?, last_error = NULL, delivered_at = ?, claimed_by = NULL, claimed_until = NULL
                        WHERE delivery_id = ? AND claimed_by = ? AND claimed_until = ?
                        """, [time, .integer(Int64(status)), time] + mine)
                case .failed(let status, let error, let retryAt):
                    try db.query(
                        """
                        UPDATE webhook_deliveries SET state = ?, attempts = attempts + 1, last_attempt_at = ?,
                          last_status = ?, last_error = ?, next_attempt_at = ?, claimed_by = NULL, claimed_until = NULL
                        WHERE delivery_id = ? AND claimed_by = ? AND claimed_until = ?
                        """,
                        [
                            .text(retryAt == nil ? "failed" : "pending"), time,
                            status.map { .integer(Int64($0)) } ?? .null, .text(String(error.prefix(500))),
                            .real((retryAt ?? now).timeIntervalSince1970),
                        ] + mine)
                case .postponed(let error, let retryAt):
                    // Not an attempt: nothing was sent (this server cannot sign). Another server, or this one once
                    // fixed, sends it.
                    try db.query(
                        """
                        UPDATE webhook_deliveries SET last_error = ?, next_attempt_at = ?, claimed_by = NULL,
                          claimed_until = NULL
                        WHERE delivery_id = ? AND claimed_by = ? AND claimed_until = ?
                        """, [.text(String(error.prefix(500))), .real(retryAt.timeIntervalSince1970)] + mine)
                case .endpointGone:
                    try db.query(
                        """
                        UPDATE webhook_deliveries SET state = 'failed', attempts = attempts + 1, last_attempt_at = ?,
                          last_status = 410, last_error = 'the endpoint answered 410 Gone', claimed_by = NULL,
                          claimed_until = NULL
                        WHERE delivery_id = ? AND claimed_by = ? AND claimed_until = ?
                        """, [time] + mine)
                    guard db.changes > 0 else { return }
                    let endpoint = SQLValue.text(claimed.endpoint.info.endpointID)
                    try db.query(
                        """
                        UPDATE webhook_endpoints SET enabled = 0, disabled_reason = 'gone', updated_at = ?
                        WHERE endpoint_id = ?
                        """, [time, endpoint])
                    try Self.failPending(
                        endpoint: claimed.endpoint.info.endpointID,
                        because: "the endpoint was disabled: it answered 410 Gone", in: db)
                }
            }
        }
    }

    public func oldestPendingWebhookEvent() async throws -> Date? {
        try await run { db in
            var oldest: Date?
            // Only what a server will send: a disabled endpoint's deliveries are failed, not waiting.
            try db.query(
                """
                SELECT MIN(d.created_at) FROM webhook_deliveries d JOIN webhook_endpoints p ON p.endpoint_id = d.endpoint_id
                WHERE d.state = 'pending' AND p.enabled = 1
                """, []
            ) { row in
                oldest = row.date(0)
            }
            return oldest
        }
    }
}
