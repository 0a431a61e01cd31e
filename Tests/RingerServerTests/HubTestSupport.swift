import Foundation
import RingerCore
import RingerSupport
import RingerStore
import RingerWire

@testable import RingerServer

/// An event sink that records what the hub wrote to it and how it was closed.
final class RecordingSink: EventSink {
    struct Record {
        var texts: [String] = []
        var closes: [(code: UInt16, reason: String)] = []
    }

    let record = LockedValue(Record())
    /// Called at the start of each `send` (a probe may block here to hold the hub's lock for this user).
    let onSend: @Sendable () -> Void

    init(onSend: @escaping @Sendable () -> Void = {}) { self.onSend = onSend }

    func send(text: String) {
        onSend()
        record.withLock { $0.texts.append(text) }
    }

    func close() { close(code: 1000, reason: "") }

    func close(code: UInt16, reason: String) {
        record.withLock { $0.closes.append((code, reason)) }
    }

    /// The call events written, in order (the `stream.ready` frame left out).
    var events: [CallEvent] {
        record.withLock { $0.texts }.compactMap { try? RingerJSON.decode(CallEvent.self, from: Data($0.utf8)) }
    }

    /// Every frame written, `stream.ready` included.
    var sendCount: Int { record.withLock { $0.texts.count } }
}

/// A store that forwards to an in-memory ``SQLiteStore`` and can run a hook before a call is
/// inserted or updated (to hold one change while others run, or to let "another server" act first).
final class HookedStore: RingerStore {
    let base: SQLiteStore
    /// Runs before `insertCall`'s transaction, with the callee's id.
    let beforeInsert: LockedValue<(@Sendable (String) async -> Void)?> = LockedValue(nil)
    /// Runs before `updateCall`'s transaction, with the call id.
    let beforeUpdate: LockedValue<(@Sendable (String) async -> Void)?> = LockedValue(nil)
    /// Runs before `events(forUser:after:limit:)` reads, with the user id.
    let beforeEvents: LockedValue<(@Sendable (String) async -> Void)?> = LockedValue(nil)

    init() throws { base = try SQLiteStore(path: ":memory:") }

    func checkWritable(at now: Date) async throws { try await base.checkWritable(at: now) }
    func upsertUser(id: String, name: String?, at now: Date) async throws {
        try await base.upsertUser(id: id, name: name, at: now)
    }
    func user(id: String) async throws -> Party? { try await base.user(id: id) }
    func registerDevice(_ device: Device) async throws -> Device { try await base.registerDevice(device) }
    func deleteDevice(id: String, userID: String) async throws -> Bool {
        try await base.deleteDevice(id: id, userID: userID)
    }
    func device(id: String, userID: String) async throws -> Device? { try await base.device(id: id, userID: userID) }
    func flagPushToken(_ token: String, kind: PushTokenKind, problem reason: String, at date: Date) async throws -> Bool
    {
        try await base.flagPushToken(token, kind: kind, problem: reason, at: date)
    }
    func removeDeadPushToken(_ token: String, kind: PushTokenKind, invalidSince: Date) async throws -> Bool {
        try await base.removeDeadPushToken(token, kind: kind, invalidSince: invalidSince)
    }
    func devices(ofUser userID: String) async throws -> [Device] { try await base.devices(ofUser: userID) }

    func insertCall<T: Sendable>(
        callerID: String, calleeID: String, idempotencyKey: String?, at now: Date,
        placedBy node: String?,
        _ decide: @escaping @Sendable (Bool) throws -> (CallMachine, T, [PendingEvent])
    )
        async throws -> InsertedCall<T>
    {
        if let hook = beforeInsert.snapshot { await hook(calleeID) }
        return try await base.insertCall(
            callerID: callerID, calleeID: calleeID, idempotencyKey: idempotencyKey, at: now,
            placedBy: node, decide)
    }

    func insertGroupCall<T: Sendable>(
        callerID: String, calleeIDs: [String], idempotencyKey: String?, at now: Date, placedBy node: String?,
        _ decide: @escaping @Sendable (Set<String>) throws -> (CallMachine, T, [PendingEvent])
    )
        async throws -> InsertedCall<T>
    {
        if let hook = beforeInsert.snapshot { await hook(calleeIDs.first ?? "") }
        return try await base.insertGroupCall(
            callerID: callerID, calleeIDs: calleeIDs, idempotencyKey: idempotencyKey, at: now, placedBy: node, decide)
    }

    func ringMore<T: Sendable>(
        callID: String, calleeIDs: [String], rungBy node: String?,
        _ body: @escaping @Sendable (inout CallMachine, Set<String>) throws -> (T, [PendingEvent])
    )
        async throws -> (T, [StoredEvent])?
    {
        if let hook = beforeUpdate.snapshot { await hook(callID) }
        return try await base.ringMore(callID: callID, calleeIDs: calleeIDs, rungBy: node, body)
    }

    func heartbeat(node: String, at now: Date) async throws { try await base.heartbeat(node: node, at: now) }
    func callHistory(
        ofUser userID: String?, before: String?, until: Date?, limit: Int
    ) async throws -> [CallMachine]? {
        try await base.callHistory(ofUser: userID, before: before, until: until, limit: limit)
    }
    func insertWebhookEndpoint(_ endpoint: StoredWebhookEndpoint) async throws {
        try await base.insertWebhookEndpoint(endpoint)
    }
    func webhookEndpoints() async throws -> [StoredWebhookEndpoint] { try await base.webhookEndpoints() }
    func webhookEndpoint(id: String) async throws -> StoredWebhookEndpoint? { try await base.webhookEndpoint(id: id) }
    func updateWebhookEndpoint(
        id: String, url: String, eventTypes: [WebhookEventType], description: String?, enabled: Bool?, at now: Date
    ) async throws -> StoredWebhookEndpoint? {
        try await base.updateWebhookEndpoint(
            id: id, url: url, eventTypes: eventTypes, description: description, enabled: enabled, at: now)
    }
    func rotateWebhookSecret(
        id: String, sealedSecret: String, keepPreviousUntil: Date?, at now: Date
    ) async throws -> StoredWebhookEndpoint? {
        try await base.rotateWebhookSecret(
            id: id, sealedSecret: sealedSecret, keepPreviousUntil: keepPreviousUntil, at: now)
    }
    func deleteWebhookEndpoint(id: String) async throws -> Bool { try await base.deleteWebhookEndpoint(id: id) }
    func webhookDeliveries(
        endpointID: String, state: WebhookDeliveryState?, before: Int64?, limit: Int
    ) async throws -> [WebhookDelivery] {
        try await base.webhookDeliveries(endpointID: endpointID, state: state, before: before, limit: limit)
    }
    func redeliverWebhook(deliveryID: Int64, endpointID: String, at now: Date) async throws -> WebhookDelivery? {
        try await base.redeliverWebhook(deliveryID: deliveryID, endpointID: endpointID, at: now)
    }
    func claimWebhookDeliveries(
        at now: Date, by node: String, lease: TimeInterval, limit: Int, perEndpoint: Int, inFlight: [String: Int],
        nodeDeadAfter: TimeInterval
    ) async throws -> [ClaimedWebhookDelivery] {
        try await base.claimWebhookDeliveries(
            at: now, by: node, lease: lease, limit: limit, perEndpoint: perEndpoint, inFlight: inFlight,
            nodeDeadAfter: nodeDeadAfter)
    }
    func finishWebhookDelivery(
        _ claimed: ClaimedWebhookDelivery, by node: String, at now: Date, outcome: WebhookAttemptOutcome
    ) async throws {
        try await base.finishWebhookDelivery(claimed, by: node, at: now, outcome: outcome)
    }
    func oldestPendingWebhookEvent() async throws -> Date? { try await base.oldestPendingWebhookEvent() }
    func insertPushProvider(_ provider: StoredPushProvider) async throws { try await base.insertPushProvider(provider) }
    func pushProviders() async throws -> [StoredPushProvider] { try await base.pushProviders() }
    func replacePushProvider(_ provider: StoredPushProvider) async throws -> Bool {
        try await base.replacePushProvider(provider)
    }
    func deletePushProvider(id: String) async throws -> Bool { try await base.deletePushProvider(id: id) }
    func pushProvidersVersion() async throws -> String { try await base.pushProvidersVersion() }
    func insertAPIKey(_ key: StoredAPIKey) async throws { try await base.insertAPIKey(key) }
    func apiKeys() async throws -> [StoredAPIKey] { try await base.apiKeys() }
    func apiKey(id: String) async throws -> StoredAPIKey? { try await base.apiKey(id: id) }
    func deleteAPIKey(id: String) async throws -> Bool { try await base.deleteAPIKey(id: id) }
    func touchAPIKey(id: String, at date: Date) async throws { try await base.touchAPIKey(id: id, at: date) }
    func anyLiveNodeWithoutGroupCalls(at now: Date, within: TimeInterval) async throws -> Bool {
        try await base.anyLiveNodeWithoutGroupCalls(at: now, within: within)
    }
    func claimOrphanedRingingCall(
        at now: Date, deadAfter: TimeInterval, claimedBy node: String
    ) async throws
        -> (CallMachine, [String])?
    {
        try await base.claimOrphanedRingingCall(at: now, deadAfter: deadAfter, claimedBy: node)
    }

    func claimOrphanedRingingLeg(
        at now: Date, deadAfter: TimeInterval, claimedBy node: String
    ) async throws
        -> (CallMachine, userID: String, deviceIDs: [String])?
    {
        try await base.claimOrphanedRingingLeg(at: now, deadAfter: deadAfter, claimedBy: node)
    }

    func call(forIdempotencyKey key: String, userID: String, at now: Date) async throws -> CallMachine? {
        try await base.call(forIdempotencyKey: key, userID: userID, at: now)
    }

    func updateCall<T: Sendable>(
        id: String, _ body: @escaping @Sendable (inout CallMachine) throws -> (T, [PendingEvent])
    )
        async throws -> (T, [StoredEvent])?
    {
        if let hook = beforeUpdate.snapshot { await hook(id) }
        return try await base.updateCall(id: id, body)
    }

    func claimDueRingingCall<T: Sendable>(
        at now: Date, excluding: Set<String>,
        _ body: @escaping @Sendable (inout CallMachine) throws -> (T, [PendingEvent])
    )
        async throws -> ClaimedCall<T>?
    {
        try await base.claimDueRingingCall(at: now, excluding: excluding, body)
    }

    func call(id: String) async throws -> CallMachine? { try await base.call(id: id) }
    func calls(ofUser userID: String, limit: Int, before: String?) async throws -> [Call] {
        try await base.calls(ofUser: userID, limit: limit, before: before)
    }
    func haveTalked(_ a: String, _ b: String) async throws -> Bool { try await base.haveTalked(a, b) }
    func prune(before cutoff: Date, batch: Int) async throws -> (calls: Int, events: Int) {
        try await base.prune(before: cutoff, batch: batch)
    }
    func ringingCalls() async throws -> [(callID: String, expiresAt: Date)] { try await base.ringingCalls() }
    func acceptedCalls() async throws -> [Call] { try await base.acceptedCalls() }
    func events(forUser userID: String, after seq: Int64, limit: Int) async throws -> [StoredEvent] {
        if let hook = beforeEvents.snapshot { await hook(userID) }
        return try await base.events(forUser: userID, after: seq, limit: limit)
    }
    func latestSeq(forUser userID: String) async throws -> Int64 { try await base.latestSeq(forUser: userID) }
    func recentSequences(since date: Date) async throws -> [(userID: String, seq: Int64)] {
        try await base.recentSequences(since: date)
    }
    func recordPushAttempt(_ attempt: PushAttempt) async throws { try await base.recordPushAttempt(attempt) }
    func recordPushAttempt(_ attempt: PushAttempt, committed: @escaping @Sendable ((any Error)?) -> Void) {
        base.recordPushAttempt(attempt, committed: committed)
    }
    func pushAttempts(callID: String) async throws -> [PushAttempt] { try await base.pushAttempts(callID: callID) }
}

/// A gate a hook waits at until the test opens it; tells the test when someone arrived.
final class Gate: Sendable {
    private let state = LockedValue((arrived: 0, open: false, waiters: [CheckedContinuation<Void, Never>]()))

    /// Waits until ``open()`` (at once when already open).
    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                state.arrived += 1
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets every waiter and later arrival through.
    func open() {
        state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }.forEach { $0.resume() }
    }

    /// How many reached the gate.
    var arrived: Int { state.withLock { $0.arrived } }
}

/// Polls an async `condition` every 10 ms for up to `seconds` (a liveness bound, not a speed test).
func eventuallyAsync(within seconds: Double = 10, _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

/// A `CallService` over a store, with no push providers and no rate limits (these tests place calls as fast
/// as they can), for tests of its locking.
func makeCallService(
    store: any RingerStore, hub: EventHub, publications: KeyedAsyncLock,
    ringTimeout: TimeInterval = 45
) throws -> CallService {
    let clock = SystemServerClock()
    let delivery = PushDelivery(
        store: store, health: PushSetupHealth(), clock: clock, log: .silent(), observe: { _ in })
    return CallService(
        store: store, hub: hub, publications: publications,
        pushes: PushDispatcher(
            providers: PushProviderRegistry(
                store: store, secrets: nil, hosts: .init(), defaultAPNs: nil, defaultFCM: nil, log: .silent()),
            delivery: delivery, clock: clock),
        media: try MediaTokens(settings: .init()), ringTimeout: ringTimeout,
        limits: RateLimits(settings: .off, trustedProxies: [], clock: clock),
        watch: AcceptedCallWatch(idleLimit: 120, maximumDuration: 14400), clock: clock, log: .silent(),
        observe: { _ in })
}
