public import Foundation
public import RingerCore
public import RingerWire

/// Lends a connection to one operation at a time: ``SQLiteStore``'s one connection behind a lock, or a
/// connection from ``PostgresStore``'s pool.
protocol SQLConnectionSource: Sendable {
    /// Runs `body` with a connection it has to itself until it returns.
    /// - Throws: ``StoreError`` when no usable connection can be had; what `body` throws.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T

    /// Runs `body`, which only reads a few rows by key, with a connection it has to itself until it returns. It may
    /// run on the caller's thread: ``SQLiteStore`` reads on a second connection, without waiting for the writes'
    /// thread (WAL lets a reader see every commit before its read began, and never blocks the writer).
    /// - Throws: ``StoreError`` when no usable connection can be had; what `body` throws.
    func withReadConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T

    /// Runs `body` like ``withConnection(_:)``, without the caller waiting: `committed` is told how it ended (nil
    /// once committed), on whichever thread ends it.
    func submit(
        _ body: @escaping @Sendable (any SQLConnection) throws -> Void,
        committed: @escaping @Sendable ((any Error)?) -> Void)
}

extension SQLConnectionSource {
    /// Reads like everything else: a connection from the pool (``PostgresStore``).
    func withReadConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    {
        try await withConnection(body)
    }

    /// Runs `body` like ``withConnection(_:)`` without waiting for it: `committed` hears how it ended (nil once
    /// committed). In a task of its own (``PostgresStore``).
    func submit(
        _ body: @escaping @Sendable (any SQLConnection) throws -> Void,
        committed: @escaping @Sendable ((any Error)?) -> Void
    ) {
        Task {
            do {
                try await withConnection(body)
                committed(nil)
            } catch {
                committed(error)
            }
        }
    }
}

/// The store's rules in SQL, the same on SQLite and PostgreSQL: ``SQLiteStore`` and ``PostgresStore`` are this
/// class on their database. Where the two spell something differently, ``SQLDialect`` says how.
///
/// Every decision two servers could race on is settled inside one transaction: a call's parties are locked
/// (``SQLConnection/lock(_:)``, PostgreSQL advisory locks taken in one order) before the call is read, so an
/// accept, a new call's busy check and an `Idempotency-Key` lookup of the same users run one after the other,
/// on one machine or many.
public class SQLStore: RingerStore, @unchecked Sendable {
    // @unchecked: immutable after init; the connection source lends each connection to one operation at a time.
    private let source: any SQLConnectionSource
    /// Told how long each operation took (``observeOperations(_:)``). Set once, before the store is shared, and read
    /// without a lock: a lock taken at every operation to read it made the heap churn enough that freed memory no
    /// longer went back to the system after a wave of closed sockets (IdleSocketMemoryTests, found when the metrics
    /// landed).
    nonisolated(unsafe) private var operationObserver: (@Sendable (TimeInterval) -> Void)?

    init(source: any SQLConnectionSource) {
        self.source = source
    }

    public func observeOperations(_ observer: @escaping @Sendable (TimeInterval) -> Void) {
        operationObserver = observer
    }

    /// The schema version the database is at (tests, diagnostics).
    func schemaVersion() async throws -> Int {
        try await run { db in try SchemaMigrations.version(db) }
    }

    /// The schema version the database is at, and the newest this version of Ringer knows (`ringer doctor`: fewer
    /// is migrations the next start applies, more is a database a newer Ringer wrote).
    /// - Throws: ``StoreError``.
    public func schemaStatus() async throws -> (version: Int, known: Int) {
        (try await schemaVersion(), SchemaMigrations.migrations.count)
    }

    /// Runs `body` on a connection (see ``SQLConnectionSource``).
    func run<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        let started = ContinuousClock.now
        defer { observe(since: started) }
        return try await source.withConnection(body)
    }

    /// Runs `body`, a read of a few rows by key, on a reading connection (``SQLConnectionSource/withReadConnection(_:)``).
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        let started = ContinuousClock.now
        defer { observe(since: started) }
        return try await source.withReadConnection(body)
    }

    private func observe(since started: ContinuousClock.Instant) {
        if let observer = operationObserver {
            let elapsed = ContinuousClock.now - started
            observer(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
    }

    public func checkWritable(at now: Date) async throws {
        try await run { db in
            try db.query(
                """
                INSERT INTO health_probe (id, at) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET at = excluded.at
                """, [.real(now.timeIntervalSince1970)])
        }
    }

    // MARK: Users

    public func upsertUser(id: String, name: String?, at now: Date) async throws {
        try await run { db in
            try db.query(
                """
                INSERT INTO users (id, name, created_at) VALUES (?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET name = COALESCE(excluded.name, users.name)
                """, [.text(id), .optional(name), .real(now.timeIntervalSince1970)])
        }
    }

    public func user(id: String) async throws -> Party? {
        try await read { db in
            var party: Party?
            try db.query("SELECT id, name FROM users WHERE id = ?", [.text(id)]) { row in
                party = Party(id: row.text(0) ?? id, name: row.text(1))
            }
            return party
        }
    }

    // MARK: Devices

    /// The columns a registration writes; reads add the push problem.
    private static let deviceColumns =
        "device_id, user_id, platform, voip_token, apns_token, apns_environment, bundle_id, fcm_token, updated_at, fcm_project_id, readiness_problems, readiness_at"
    private static let deviceReadColumns = deviceColumns + ", push_problem_reason, push_problem_token, push_problem_at"

    private static func device(_ row: any SQLRow) -> Device {
        let problem = row.text(12).map { reason in
            PushProblem(reason: reason, token: row.text(13) ?? "", at: Date(timeIntervalSince1970: row.real(14)))
        }
        let readiness = row.text(10).map { text in
            DeviceReadiness(problems: readinessProblems(text), reportedAt: Date(timeIntervalSince1970: row.real(11)))
        }
        return Device(
            deviceID: row.text(0) ?? "", userID: row.text(1) ?? "", platform: Platform(rawValue: row.text(2) ?? ""),
            voipToken: row.text(3), apnsToken: row.text(4),
            apnsEnvironment: row.text(5).map(APNsEnvironment.init(rawValue:)), bundleID: row.text(6),
            fcmToken: row.text(7), fcmProjectID: row.text(9), updatedAt: Date(timeIntervalSince1970: row.real(8)),
            pushProblem: problem, readiness: readiness)
    }

    /// The `readiness_problems` column: a JSON array of names (written by ``registerDevice(_:)``). A value
    /// that is not one reads as no problems rather than failing every read of the user's devices.
    private static func readinessProblems(_ text: String) -> [ReadinessProblem] {
        ((try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []).map(ReadinessProblem.init(rawValue:))
    }

    private static func readinessText(_ readiness: DeviceReadiness?) -> SQLValue {
        guard let readiness, let data = try? JSONEncoder().encode(readiness.problems.map(\.rawValue)) else {
            return .null
        }
        return .text(String(decoding: data, as: UTF8.self))
    }

    /// The `push_problem` reason of a device whose token another registration took (``registerDevice(_:)``).
    public static let tokenMovedReason = "TokenMovedToAnotherDevice"

    public func registerDevice(_ device: Device) async throws -> Device {
        try await run { db in
            try db.transaction {
                // Two registrations of one token (on two servers) move it one after the other, never both at once.
                try db.lock(
                    [device.voipToken, device.apnsToken, device.fcmToken].compactMap { $0.map { "token:\($0)" } })
                // A token lives on one device only: it moves here. The device it left is kept, marked
                // `TokenMovedToAnotherDevice` with the token's kind and time, so its app (and its user) can see
                // why it stopped ringing and register again; it is never silently deleted.
                for (column, token) in [
                    ("voip_token", device.voipToken), ("apns_token", device.apnsToken),
                    ("fcm_token", device.fcmToken),
                ] {
                    guard let token else { continue }
                    try db.query(
                        """
                        UPDATE devices SET \(column) = NULL, push_problem_reason = ?, push_problem_token = ?,
                          push_problem_at = ?
                        WHERE \(column) = ? AND NOT (user_id = ? AND device_id = ?)
                        """,
                        [
                            .text(Self.tokenMovedReason), .text(column), .real(device.updatedAt.timeIntervalSince1970),
                            .text(token), .text(device.userID), .text(device.deviceID),
                        ])
                }
                try db.query(
                    """
                    INSERT INTO devices (\(Self.deviceColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(user_id, device_id) DO UPDATE SET platform = excluded.platform,
                      voip_token = excluded.voip_token, apns_token = excluded.apns_token,
                      apns_environment = excluded.apns_environment, bundle_id = excluded.bundle_id,
                      fcm_token = excluded.fcm_token, fcm_project_id = excluded.fcm_project_id,
                      readiness_problems = excluded.readiness_problems, readiness_at = excluded.readiness_at,
                      updated_at = excluded.updated_at,
                      push_problem_reason = NULL, push_problem_token = NULL, push_problem_at = NULL
                    """,
                    [
                        .text(device.deviceID), .text(device.userID), .text(device.platform.rawValue),
                        .optional(device.voipToken), .optional(device.apnsToken),
                        .optional(device.apnsEnvironment?.rawValue), .optional(device.bundleID),
                        .optional(device.fcmToken), .real(device.updatedAt.timeIntervalSince1970),
                        .optional(device.fcmProjectID), Self.readinessText(device.readiness),
                        device.readiness?.reportedAt.map { .real($0.timeIntervalSince1970) } ?? .null,
                    ])
            }
            var stored = device
            stored.pushProblem = nil
            return stored
        }
    }

    public func flagPushToken(
        _ token: String, kind: PushTokenKind, problem reason: String, at date: Date
    ) async throws -> Bool {
        let column = kind.rawValue
        return try await run { db in
            // Registered again after the refusal: the new registration is the fix, so no mark.
            try db.query(
                """
                UPDATE devices SET push_problem_reason = ?, push_problem_token = ?, push_problem_at = ?
                WHERE \(column) = ? AND updated_at <= ?
                """,
                [
                    .text(reason), .text(column), .real(date.timeIntervalSince1970), .text(token),
                    .real(date.timeIntervalSince1970),
                ])
            return db.changes > 0
        }
    }

    public func removeDeadPushToken(_ token: String, kind: PushTokenKind, invalidSince: Date) async throws -> Bool {
        let column = kind.rawValue
        return try await run { db in
            try db.transaction {
                // Who held it, from the statement that removed it, for the backend's `device.push_token_removed` (the
                // token itself is never told).
                var holders: [(userID: String, deviceID: String)] = []
                try db.query(
                    "UPDATE devices SET \(column) = NULL WHERE \(column) = ? AND updated_at <= ? RETURNING user_id, device_id",
                    [.text(token), .real(invalidSince.timeIntervalSince1970)]
                ) { row in holders.append((row.text(0) ?? "", row.text(1) ?? "")) }
                let removed = !holders.isEmpty
                for holder in holders {
                    try Self.recordDeviceEvent(
                        WebhookData(userID: holder.userID, deviceID: holder.deviceID, tokenKind: column), in: db)
                }
                try db.query(
                    "DELETE FROM devices WHERE voip_token IS NULL AND apns_token IS NULL AND fcm_token IS NULL")
                return removed
            }
        }
    }

    public func deleteDevice(id: String, userID: String) async throws -> Bool {
        try await run { db in
            try db.query("DELETE FROM devices WHERE device_id = ? AND user_id = ?", [.text(id), .text(userID)])
            return db.changes > 0
        }
    }

    public func device(id: String, userID: String) async throws -> Device? {
        try await read { db in
            var found: Device?
            try db.query(
                "SELECT \(Self.deviceReadColumns) FROM devices WHERE user_id = ? AND device_id = ?",
                [.text(userID), .text(id)]
            ) { found = Self.device($0) }
            return found
        }
    }

    public func devices(ofUser userID: String) async throws -> [Device] {
        try await read { db in
            var found: [Device] = []
            try db.query(
                "SELECT \(Self.deviceReadColumns) FROM devices WHERE user_id = ? ORDER BY \(db.dialect.insertionOrder)",
                [.text(userID)]
            ) { found.append(Self.device($0)) }
            return found
        }
    }

    // MARK: Calls

    public func insertCall<T: Sendable>(
        callerID: String, calleeID: String, idempotencyKey: String?, at now: Date,
        placedBy node: String?,
        _ decide: @escaping @Sendable (_ calleeBusy: Bool) throws -> (CallMachine, T, [PendingEvent])
    )
        async throws -> InsertedCall<T>
    {
        try await insert(
            callerID: callerID, calleeIDs: [calleeID], idempotencyKey: idempotencyKey, at: now, placedBy: node
        ) { busy in try decide(busy.contains(calleeID)) }
    }

    public func insertGroupCall<T: Sendable>(
        callerID: String, calleeIDs: [String], idempotencyKey: String?, at now: Date, placedBy node: String?,
        _ decide: @escaping @Sendable (_ busy: Set<String>) throws -> (CallMachine, T, [PendingEvent])
    )
        async throws -> InsertedCall<T>
    {
        try await insert(
            callerID: callerID, calleeIDs: calleeIDs, idempotencyKey: idempotencyKey, at: now, placedBy: node, decide)
    }

    /// Both kinds of new call: `decide` learns which callees are busy, read under every party's lock.
    private func insert<T: Sendable>(
        callerID: String, calleeIDs: [String], idempotencyKey: String?, at now: Date, placedBy node: String?,
        _ decide: @escaping @Sendable (_ busy: Set<String>) throws -> (CallMachine, T, [PendingEvent])
    )
        async throws -> InsertedCall<T>
    {
        try await run { db in
            try db.transaction { () throws -> InsertedCall<T> in
                // Every party: an accept of any (which locks them too) cannot slip between the busy check and
                // the insert, and a retry with the caller's key waits for the first try to commit, on any server.
                try db.lock(Self.lockKeys(of: [callerID] + calleeIDs))
                if let idempotencyKey,
                    let earlier = try Self.call(forIdempotencyKey: idempotencyKey, userID: callerID, at: now, in: db)
                {
                    return .existing(earlier)
                }
                var busy: Set<String> = []
                for callee in calleeIDs where try Self.isInAcceptedCall(userID: callee, in: db) { busy.insert(callee) }
                let (machine, result, events) = try decide(busy)
                let call = machine.call
                try db.query(
                    """
                    INSERT INTO calls (call_id, caller_id, callee_id, state, created_at, expires_at, machine, placed_by)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(call.callID), .text(call.caller.id), .text(call.isGroup ? "" : call.callee.id),
                        .text(call.state.rawValue), .real(call.createdAt.timeIntervalSince1970),
                        .real(call.expiresAt.timeIntervalSince1970), .text(try Self.machineText(machine)),
                        .optional(node),
                    ])
                try Self.writeLegs(of: machine, before: nil, rungBy: node, in: db)
                try Self.recordWebhookEvents(from: nil, to: machine, in: db)
                if let idempotencyKey {
                    let created = call.createdAt.timeIntervalSince1970
                    try db.query(
                        "DELETE FROM idempotency_keys WHERE created_at < ?", [.real(created - Self.idempotencyWindow)])
                    try db.query(
                        """
                        INSERT INTO idempotency_keys (user_id, key, call_id, created_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (user_id, key) DO UPDATE SET call_id = excluded.call_id, created_at = excluded.created_at
                        """, [.text(call.caller.id), .text(idempotencyKey), .text(call.callID), .real(created)])
                }
                return .created(result, try Self.append(events, in: db))
            }
        }
    }

    /// How long an `Idempotency-Key` is remembered, seconds.
    static let idempotencyWindow: TimeInterval = 24 * 3600

    public func call(forIdempotencyKey key: String, userID: String, at now: Date) async throws -> CallMachine? {
        let text = try await read { db in
            try Self.callID(forIdempotencyKey: key, userID: userID, at: now, in: db).flatMap {
                try Self.machineText(id: $0, in: db)
            }
        }
        return try text.map { try Self.decodeText(CallMachine.self, $0) }
    }

    private static func call(
        forIdempotencyKey key: String, userID: String, at now: Date,
        in db: any SQLConnection
    ) throws -> CallMachine? {
        try callID(forIdempotencyKey: key, userID: userID, at: now, in: db).flatMap { try loadCall(id: $0, in: db) }
    }

    /// The call a key made within ``idempotencyWindow``, if any.
    private static func callID(
        forIdempotencyKey key: String, userID: String, at now: Date, in db: any SQLConnection
    ) throws -> String? {
        var callID: String?
        try db.query(
            "SELECT call_id FROM idempotency_keys WHERE user_id = ? AND key = ? AND created_at >= ?",
            [.text(userID), .text(key), .real(now.timeIntervalSince1970 - idempotencyWindow)]
        ) {
            callID = $0.text(0)
        }
        return callID
    }

    public func updateCall<T: Sendable>(
        id: String,
        _ body: @escaping @Sendable (inout CallMachine) throws -> (T, [PendingEvent])
    )
        async throws -> (T, [StoredEvent])?
    {
        try await run { db in
            try db.transaction { () throws -> (T, [StoredEvent])? in
                // The parties never change, so they can be read before their locks are taken.
                guard let parties = try Self.parties(ofCall: id, in: db) else { return nil }
                try db.lock(Self.lockKeys(of: parties))
                guard var machine = try Self.loadCall(id: id, in: db) else { return nil }
                let before = machine
                let (result, events) = try body(&machine)
                return (result, try Self.save(machine, before: before, events: events, in: db))
            }
        }
    }

    public func ringMore<T: Sendable>(
        callID: String, calleeIDs: [String], rungBy node: String?,
        _ body: @escaping @Sendable (inout CallMachine, _ busy: Set<String>) throws -> (T, [PendingEvent])
    )
        async throws -> (T, [StoredEvent])?
    {
        try await run { db in
            try db.transaction { () throws -> (T, [StoredEvent])? in
                guard let parties = try Self.parties(ofCall: callID, in: db) else { return nil }
                // The new callees too: their busy check and their new legs are one step.
                try db.lock(Self.lockKeys(of: parties + calleeIDs))
                guard var machine = try Self.loadCall(id: callID, in: db) else { return nil }
                let before = machine
                var busy: Set<String> = []
                for callee in calleeIDs where try Self.isInAcceptedCall(userID: callee, in: db) { busy.insert(callee) }
                let (result, events) = try body(&machine, busy)
                return (result, try Self.save(machine, before: before, events: events, rungBy: node, in: db))
            }
        }
    }

    public func claimDueRingingCall<T: Sendable>(
        at now: Date, excluding: Set<String>,
        _ body: @escaping @Sendable (inout CallMachine) throws -> (T, [PendingEvent])
    )
        async throws -> ClaimedCall<T>?
    {
        try await run { db in
            try db.transaction { () throws -> ClaimedCall<T>? in
                var due: [(callID: String, expiresAt: Double)] = []
                let bounds: [SQLValue] = [.real(now.timeIntervalSince1970), .integer(Int64(excluding.count + 1))]
                // Oldest deadline first; a row another server has claimed is skipped, not waited for. A 1:1 call's
                // deadline is its row's; a group call's are its ringing legs' (each leg rings out on its own).
                try db.query(
                    """
                    SELECT call_id, expires_at FROM calls WHERE state = 'ringing' AND callee_id <> '' AND expires_at <= ?
                    ORDER BY expires_at LIMIT ?\(db.dialect.claimRows)
                    """, bounds
                ) { row in due.append((row.text(0) ?? "", row.real(1))) }
                // No DISTINCT: PostgreSQL refuses it beside FOR UPDATE; a call with two due legs is listed twice.
                try db.query(
                    """
                    SELECT call_id, expires_at FROM call_legs WHERE state = 'ringing' AND expires_at <= ?
                    ORDER BY expires_at LIMIT ?\(db.dialect.claimRows)
                    """, bounds
                ) { row in due.append((row.text(0) ?? "", row.real(1))) }
                guard
                    let claimed = due.sorted(by: { $0.expiresAt < $1.expiresAt })
                        .first(where: { !excluding.contains($0.callID) }),
                    let parties = try Self.parties(ofCall: claimed.callID, in: db)
                else { return nil }
                // Never wait for the parties here: a change of theirs holding them may be waiting for this row.
                guard try db.tryLock(Self.lockKeys(of: parties)) else { return .busy(callID: claimed.callID) }
                guard var machine = try Self.loadCall(id: claimed.callID, in: db) else { return nil }
                let before = machine
                let (result, events) = try body(&machine)
                return .updated(
                    callID: claimed.callID, result, try Self.save(machine, before: before, events: events, in: db))
            }
        }
    }

    public func heartbeat(node: String, at now: Date) async throws {
        try await run { db in
            try db.query(
                """
                INSERT INTO ringer_nodes (node, heartbeat_at, group_calls) VALUES (?, ?, 1)
                ON CONFLICT (node) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, group_calls = 1
                """, [.text(node), .real(now.timeIntervalSince1970)])
            // Servers silent for a day are forgotten.
            try db.query("DELETE FROM ringer_nodes WHERE heartbeat_at < ?", [.real(now.timeIntervalSince1970 - 86_400)])
        }
    }

    public func anyLiveNodeWithoutGroupCalls(at now: Date, within: TimeInterval) async throws -> Bool {
        try await run { db in
            var found = false
            try db.query(
                "SELECT 1 FROM ringer_nodes WHERE heartbeat_at > ? AND group_calls IS NULL LIMIT 1",
                [.real(now.timeIntervalSince1970 - within)]
            ) { _ in found = true }
            return found
        }
    }

    public func claimOrphanedRingingCall(
        at now: Date, deadAfter: TimeInterval, claimedBy node: String
    ) async throws
        -> (CallMachine, [String])?
    {
        try await run { db in
            try db.transaction { () throws -> (CallMachine, [String])? in
                var callID: String?
                for placer in try Self.deadRingers(
                    table: "calls", column: "placed_by", index: "calls_ringing_by_node", except: node,
                    aliveSince: now.addingTimeInterval(-deadAfter),
                    in: db)
                {
                    try db.query(
                        """
                        SELECT call_id FROM calls\(db.dialect.indexedBy("calls_ringing_by_node"))
                        WHERE placed_by = ? AND state = 'ringing' AND pushes_recovered_at IS NULL
                          AND callee_id <> '' AND expires_at > ?
                        ORDER BY created_at LIMIT 1\(db.dialect.claimRows)
                        """, [.text(placer), .real(now.timeIntervalSince1970)]
                    ) { callID = $0.text(0) }
                    if callID != nil { break }
                }
                guard let callID, let machine = try Self.loadCall(id: callID, in: db) else { return nil }
                try db.query(
                    "UPDATE calls SET pushes_recovered_at = ? WHERE call_id = ?",
                    [.real(now.timeIntervalSince1970), .text(callID)])
                var answered: Set<String> = Set(machine.ringingDeviceIDs)
                try db.query("SELECT DISTINCT device_id FROM push_attempts WHERE call_id = ?", [.text(callID)]) { row in
                    if let device = row.text(0) { answered.insert(device) }
                }
                return (machine, machine.calleeDevices.filter { $0.canBeWoken && !answered.contains($0.id) }.map(\.id))
            }
        }
    }

    public func claimOrphanedRingingLeg(
        at now: Date, deadAfter: TimeInterval, claimedBy node: String
    ) async throws
        -> (CallMachine, userID: String, deviceIDs: [String])?
    {
        try await run { db in
            try db.transaction { () throws -> (CallMachine, userID: String, deviceIDs: [String])? in
                var claimed: (callID: String, userID: String)?
                for ringer in try Self.deadRingers(
                    table: "call_legs", column: "rung_by", index: "call_legs_ringing_by_node", except: node,
                    aliveSince: now.addingTimeInterval(-deadAfter),
                    in: db)
                {
                    try db.query(
                        """
                        SELECT call_id, user_id FROM call_legs\(db.dialect.indexedBy("call_legs_ringing_by_node"))
                        WHERE rung_by = ? AND state = 'ringing'
                          AND pushes_recovered_at IS NULL AND expires_at > ?
                        ORDER BY created_at LIMIT 1\(db.dialect.claimRows)
                        """, [.text(ringer), .real(now.timeIntervalSince1970)]
                    ) { row in claimed = (row.text(0) ?? "", row.text(1) ?? "") }
                    if claimed != nil { break }
                }
                guard let claimed, let machine = try Self.loadCall(id: claimed.callID, in: db),
                    let leg = machine.legs?.first(where: { $0.userID == claimed.userID })
                else { return nil }
                try db.query(
                    "UPDATE call_legs SET pushes_recovered_at = ? WHERE call_id = ? AND user_id = ?",
                    [.real(now.timeIntervalSince1970), .text(claimed.callID), .text(claimed.userID)])
                var answered = Set(leg.ringingDeviceIDs)
                try db.query("SELECT DISTINCT device_id FROM push_attempts WHERE call_id = ?", [.text(claimed.callID)])
                {
                    row in
                    if let device = row.text(0) { answered.insert(device) }
                }
                let devices = leg.calleeDevices.filter { $0.canBeWoken && !answered.contains($0.id) }.map(\.id)
                return (machine, claimed.userID, devices)
            }
        }
    }

    /// The servers, other than `node`, that ring calls (or legs) whose pushes nobody recovered, and whose heartbeat is
    /// not newer than `aliveSince` (or that have none): read from the partial index of such rows by server
    /// (`calls_ringing_by_node`, `call_legs_ringing_by_node`), one seek per distinct server, so the push recovery costs
    /// a few index seeks a second however many calls ring (it read every ringing call; issue 33).
    /// - Parameters:
    ///   - table: `calls` or `call_legs`.
    ///   - column: the server column, `placed_by` or `rung_by`.
    ///   - index: the table's partial index of such rows.
    private static func deadRingers(
        table: String, column: String, index: String, except node: String, aliveSince: Date, in db: any SQLConnection
    ) throws -> [String] {
        var dead: [String] = []
        var after = ""
        while true {
            var next: String?
            try db.query(
                """
                SELECT \(column) FROM \(table)\(db.dialect.indexedBy(index))
                WHERE state = 'ringing' AND pushes_recovered_at IS NULL AND \(column) > ?
                ORDER BY \(column) LIMIT 1
                """, [.text(after)]
            ) { next = $0.text(0) }
            guard let server = next else { return dead }
            after = server
            guard server != node else { continue }
            var alive = false
            try db.query(
                "SELECT 1 FROM ringer_nodes WHERE node = ? AND heartbeat_at > ?",
                [.text(server), .real(aliveSince.timeIntervalSince1970)]
            ) { _ in alive = true }
            if !alive { dead.append(server) }
        }
    }

    /// The advisory-lock names of users (``SQLConnection/lock(_:)`` sorts them).
    private static func lockKeys(of users: [String]) -> [String] { users.map { "user:\($0)" } }

    /// The users of a call: the caller and the callee, or for a group call the caller and every callee with a leg.
    ///
    /// Read before their locks are taken. A 1:1 call's parties never change; a group call gains legs only by a
    /// ring-more, which holds the caller's lock (every change of the call does) and its new callees', so a change
    /// that read the parties before it committed still waits for it, and then may end a new leg's ringing but
    /// never accept it: only the callee's own change accepts, and it reads the leg, and locks its user, after.
    private static func parties(ofCall id: String, in db: any SQLConnection) throws -> [String]? {
        var parties: [String]?
        try db.query("SELECT caller_id, callee_id FROM calls WHERE call_id = ?", [.text(id)]) { row in
            parties = [row.text(0) ?? "", row.text(1) ?? ""]
        }
        guard var found = parties, found[1].isEmpty else { return parties }
        found.removeLast()
        try db.query("SELECT user_id FROM call_legs WHERE call_id = ?", [.text(id)]) { row in
            if let user = row.text(0) { found.append(user) }
        }
        return found
    }

    /// Writes a changed call and appends its events; inside the caller's transaction. A group call (or a 1:1 call a
    /// ring-more just made one) also writes its legs.
    private static func save(
        _ machine: CallMachine, before: CallMachine, events: [PendingEvent], rungBy node: String? = nil,
        in db: any SQLConnection
    ) throws -> [StoredEvent] {
        let call = machine.call
        if call.isGroup {
            try db.query(
                "UPDATE calls SET state = ?, machine = ?, expires_at = ?, callee_id = '' WHERE call_id = ?",
                [
                    .text(call.state.rawValue), .text(try machineText(machine)),
                    .real(call.expiresAt.timeIntervalSince1970), .text(call.callID),
                ])
            try writeLegs(of: machine, before: before, rungBy: node, in: db)
        } else {
            try db.query(
                "UPDATE calls SET state = ?, machine = ? WHERE call_id = ?",
                [.text(call.state.rawValue), .text(try machineText(machine)), .text(call.callID)])
        }
        try recordWebhookEvents(from: before, to: machine, in: db)
        return try append(events, in: db)
    }

    /// Mirrors a group call's legs into `call_legs`: new legs inserted, changed ones updated only from the state
    /// read at the start of the transaction (a leg changed by anyone else makes the whole change fail rather than
    /// overwrite it), and the `call_legs_one_winner` index refuses a second winner of a `first_answer` race
    /// whatever the code above it does.
    /// - Throws: ``StoreError`` when a leg is not where it was read, or the database refuses the write.
    private static func writeLegs(
        of machine: CallMachine, before: CallMachine?, rungBy node: String?, in db: any SQLConnection
    ) throws {
        guard let legs = machine.call.legs, let records = machine.legs else { return }
        var earlier: [String: CallLeg] = [:]
        for leg in before?.call.legs ?? [] { earlier[leg.user.id] = leg }
        let callID = SQLValue.text(machine.call.callID)
        for (leg, record) in zip(legs, records) {
            let accepted = leg.acceptedAt.map { SQLValue.real($0.timeIntervalSince1970) } ?? .null
            let fields: [SQLValue] = [.text(leg.state.rawValue), .real(leg.expiresAt.timeIntervalSince1970), accepted]
            guard let old = earlier[leg.user.id] else {
                try db.query(
                    """
                    INSERT INTO call_legs (state, expires_at, accepted_at, call_id, user_id, exclusive, created_at, rung_by)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    fields + [
                        callID, .text(leg.user.id), .integer(record.exclusive ? 1 : 0),
                        .real(machine.call.createdAt.timeIntervalSince1970), .optional(node),
                    ])
                continue
            }
            guard old.state != leg.state || old.expiresAt != leg.expiresAt || old.acceptedAt != leg.acceptedAt else {
                continue
            }
            try db.query(
                "UPDATE call_legs SET state = ?, expires_at = ?, accepted_at = ? WHERE call_id = ? AND user_id = ? AND state = ?",
                fields + [callID, .text(leg.user.id), .text(old.state.rawValue)])
            guard db.changes == 1 else {
                throw StoreError.database(
                    "UPDATE call_legs", code: 0,
                    message: "a leg of the call changed under its parties' locks; nothing was written")
            }
        }
    }

    public func call(id: String) async throws -> CallMachine? {
        // Decoded after the read: a read holds the reading connection (and a thread of Swift's pool) only for SQLite.
        let text = try await read { db in try Self.machineText(id: id, in: db) }
        return try text.map { try Self.decodeText(CallMachine.self, $0) }
    }

    public func calls(ofUser userID: String, limit: Int, before: String?) async throws -> [Call] {
        try await run { db in
            let order = db.dialect.insertionOrder
            // Where the page starts: after the `before` call, or above every call.
            var start: (createdAt: Double, order: Int64) = (.greatestFiniteMagnitude, .max)
            if let before {
                var found: (Double, Int64)?
                try db.query(
                    """
                    SELECT created_at, \(order) FROM calls WHERE call_id = ? AND (caller_id = ? OR callee_id = ?
                      OR EXISTS (SELECT 1 FROM call_legs WHERE call_legs.call_id = calls.call_id AND user_id = ?))
                    """, [.text(before), .text(userID), .text(userID), .text(userID)]
                ) { found = ($0.real(0), $0.integer(1)) }
                guard let found else { return [] }
                start = found
            }
            let limit = Int64(max(1, min(limit, 100)))
            let bounds: [SQLValue] = [.text(userID), .real(start.createdAt), .integer(start.order), .integer(limit)]
            var texts: [String] = []
            try db.query(Self.callsPage(db.dialect), bounds + bounds + bounds + [.integer(limit)]) { row in
                if let text = row.text(0) { texts.append(text) }
            }
            // A callee of a group call reads it as their leg, as everywhere else.
            return try texts.map { try Self.decodeText(CallMachine.self, $0).view(for: userID) }
        }
    }

    /// The statement of one page of a user's calls: bindings (user, created_at, insertion order, limit) for the
    /// caller's side, the same for the callee's and for the legs' (group calls), then the page's limit.
    ///
    /// `caller_id = ? OR callee_id = ?` has no index that serves the order: it sorted all of a user's calls for every
    /// page (7.6 ms for limit=1 at 12,000 calls, issue 26). Each side is read in the order of its own index (caller or
    /// callee, created_at, insertion order; SQLite's rowid is in every index), from the page's start, `limit` rows at
    /// most, and the two short runs are merged.
    static func callsPage(_ dialect: SQLDialect) -> String {
        let order = dialect.insertionOrder
        let side = { (column: String, alias: String) in
            """
            SELECT * FROM (SELECT machine, created_at, \(order) AS o FROM calls
            WHERE \(column) = ? AND (created_at, \(order)) < (?, ?)
            ORDER BY created_at DESC, \(order) DESC LIMIT ?) AS \(alias)
            """
        }
        // A group call's callees are its legs (its `callee_id` is ''), read by `call_legs_by_user` in the calls' order.
        let legs = """
            SELECT * FROM (SELECT c.machine, c.created_at, c.\(order) AS o FROM call_legs l
            JOIN calls c ON c.call_id = l.call_id
            WHERE l.user_id = ? AND (l.created_at, c.\(order)) < (?, ?)
            ORDER BY l.created_at DESC, c.\(order) DESC LIMIT ?) AS as_leg
            """
        return
            "\(side("caller_id", "as_caller")) UNION ALL \(side("callee_id", "as_callee")) UNION ALL \(legs) ORDER BY created_at DESC, o DESC LIMIT ?"
    }

    public func callHistory(
        ofUser userID: String?, before: String?, until: Date?, limit: Int
    ) async throws -> [CallMachine]? {
        try await run { db in
            let order = db.dialect.insertionOrder
            // `(created_at, order) < (until, minimum)` is `created_at < until`.
            var start: (createdAt: Double, order: Int64) =
                until.map { ($0.timeIntervalSince1970, .min) } ?? (.greatestFiniteMagnitude, .max)
            if let before {
                var found: (Double, Int64)?
                try db.query("SELECT created_at, \(order) FROM calls WHERE call_id = ?", [.text(before)]) {
                    found = ($0.real(0), $0.integer(1))
                }
                guard let found else { return nil }
                start = found
            }
            let limit = Int64(max(1, min(limit, 500)))
            var texts: [String] = []
            if let userID {
                let bounds: [SQLValue] = [
                    .text(userID), .real(start.createdAt), .integer(start.order), .integer(limit),
                ]
                try db.query(Self.callsPage(db.dialect), bounds + bounds + bounds + [.integer(limit)]) { row in
                    if let text = row.text(0) { texts.append(text) }
                }
            } else {
                try db.query(
                    """
                    SELECT machine FROM calls WHERE (created_at, \(order)) < (?, ?)
                    ORDER BY created_at DESC, \(order) DESC LIMIT ?
                    """, [.real(start.createdAt), .integer(start.order), .integer(limit)]
                ) { row in
                    if let text = row.text(0) { texts.append(text) }
                }
            }
            return try texts.map { try Self.decodeText(CallMachine.self, $0) }
        }
    }

    public func haveTalked(_ a: String, _ b: String) async throws -> Bool {
        try await read { db in
            var found = false
            // Each side by its own index (calls_by_caller, calls_by_callee and PostgreSQL's *_order ones).
            for (caller, callee) in [(a, b), (b, a)] where !found {
                try db.query(
                    """
                    SELECT 1 FROM calls WHERE caller_id = ? AND callee_id = ? AND state IN ('accepted', 'ended') LIMIT 1
                    """, [.text(caller), .text(callee)]
                ) { _ in found = true }
                guard !found else { break }
                // A group call: the callee's leg was answered, whatever became of it since.
                try db.query(
                    """
                    SELECT 1 FROM call_legs l JOIN calls c ON c.call_id = l.call_id
                    WHERE l.user_id = ? AND c.caller_id = ? AND l.accepted_at IS NOT NULL LIMIT 1
                    """, [.text(callee), .text(caller)]
                ) { _ in found = true }
            }
            return found
        }
    }

    public func prune(before cutoff: Date, batch: Int) async throws -> (calls: Int, events: Int) {
        try await run { db in
            try db.transaction {
                let time = SQLValue.real(cutoff.timeIntervalSince1970)
                let size = SQLValue.integer(Int64(max(1, batch)))
                // Ended in any way: every state but the two a call can still leave.
                var ids: [SQLValue] = []
                try db.query(
                    """
                    SELECT call_id FROM calls WHERE state NOT IN ('ringing', 'accepted') AND created_at < ? LIMIT ?
                    """, [time, size]
                ) { row in ids.append(.text(row.text(0) ?? "")) }
                if !ids.isEmpty {
                    let list = Array(repeating: "?", count: ids.count).joined(separator: ", ")
                    try db.query("DELETE FROM push_attempts WHERE call_id IN (\(list))", ids)
                    try db.query("DELETE FROM call_legs WHERE call_id IN (\(list))", ids)
                    try db.query("DELETE FROM calls WHERE call_id IN (\(list))", ids)
                }
                let calls = ids.count
                try db.query(
                    """
                    DELETE FROM events WHERE (user_id, seq) IN
                    (SELECT user_id, seq FROM events WHERE created_at < ? LIMIT ?)
                    """, [time, size])
                let events = db.changes
                // Webhook deliveries that are over, and the events none waits for any more; a pending one is kept
                // however old, as a ringing call is.
                try db.query(
                    """
                    DELETE FROM webhook_deliveries WHERE delivery_id IN
                    (SELECT delivery_id FROM webhook_deliveries WHERE state <> 'pending' AND created_at < ? LIMIT ?)
                    """, [time, size])
                try db.query(
                    """
                    DELETE FROM webhook_events WHERE event_id IN
                    (SELECT event_id FROM webhook_events e WHERE created_at < ?
                      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.event_id) LIMIT ?)
                    """, [time, size])
                return (calls, events)
            }
        }
    }

    /// True when the user takes part in a call in state `accepted`: its caller, its 1:1 callee, or a callee of a group
    /// call whose leg is accepted (one who left is free again); inside the caller's transaction.
    private static func isInAcceptedCall(userID: String, in db: any SQLConnection) throws -> Bool {
        var found = false
        try db.query(
            """
            SELECT 1 FROM calls WHERE state = 'accepted' AND (caller_id = ? OR callee_id = ?) LIMIT 1
            """, [.text(userID), .text(userID)]
        ) { _ in found = true }
        if found { return true }
        try db.query(
            "SELECT 1 FROM call_legs WHERE user_id = ? AND state = 'accepted' LIMIT 1", [.text(userID)]
        ) { _ in found = true }
        return found
    }

    public func ringingCalls() async throws -> [(callID: String, expiresAt: Date)] {
        try await run { db in
            var found: [(callID: String, expiresAt: Date)] = []
            // A group call's timer is its earliest ringing leg's deadline (the machine reschedules the next).
            try db.query(
                """
                SELECT call_id, expires_at FROM calls WHERE state = 'ringing' AND callee_id <> ''
                UNION ALL SELECT call_id, MIN(expires_at) FROM call_legs WHERE state = 'ringing' GROUP BY call_id
                ORDER BY expires_at
                """, []
            ) { row in
                found.append((row.text(0) ?? "", Date(timeIntervalSince1970: row.real(1))))
            }
            return found
        }
    }

    public func acceptedCalls() async throws -> [Call] {
        try await run { db in
            var texts: [String] = []
            try db.query("SELECT machine FROM calls WHERE state = 'accepted'", []) { row in
                if let text = row.text(0) { texts.append(text) }
            }
            return try texts.map { try Self.decodeText(CallMachine.self, $0).call }
        }
    }

    private static func loadCall(id: String, in db: any SQLConnection) throws -> CallMachine? {
        try machineText(id: id, in: db).map { try Self.decodeText(CallMachine.self, $0) }
    }

    /// The call's stored machine, as JSON text.
    private static func machineText(id: String, in db: any SQLConnection) throws -> String? {
        var text: String?
        try db.query("SELECT machine FROM calls WHERE call_id = ?", [.text(id)]) { text = $0.text(0) }
        return text
    }

    // MARK: Events

    public func events(forUser userID: String, after seq: Int64, limit: Int) async throws -> [StoredEvent] {
        try await run { db in
            var rows: [(String?, String)] = []
            try db.query(
                """
                SELECT except_device, payload FROM events WHERE user_id = ? AND seq > ? ORDER BY seq DESC LIMIT ?
                """, [.text(userID), .integer(seq), .integer(Int64(max(1, limit)))]
            ) { row in
                rows.append((row.text(0), row.text(1) ?? ""))
            }
            return try rows.reversed().map { except, payload in
                StoredEvent(userID: userID, exceptDeviceID: except, event: try Self.decodeText(CallEvent.self, payload))
            }
        }
    }

    public func latestSeq(forUser userID: String) async throws -> Int64 {
        try await read { db in
            var seq: Int64 = 0
            try db.query("SELECT seq FROM event_sequences WHERE user_id = ?", [.text(userID)]) { seq = $0.integer(0) }
            return seq
        }
    }

    public func recentSequences(since date: Date) async throws -> [(userID: String, seq: Int64)] {
        try await run { db in
            var found: [(userID: String, seq: Int64)] = []
            try db.query(
                "SELECT user_id, seq FROM event_sequences WHERE updated_at >= ?", [.real(date.timeIntervalSince1970)]
            ) { row in
                found.append((row.text(0) ?? "", row.integer(1)))
            }
            return found
        }
    }

    /// Appends events, numbering each recipient's stream; runs inside the caller's transaction.
    private static func append(_ events: [PendingEvent], in db: any SQLConnection) throws -> [StoredEvent] {
        var stored: [StoredEvent] = []
        for pending in events {
            let (userID, except) = (pending.recipient.userID, pending.recipient.exceptDeviceID)
            var seq: Int64 = 0
            try db.query(
                """
                INSERT INTO event_sequences (user_id, seq, updated_at) VALUES (?, 1, ?)
                ON CONFLICT(user_id) DO UPDATE SET seq = event_sequences.seq + 1, updated_at = excluded.updated_at
                RETURNING seq
                """, [.text(userID), .real(Date().timeIntervalSince1970)]
            ) { seq = $0.integer(0) }
            let event = CallEvent(seq: seq, type: pending.type, call: pending.call)
            try db.query(
                """
                INSERT INTO events (user_id, seq, type, except_device, call_id, payload, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(userID), .integer(seq), .text(pending.type.rawValue), .optional(except),
                    .text(pending.call.callID), .text(try event.jsonWriter.text ?? Self.encodeText(event)),
                    .real(Date().timeIntervalSince1970),
                ])
            stored.append(StoredEvent(userID: userID, exceptDeviceID: except, event: event))
        }
        return stored
    }

    // MARK: API keys

    public func insertAPIKey(_ key: StoredAPIKey) async throws {
        let scopes = try Self.encodeText(key.info.scopes)
        try await run { db in
            try db.query(
                "INSERT INTO api_keys (key_id, name, scopes, key_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(key.info.keyID), .text(key.info.name), .text(scopes), .text(key.keyHash),
                    .real(key.info.createdAt.timeIntervalSince1970),
                ])
        }
    }

    /// The columns an API key is read from, in ``apiKey(_:)``'s order.
    private static let apiKeyColumns = "key_id, name, scopes, key_hash, created_at, last_used_at"

    private static func apiKey(_ row: any SQLRow) throws -> StoredAPIKey {
        let lastUsed = row.date(5)  // NULL until first used
        return StoredAPIKey(
            info: APIKeyInfo(
                keyID: row.text(0) ?? "", name: row.text(1) ?? "",
                scopes: try decodeText([APIKeyScope].self, row.text(2) ?? "[]"),
                createdAt: Date(timeIntervalSince1970: row.real(4)), lastUsedAt: lastUsed),
            keyHash: row.text(3) ?? "")
    }

    public func apiKeys() async throws -> [StoredAPIKey] {
        try await run { db in
            var keys: [StoredAPIKey] = []
            try db.query(
                "SELECT \(Self.apiKeyColumns) FROM api_keys ORDER BY created_at, \(db.dialect.insertionOrder)", []
            ) { row in keys.append(try Self.apiKey(row)) }
            return keys
        }
    }

    public func apiKey(id: String) async throws -> StoredAPIKey? {
        try await read { db in
            var key: StoredAPIKey?
            try db.query("SELECT \(Self.apiKeyColumns) FROM api_keys WHERE key_id = ?", [.text(id)]) { row in
                key = try Self.apiKey(row)
            }
            return key
        }
    }

    public func deleteAPIKey(id: String) async throws -> Bool {
        try await run { db in
            try db.query("DELETE FROM api_keys WHERE key_id = ?", [.text(id)])
            return db.changes > 0
        }
    }

    public func touchAPIKey(id: String, at date: Date) async throws {
        try await run { db in
            try db.query(
                "UPDATE api_keys SET last_used_at = ? WHERE key_id = ?", [.real(date.timeIntervalSince1970), .text(id)])
        }
    }

    // MARK: Push outcomes

    public func recordPushAttempt(_ attempt: PushAttempt) async throws {
        let insert = try Self.insertPushAttempt(attempt)
        try await run { db in try insert(db) }
    }

    public func recordPushAttempt(_ attempt: PushAttempt, committed: @escaping @Sendable ((any Error)?) -> Void) {
        let insert: @Sendable (any SQLConnection) throws -> Void
        do {
            insert = try Self.insertPushAttempt(attempt)
        } catch {
            return committed(error)
        }
        // Timed from when the insert runs, not from when it was handed over: on SQLite it waits for a batch to join
        // (``SQLiteConnectionSource/deferredWindow``), which is no slowness of the store's. The insert and the
        // commit's callback run one after the other, on the store's thread (or in one task on PostgreSQL).
        nonisolated(unsafe) var started = ContinuousClock.now
        source.submit({ db in
            started = ContinuousClock.now
            try insert(db)
        }) { [self] error in
            observe(since: started)
            committed(error)
        }
    }

    /// The insert of a push's outcome, its record encoded.
    private static func insertPushAttempt(_ attempt: PushAttempt) throws -> @Sendable (any SQLConnection) throws -> Void
    {
        let json = try attempt.recordText ?? encodeText(attempt)
        return { db in
            try db.query(
                "INSERT INTO push_attempts (call_id, device_id, sent_at, record) VALUES (?, ?, ?, ?)",
                [
                    .text(attempt.callID), .text(attempt.deviceID), .real(attempt.sentAt.timeIntervalSince1970),
                    .text(json),
                ])
        }
    }

    public func pushAttempts(callID: String) async throws -> [PushAttempt] {
        let texts = try await read { db in
            var texts: [String] = []
            try db.query("SELECT record FROM push_attempts WHERE call_id = ? ORDER BY id", [.text(callID)]) { row in
                if let text = row.text(0) { texts.append(text) }
            }
            return texts
        }
        return try texts.map { try Self.decodeText(PushAttempt.self, $0) }
    }

    // MARK: JSON columns

    /// The text of `calls.machine`: Jansson's (``CallMachine/jsonWriter``), the encoder's only if Jansson could not
    /// allocate it.
    static func machineText(_ machine: CallMachine) throws -> String {
        try machine.jsonWriter.text ?? encodeText(machine)
    }

    static func encodeText<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try RingerJSON.encoder().encode(value), as: UTF8.self)
    }

    static func decodeText<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        do {
            return try RingerJSON.decoder().decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError.corruptRecord("\(T.self): \(error)")
        }
    }
}
