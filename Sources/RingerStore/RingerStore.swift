public import Foundation
public import RingerCore
public import RingerWire

/// An event about to be appended to a user's stream, produced from a ``CallEffect/publish(_:to:)``.
public struct PendingEvent: Hashable, Sendable {
    /// What happened.
    public var type: EventType
    /// Who receives it.
    public var recipient: EventRecipient
    /// The call after the change.
    public var call: Call

    /// Creates a pending event.
    public init(type: EventType, recipient: EventRecipient, call: Call) {
        self.type = type
        self.recipient = recipient
        self.call = call
    }
}

/// An event in a user's stream, with its per-user sequence number.
public struct StoredEvent: Hashable, Sendable {
    /// The receiving user.
    public var userID: String
    /// A device of that user that must not receive it (the one that acted), if any.
    public var exceptDeviceID: String?
    /// The event as sent on the WebSocket.
    public var event: CallEvent

    /// Creates a stored event.
    public init(userID: String, exceptDeviceID: String?, event: CallEvent) {
        self.userID = userID
        self.exceptDeviceID = exceptDeviceID
        self.event = event
    }
}

/// What ``RingerStore/insertCall(callerID:calleeID:idempotencyKey:at:_:)`` did.
public enum InsertedCall<T: Sendable>: Sendable {
    /// A new call: `decide`'s result and the events appended with their sequence numbers.
    case created(T, [StoredEvent])
    /// The call the caller already made with the same `Idempotency-Key`; nothing was stored.
    case existing(CallMachine)
}

/// What ``RingerStore/claimDueRingingCall(at:excluding:_:)`` did with a due call.
public enum ClaimedCall<T: Sendable>: Sendable {
    /// `body` ran on the call: its result and the appended events.
    case updated(callID: String, T, [StoredEvent])
    /// A change of one of the call's parties held them; try again later.
    case busy(callID: String)
}

/// Everything the server keeps: users, devices, calls, event streams, push outcomes.
///
/// Each method is atomic: it either completes or changes nothing. Implementations: ``SQLiteStore``
/// (embedded default) and ``PostgresStore`` (several servers on one database), both ``SQLStore``.
public protocol RingerStore: Sendable {
    /// Proves the store takes writes now: writes one probe row (a full disk, a read-only file or a lost
    /// connection fails it), and checks the database is still the one opened (a file deleted or replaced
    /// under a running server would lose every later write at the next start).
    /// - Parameter now: stored in the probe row.
    /// - Throws: ``StoreError`` with ``StoreError/isUnavailable`` true when it cannot.
    func checkWritable(at now: Date) async throws

    /// Creates the user or updates their display name (a nil name keeps the stored one).
    /// - Throws: ``StoreError``.
    func upsertUser(id: String, name: String?, at now: Date) async throws

    /// The user, or nil when never seen.
    /// - Throws: ``StoreError``.
    func user(id: String) async throws -> Party?

    /// Stores a device registration for `device.userID`.
    ///
    /// Device ids are scoped to their user: another user registering the same id makes a device of
    /// their own and never touches this one. A push token already registered anywhere else moves to
    /// this device, so a user switch on one phone never inherits the previous user's calls
    /// (docs/openapi.yaml `/v1/devices`); the device it left stays, its `push_problem` saying `TokenMovedToAnotherDevice`.
    /// - Returns: the stored device.
    /// - Throws: ``StoreError``.
    func registerDevice(_ device: Device) async throws -> Device

    /// Removes the user's device.
    /// - Returns: false when the user had no such device.
    /// - Throws: ``StoreError``.
    func deleteDevice(id: String, userID: String) async throws -> Bool

    /// The user's device with this id.
    /// - Throws: ``StoreError``.
    func device(id: String, userID: String) async throws -> Device?

    /// Marks the device holding `token` with a push problem a new registration fixes (`BadDeviceToken`,
    /// `DeviceTokenNotForTopic`, `SENDER_ID_MISMATCH`), keeping the token. A device registered after `date`
    /// is left alone.
    /// - Parameters:
    ///   - token: the token.
    ///   - kind: which of the device's tokens it is; an equal string of another kind is never touched.
    ///   - reason: the provider's reason.
    ///   - date: when the provider refused it.
    /// - Returns: true when a device was marked.
    /// - Throws: ``StoreError``.
    func flagPushToken(_ token: String, kind: PushTokenKind, problem reason: String, at date: Date) async throws -> Bool

    /// Removes a push token the provider reported dead (APNs 410, FCM `UNREGISTERED`), unless the app
    /// registered it again after the provider last saw it valid (compare-and-delete: a stale answer must
    /// not wipe a fresh registration).
    /// A device left without any token is removed.
    /// - Parameters:
    ///   - token: the token.
    ///   - kind: which of the device's tokens it is; an equal string of another kind is never touched.
    ///   - invalidSince: when the provider says the token stopped being valid (APNs' timestamp; for FCM,
    ///     which gives none, when the refused push was sent).
    /// - Returns: true when the token was removed.
    /// - Throws: ``StoreError``.
    func removeDeadPushToken(_ token: String, kind: PushTokenKind, invalidSince: Date) async throws -> Bool

    /// The user's devices, oldest registration first.
    /// - Throws: ``StoreError``.
    func devices(ofUser userID: String) async throws -> [Device]

    /// Decides and stores a new call in one transaction: whether the callee is in an `accepted` call
    /// is read inside it, `decide` builds the call from that answer, and the call and its events are
    /// stored before the transaction ends, so no accept can slip between the check and the insert
    /// ("busy" is settled by the store, not by a read before it). A caller's `Idempotency-Key` already used in
    /// the last 24 hours is found inside the same transaction, so two tries of one request (on two servers at
    /// once) make one call.
    ///
    /// - Important: Implementations must serialise this transaction against any change that accepts
    ///   a call of either party, or inserts a call of theirs, also across processes (SQLite: `BEGIN IMMEDIATE`;
    ///   PostgreSQL: advisory locks on both parties, which ``updateCall(id:_:)`` takes too).
    /// - Parameters:
    ///   - callerID: whose `Idempotency-Key` it is.
    ///   - calleeID: the user whose accepted calls make the new call busy.
    ///   - idempotencyKey: the caller's `Idempotency-Key`, remembered with the call; nil when the request had none.
    ///   - now: the server's time, which the key's 24 hours count to.
    ///   - node: the placing server's incarnation (its ``heartbeat(node:at:)`` name), which sends the call's pushes.
    ///   - decide: given whether the callee is busy, the new call, a result for the caller and the
    ///     call's first events; runs inside the transaction (and again if the database makes the transaction
    ///     retry), so it must not block and must have no other effect. If it throws, nothing is stored and the
    ///     error is rethrown.
    /// - Returns: the earlier call made with the key, or `decide`'s result with the appended events.
    /// - Throws: ``StoreError`` or what `decide` throws.
    func insertCall<T: Sendable>(
        callerID: String, calleeID: String, idempotencyKey: String?, at now: Date,
        placedBy node: String?,
        _ decide: @escaping @Sendable (_ calleeBusy: Bool) throws -> (CallMachine, T, [PendingEvent])
    )
        async throws -> InsertedCall<T>

    /// ``insertCall(callerID:calleeID:idempotencyKey:at:placedBy:_:)`` for a group call (decision 0007 §5): every
    /// party is locked, `decide` learns which callees are in an accepted call, and the call's legs are written to
    /// `call_legs` with it.
    /// - Parameters:
    ///   - calleeIDs: the callees, distinct, none of them the caller.
    ///   - decide: given the busy callees, the new call (``CallMachine/inviteGroup(callID:caller:invitees:policy:hasVideo:now:ringTimeout:)``),
    ///     a result and the first events; runs inside the transaction, as `insertCall`'s.
    /// - Returns: the earlier call made with the key, or `decide`'s result with the appended events.
    /// - Throws: ``StoreError`` or what `decide` throws.
    func insertGroupCall<T: Sendable>(
        callerID: String, calleeIDs: [String], idempotencyKey: String?, at now: Date, placedBy node: String?,
        _ decide: @escaping @Sendable (_ busy: Set<String>) throws -> (CallMachine, T, [PendingEvent])
    )
        async throws -> InsertedCall<T>

    /// Rings more people into a call (``CallInput/ringMore(_:)``), as ``updateCall(id:_:)`` does, also locking the
    /// new callees so whether each is busy is read in the same transaction that adds their legs.
    /// - Parameters:
    ///   - callID: the call.
    ///   - calleeIDs: the people to ring.
    ///   - node: the server ringing them, which sends their pushes (`call_legs.rung_by`).
    ///   - body: given the busy callees, changes the call; as `updateCall`'s.
    /// - Returns: nil when there is no such call; otherwise `body`'s result and the appended events.
    /// - Throws: ``StoreError`` or what `body` throws.
    func ringMore<T: Sendable>(
        callID: String, calleeIDs: [String], rungBy node: String?,
        _ body: @escaping @Sendable (inout CallMachine, _ busy: Set<String>) throws -> (T, [PendingEvent])
    )
        async throws -> (T, [StoredEvent])?

    /// The call a user created with this `Idempotency-Key` in the 24 hours before `now`, if any.
    /// - Throws: ``StoreError``.
    func call(forIdempotencyKey key: String, userID: String, at now: Date) async throws -> CallMachine?

    /// Loads a call, lets `body` change it, then saves it and appends the events `body` returns,
    /// all in one transaction, holding the locks of every party (a group call's: the caller and each callee) (as ``insertCall(callerID:calleeID:idempotencyKey:at:_:)``).
    /// If `body` throws, nothing is saved and the error is rethrown; `body` may run again if the database makes the
    /// transaction retry, so it must have no other effect.
    /// - Returns: nil when there is no such call; otherwise `body`'s result and the appended events.
    /// - Throws: ``StoreError`` or what `body` throws.
    func updateCall<T: Sendable>(
        id: String,
        _ body: @escaping @Sendable (inout CallMachine) throws -> (T, [PendingEvent])
    )
        async throws -> (T, [StoredEvent])?

    /// Claims the `ringing` call whose deadline passed longest ago (not one in `excluding`) and lets `body`
    /// change it, as ``updateCall(id:_:)`` does. A call another server has claimed is skipped, never waited for
    /// (PostgreSQL: `FOR UPDATE SKIP LOCKED`), so each due call is ended by exactly one live server, whichever
    /// created it; a call whose parties another change holds now is reported ``ClaimedCall/busy(callID:)``.
    /// - Parameters:
    ///   - now: calls with `expires_at` at or before it are due.
    ///   - excluding: calls to pass over (already reported busy in this sweep).
    /// - Returns: nil when no call is due.
    /// - Throws: ``StoreError`` or what `body` throws.
    func claimDueRingingCall<T: Sendable>(
        at now: Date, excluding: Set<String>,
        _ body: @escaping @Sendable (inout CallMachine) throws -> (T, [PendingEvent])
    )
        async throws -> ClaimedCall<T>?

    /// The call machine, or nil.
    /// - Throws: ``StoreError``.
    func call(id: String) async throws -> CallMachine?

    /// The user's calls as caller or callee, newest first, a page at a time: each read costs what it returns, not
    /// the user's whole history (each side is read in index order, caller's, callee's and group legs', and merged).
    /// A callee of a group call reads it as their leg (``CallMachine/view(for:)``).
    /// - Parameters:
    ///   - limit: at most this many (1…100).
    ///   - before: the id of the last call of the previous page, to continue after it; nil for the newest.
    /// - Returns: the page; empty when `before` names no call of the user.
    /// - Throws: ``StoreError``.
    func calls(ofUser userID: String, limit: Int, before: String?) async throws -> [Call]

    /// A page of every call, or of the calls a user takes part in, newest first (insertion order among calls of one
    /// millisecond), as stored: the app's backend's history (`GET /v1/server/calls`), filtered by its caller.
    /// - Parameters:
    ///   - userID: only calls this user placed or was rung in (as caller, 1:1 callee or group leg); nil for all.
    ///   - before: the id of the last call of the previous page, to continue after it; nil to start at the newest.
    ///   - until: only calls created before it (exclusive); nil for no bound. Ignored when `before` is given.
    ///   - limit: at most this many (1…500).
    /// - Returns: the page; nil when `before` names no stored call.
    /// - Throws: ``StoreError``.
    func callHistory(ofUser userID: String?, before: String?, until: Date?, limit: Int) async throws -> [CallMachine]?

    /// Whether a call between `a` and `b`, either way round, was answered (it is `accepted` or `ended`) within the
    /// retention: they know each other, so a budget against strangers need not hold them back.
    /// - Throws: ``StoreError``.
    func haveTalked(_ a: String, _ b: String) async throws -> Bool

    /// Deletes what is older than the retention: ended calls placed before `cutoff` with their push outcomes,
    /// events appended before it, and webhook deliveries made before it that are over (with the webhook events no
    /// delivery waits for); a call still ringing or accepted is never deleted. At most `batch` calls and
    /// `batch` events at a time, so one sweep never holds the database for long.
    /// - Returns: how many calls and events were deleted.
    /// - Throws: ``StoreError``.
    func prune(before cutoff: Date, batch: Int) async throws -> (calls: Int, events: Int)

    /// Ids and ring deadlines of every call still `ringing` (a group call's: its earliest ringing leg's, and of one
    /// that is up, too, while a leg rung into it rings), for rescheduling timeouts after a restart.
    /// - Throws: ``StoreError``.
    func ringingCalls() async throws -> [(callID: String, expiresAt: Date)]

    /// Every call still `accepted`, for watching them again after a restart (their maximum duration counts
    /// from the stored `acceptedAt`).
    /// - Throws: ``StoreError``.
    func acceptedCalls() async throws -> [Call]

    /// The user's newest events after `seq`, oldest first, at most `limit` (when more were missed,
    /// the oldest of them are left out: the newest say where each call is now).
    /// - Throws: ``StoreError``.
    func events(forUser userID: String, after seq: Int64, limit: Int) async throws -> [StoredEvent]

    /// The user's highest event `seq`, 0 when they have none. A user's events are numbered 1, 2, 3 …
    /// with no gaps, and an event is stored only with every lower `seq` of its user (the hub relies on
    /// both to put a late event back in its place).
    /// - Throws: ``StoreError``.
    func latestSeq(forUser userID: String) async throws -> Int64

    /// Records that the server is alive (every second or so): a server whose heartbeat stopped has its ringing
    /// calls' unanswered pushes sent by another (``claimOrphanedRingingCall(at:deadAfter:)``).
    /// - Parameter node: the server's incarnation, as given to `insertCall`'s `placedBy`.
    /// - Throws: ``StoreError``.
    func heartbeat(node: String, at now: Date) async throws

    /// Whether a server heard from in the last `within` seconds has not said it knows group calls (its heartbeat
    /// leaves `ringer_nodes.group_calls` unset: a server of the previous release, during a rolling upgrade).
    /// - Throws: ``StoreError``.
    func anyLiveNodeWithoutGroupCalls(at now: Date, within: TimeInterval) async throws -> Bool

    /// Claims, once ever, a call still ringing whose placing server's heartbeat is older than `deadAfter` seconds
    /// (it died, maybe with pushes in flight), skipping rows another server claimed (`SKIP LOCKED`). The claiming
    /// server's own calls are never claimed: it is alive, however late its heartbeat (a stalled process).
    /// - Returns: the call and the callee devices to push again: those the call could wake that neither got a
    ///   recorded push outcome nor acknowledged `ringing` (APNs and FCM do not de-duplicate; the phone does, by call
    ///   id); nil when no such call is left.
    /// - Throws: ``StoreError``.
    func claimOrphanedRingingCall(
        at now: Date, deadAfter: TimeInterval, claimedBy node: String
    ) async throws
        -> (CallMachine, [String])?

    /// ``claimOrphanedRingingCall(at:deadAfter:claimedBy:)`` for a group call's legs: claims, once ever, a leg still
    /// ringing whose ringing server (the one that placed the call, or rang the callee more: `call_legs.rung_by`) has
    /// a heartbeat older than `deadAfter` seconds, skipping legs another server claimed and this server's own.
    /// - Returns: the call, the leg's callee, and the callee's devices to push again (those the leg could wake that
    ///   neither got a recorded push outcome nor acknowledged `ringing`); nil when no such leg is left.
    /// - Throws: ``StoreError``.
    func claimOrphanedRingingLeg(
        at now: Date, deadAfter: TimeInterval, claimedBy node: String
    ) async throws
        -> (CallMachine, userID: String, deviceIDs: [String])?

    /// Every user whose stream grew at or after `date` (the wall clock of the server that appended), with their
    /// newest `seq`: what a server of a cluster compares with what it delivered, to fill what Redis lost.
    /// - Throws: ``StoreError``.
    func recentSequences(since date: Date) async throws -> [(userID: String, seq: Int64)]

    // MARK: API keys

    /// Stores a new API key.
    /// - Throws: ``StoreError`` (a key id already used: a constraint failure; ids are random, so never in practice).
    func insertAPIKey(_ key: StoredAPIKey) async throws

    /// Every API key, oldest first.
    /// - Throws: ``StoreError``.
    func apiKeys() async throws -> [StoredAPIKey]

    /// The API key with this id, or nil (never created, or revoked).
    /// - Throws: ``StoreError``.
    func apiKey(id: String) async throws -> StoredAPIKey?

    /// Revokes an API key: its row is deleted, so the next request with it is refused on every server.
    /// - Returns: false when there was no such key.
    /// - Throws: ``StoreError``.
    func deleteAPIKey(id: String) async throws -> Bool

    /// Records that a request used the key at `date` (a revoked key is not brought back).
    /// - Throws: ``StoreError``.
    func touchAPIKey(id: String, at date: Date) async throws

    // MARK: Webhooks

    /// Stores a new webhook endpoint. From the commit on, every event of a type it takes is written to the outbox with
    /// a delivery to it, in the transaction of the change that made the event.
    /// - Throws: ``StoreError``.
    func insertWebhookEndpoint(_ endpoint: StoredWebhookEndpoint) async throws

    /// Every webhook endpoint, oldest first.
    /// - Throws: ``StoreError``.
    func webhookEndpoints() async throws -> [StoredWebhookEndpoint]

    /// The webhook endpoint with this id, or nil.
    /// - Throws: ``StoreError``.
    func webhookEndpoint(id: String) async throws -> StoredWebhookEndpoint?

    /// Changes a webhook endpoint's URL, types, description and, when `enabled` is given, whether it is enabled; its
    /// secrets are left alone, and so is `enabled` when nil (a 410 that disabled it meanwhile stands). Enabling clears
    /// why the server disabled it; disabling fails its pending deliveries, in the same transaction.
    /// - Returns: the endpoint after the change; nil when there is no such endpoint.
    /// - Throws: ``StoreError``.
    func updateWebhookEndpoint(
        id: String, url: String, eventTypes: [WebhookEventType], description: String?, enabled: Bool?, at now: Date
    ) async throws -> StoredWebhookEndpoint?

    /// Puts a new sealed secret in place; the one it replaces keeps signing until `keepPreviousUntil` (nil: retired at
    /// once). One statement, so concurrent rotations and changes lose nothing.
    /// - Returns: the endpoint after the change; nil when there is no such endpoint.
    /// - Throws: ``StoreError``.
    func rotateWebhookSecret(
        id: String, sealedSecret: String, keepPreviousUntil: Date?, at now: Date
    ) async throws -> StoredWebhookEndpoint?

    /// Deletes a webhook endpoint and its deliveries (its events go with the retention sweep).
    /// - Returns: false when there was no such endpoint.
    /// - Throws: ``StoreError``.
    func deleteWebhookEndpoint(id: String) async throws -> Bool

    /// An endpoint's deliveries, newest first, a page at a time.
    /// - Parameters:
    ///   - state: only deliveries in this state; nil for all.
    ///   - before: only deliveries with a smaller id (the previous page's last); nil for the newest.
    ///   - limit: at most this many (1…100).
    /// - Throws: ``StoreError``.
    func webhookDeliveries(
        endpointID: String, state: WebhookDeliveryState?, before: Int64?, limit: Int
    ) async throws -> [WebhookDelivery]

    /// Queues a delivery again: `pending`, due at `now`, a fresh series of attempts.
    /// - Returns: the delivery; nil when the endpoint has no such delivery.
    /// - Throws: ``StoreError``.
    func redeliverWebhook(deliveryID: Int64, endpointID: String, at now: Date) async throws -> WebhookDelivery?

    /// Claims due webhook deliveries for one attempt each by `node` (decision 0009 §3): `pending`, due by `now`, and
    /// held by no live server (never claimed, a lapsed lease, or a claimer whose heartbeat is older than
    /// `nodeDeadAfter`). Rows another server is claiming are skipped (PostgreSQL `SKIP LOCKED`), so each attempt is
    /// made by one server; an endpoint's deliveries are claimed only while it has fewer than `perEndpoint` in flight
    /// (`inFlight` counts this server's), and only enabled endpoints' are answered.
    /// - Parameters:
    ///   - lease: seconds the claim holds: longer than an attempt may take.
    ///   - limit: most deliveries claimed.
    /// - Throws: ``StoreError``.
    func claimWebhookDeliveries(
        at now: Date, by node: String, lease: TimeInterval, limit: Int, perEndpoint: Int, inFlight: [String: Int],
        nodeDeadAfter: TimeInterval
    ) async throws -> [ClaimedWebhookDelivery]

    /// Stores how an attempt ended, if `node` still holds that very claim (``ClaimedWebhookDelivery/claim``: a claim
    /// that lapsed and was taken again, by another server or this one, leaves the row to its new holder);
    /// `endpointGone` also disables the endpoint and fails its pending deliveries.
    /// - Throws: ``StoreError``.
    func finishWebhookDelivery(
        _ claimed: ClaimedWebhookDelivery, by node: String, at now: Date, outcome: WebhookAttemptOutcome
    ) async throws

    /// When the oldest event still waiting for a delivery to an enabled endpoint was stored; nil when none waits
    /// (metrics).
    /// - Throws: ``StoreError``.
    func oldestPendingWebhookEvent() async throws -> Date?

    // MARK: Push providers

    /// Stores a push provider added through the API, unless another serves one of its bundle ids or its project, or
    /// has its name (checked in the same transaction, under a lock every change of the providers takes).
    /// - Throws: ``PushProviderConflict``; ``StoreError``.
    func insertPushProvider(_ provider: StoredPushProvider) async throws

    /// Every push provider added through the API, oldest first.
    /// - Throws: ``StoreError``.
    func pushProviders() async throws -> [StoredPushProvider]

    /// Replaces a provider's record and credential (its id stays), with ``insertPushProvider(_:)``'s check.
    /// - Returns: false when there is no such provider.
    /// - Throws: ``PushProviderConflict``; ``StoreError``.
    func replacePushProvider(_ provider: StoredPushProvider) async throws -> Bool

    /// Removes (retires) a provider: its devices go back to the default credentials.
    /// - Returns: false when there was no such provider.
    /// - Throws: ``StoreError``.
    func deletePushProvider(id: String) async throws -> Bool

    /// The providers' revision, moved in the transaction of every change: what each server polls to reload them.
    /// - Throws: ``StoreError``.
    func pushProvidersVersion() async throws -> String

    /// Tells `observer` how long each operation took from then on, in seconds, waits for a connection included
    /// (metrics). Call it once, before the store's first operation (it is read without a lock); a store that does not
    /// time its operations ignores it.
    func observeOperations(_ observer: @escaping @Sendable (TimeInterval) -> Void)

    /// Records the outcome of a push.
    /// - Throws: ``StoreError``.
    func recordPushAttempt(_ attempt: PushAttempt) async throws

    /// Records the outcome of a push without waiting for it: `committed` is called once it is stored (with nil) or
    /// could not be (with the error), on a thread of the store's. The push's task need not wait to be resumed: a
    /// call's push outcome was one more crossing between threads per push (issue 33).
    func recordPushAttempt(_ attempt: PushAttempt, committed: @escaping @Sendable ((any Error)?) -> Void)

    /// The push outcomes of a call, oldest first.
    /// - Throws: ``StoreError``.
    func pushAttempts(callID: String) async throws -> [PushAttempt]
}

/// An API key as the store keeps it: its record and the SHA-256 of the whole key, never the key.
public struct StoredAPIKey: Hashable, Sendable {
    /// The record the API lists.
    public var info: APIKeyInfo
    /// SHA-256 of the key's UTF-8 bytes, 64 lowercase hexadecimal digits.
    public var keyHash: String

    /// Creates the record.
    public init(info: APIKeyInfo, keyHash: String) {
        self.info = info
        self.keyHash = keyHash
    }
}

extension RingerStore {
    /// A store that does not time its operations ignores the observer.
    public func observeOperations(_ observer: @escaping @Sendable (TimeInterval) -> Void) {}
}
