import Foundation
import RingerCore
import RingerSupport
import RingerStore
import RingerWire

/// Runs every call operation: asks ``CallMachine`` what to do, stores the result, then carries out
/// the effects (events to WebSockets, VoIP pushes, ring timeouts, the watch over accepted calls).
///
/// A change holds the locks of both parties (``KeyedAsyncLock``, taken in sorted order, so no two
/// changes can wait for each other in a cycle) while it stores and publishes: each user's events
/// reach the hub in `seq` order, and calls between other users never wait. Whether the callee is
/// busy is decided inside the store's transaction (``RingerStore/insertCall(calleeID:idempotencyKey:_:)``).
/// Pushes are sent after the locks are released and never delay the HTTP answer.
final class CallService: Sendable {
    private let store: any RingerStore
    private let hub: EventHub
    private let pushes: PushDispatcher
    private let media: MediaTokens
    private let ringTimeout: TimeInterval
    /// The most callees one call rings, those rung more included (`--max-callees-per-call`).
    private let maxCalleesPerCall: Int
    /// Whether a busy callee is rung as a waiting call when the request does not say (`--call-waiting`).
    private let callWaiting: Bool
    private let limits: RateLimits
    private let clock: any ServerClock
    private let log: Logger
    private let observe: @Sendable (ServerObservation) -> Void
    /// Per-user locks held while a change is stored and published (shared with the hub's baseline read).
    private let publications: KeyedAsyncLock
    /// How long a change waits for its parties' ``publications`` locks at most (PostgreSQL's
    /// `--database-timeout`), nil for as long as it takes. A holder stuck on a database that stopped answering
    /// gives up after that time, and so must the changes queued behind it, or the n-th would wait n times as long.
    private let lockWait: Duration?
    private let timers: RingTimeoutScheduler
    /// This server's incarnation: the `placed_by` of its calls and the name of its heartbeat.
    let node: String
    /// The loop of ``startRingSweep()``.
    private let ringSweep = LockedValue<Task<Void, Never>?>(nil)
    /// How long ended calls and events are kept (`--retention-days`); nil keeps them forever.
    private let retention: TimeInterval?
    /// When the retention sweep last ran to its end (server time).
    private let lastPruned = LockedValue<Date?>(nil)
    /// Ends accepted calls whose apps went silent or that lasted too long.
    let acceptedCalls: AcceptedCallMonitor
    /// The other servers of the cluster (`--redis`); nil for a server on its own. Set once, before ``RingerServer/start()``.
    let cluster = LockedValue<ClusterLink?>(nil)

    /// Creates the service; ring timeouts and accepted calls from before a restart are picked up by
    /// ``resumeRingTimeouts()`` and ``resumeAcceptedCalls()``.
    /// - Parameters:
    ///   - publications: the per-user locks the hub also holds while it reads a stream's baseline.
    ///   - ringTimeout: seconds a call rings before it ends `unanswered`.
    ///   - watch: when a silent or overlong accepted call is ended.
    ///   - observe: told of every call created and changed.
    ///   - node: this server's incarnation (``RingerServer/incarnation``), stored with the calls it places and in its
    ///     heartbeat.
    ///   - lockWait: how long a change waits for its parties' locks at most before it fails with
    ///     `StoreError.timedOut` (503); nil waits as long as it takes.
    ///   - maxCalleesPerCall: the most callees one call rings (`--max-callees-per-call`).
    ///   - callWaiting: whether a busy callee is rung as a waiting call unless the request says (`--call-waiting`).
    init(
        store: any RingerStore, hub: EventHub, publications: KeyedAsyncLock, pushes: PushDispatcher, media: MediaTokens,
        ringTimeout: TimeInterval, limits: RateLimits, watch: AcceptedCallWatch, clock: any ServerClock, log: Logger,
        node: String = "ringer/\(Date().unixMilliseconds)", lockWait: Duration? = nil, retention: TimeInterval? = nil,
        maxCalleesPerCall: Int = ServerConfiguration.defaultMaxCalleesPerCall, callWaiting: Bool = false,
        observe: @escaping @Sendable (ServerObservation) -> Void
    ) {
        self.maxCalleesPerCall = maxCalleesPerCall
        self.callWaiting = callWaiting
        self.node = node
        self.retention = retention
        self.lockWait = lockWait
        self.store = store
        self.publications = publications
        self.hub = hub
        self.pushes = pushes
        self.media = media
        self.ringTimeout = ringTimeout
        self.limits = limits
        self.clock = clock
        self.log = log
        self.observe = observe
        timers = RingTimeoutScheduler(clock: clock)
        let cluster = self.cluster
        acceptedCalls = AcceptedCallMonitor(
            watch: watch, clock: clock,
            isOnline: { [hub] user in
                if hub.isOnline(userID: user) { return true }
                // Redis unable to say: not ended as lost during a Redis outage.
                guard let cluster = cluster.snapshot else { return false }
                return await cluster.isOnlineElsewhere(user) ?? true
            })
    }

    /// Reschedules the ring timeout of every call still ringing (after a restart); past ones fire at once.
    func resumeRingTimeouts() async throws {
        for (callID, deadline) in try await store.ringingCalls() {
            scheduleTimeout(callID: callID, at: deadline)
        }
    }

    /// Watches every call still accepted (after a restart), as if both parties were heard from now, and starts
    /// the sweep; a call past its maximum duration ends at the first sweep.
    func resumeAcceptedCalls() async throws {
        let now = clock.now()
        for call in try await store.acceptedCalls() { acceptedCalls.watch(call, lastHeard: now) }
        acceptedCalls.start { [weak self] callID, input in await self?.endBySystem(input, callID: callID) }
    }

    /// Stops every pending timer and the sweep.
    func shutdown() {
        ringSweep.withLock { $0?.cancel() }
        timers.cancelAll()
        acceptedCalls.shutdown()
    }

    // MARK: Calls

    /// `POST /v1/calls`: a 1:1 call (`callee`) or a group call (`callees`, ``createGroupCall(caller:callees:policy:hasVideo:callWaiting:idempotencyKey:address:resolvingCallerName:)``).
    ///
    /// The rate limits come before anything is stored or rung: an unknown callee counts against the caller's
    /// and the address's unknown-callee limit (past which every attempt is refused, so whether a user exists
    /// cannot be probed quickly); a known one spends one of the caller's calls and one of the pair's. A retry
    /// with the same Idempotency-Key spends nothing.
    /// - Parameters:
    ///   - caller: the caller. On the app's path, what ``recordUser(_:)`` returned: it already has the name the
    ///     server knows, which is then not read again.
    ///   - address: the client's address key for per-address limits (nil: unknown).
    ///   - resolvingCallerName: true when `caller` may lack the name the server knows (the backend's path, whose
    ///     caller is recorded only once the call is taken): it is read after the request's checks and limits.
    /// - Throws: ``CallServiceError`` for an invalid or unknown callee or a self call; ``RateLimitExceeded``;
    ///   `StoreError` on storage failure.
    func createCall(
        caller: Party, request: CreateCallRequest, idempotencyKey: String? = nil,
        address: String? = nil, resolvingCallerName: Bool = false
    ) async throws -> Call {
        if let callees = request.callees {
            guard request.callee == nil else {
                throw CallServiceError.invalidRequest("give callee or callees, not both")
            }
            let policy = request.answerPolicy ?? .firstAnswer
            guard AnswerPolicy.known.contains(policy) else {
                throw CallServiceError.invalidRequest("answer_policy must be first_answer or all_may_join")
            }
            return try await createGroupCall(
                caller: caller, callees: callees, policy: policy, hasVideo: request.hasVideo ?? false,
                callWaiting: request.callWaiting ?? callWaiting, idempotencyKey: idempotencyKey, address: address,
                resolvingCallerName: resolvingCallerName)
        }
        guard let calleeID = request.callee else { throw CallServiceError.missingCallee }
        guard request.answerPolicy == nil else {
            throw CallServiceError.invalidRequest("answer_policy is for a group call: give callees")
        }
        guard Identifier.isValid(calleeID) else { throw CallServiceError.invalidCallee }
        guard calleeID != caller.id else { throw CallServiceError.selfCall }
        try limits.admitCalleeLookup(caller: caller.id, address: address)
        guard let callee = try await store.user(id: calleeID) else {
            limits.calleeUnknown(caller: caller.id, address: address)
            throw CallServiceError.userNotFound(calleeID)
        }
        let caller = resolvingCallerName ? try await named(caller) : caller
        let placed = try await withPartyLocks([caller.id, callee.id]) {
            () async throws -> (CallMachine, [Device], [CallEffect]) in
            // A retried request (same Idempotency-Key) gets the call it made, and rings nobody twice. Read here first
            // so a retry spends no rate limit; the store reads it again inside its transaction, which settles two
            // tries arriving at two servers at once.
            if let idempotencyKey,
                let earlier = try await store.call(
                    forIdempotencyKey: idempotencyKey, userID: caller.id, at: clock.now())
            {
                return (earlier, [], [])
            }
            do {
                try limits.admitCall(caller: caller.id, callee: callee.id)
            } catch let refused as RateLimitExceeded where refused.limit == .callsPerCallee {
                // Only when the callee's own budget is spent does it matter whether they know the caller.
                guard try await store.haveTalked(caller.id, callee.id) else { throw refused }
                try limits.admitCall(caller: caller.id, callee: callee.id, exemptFromCalleeBudget: true)
            }
            let devices = try await store.devices(ofUser: callee.id)
            let online = await isOnline(callee.id)
            // Whole milliseconds, the precision of every timestamp the API and the VoIP push carry.
            let now = Date(unixMilliseconds: clock.now().unixMilliseconds)
            let calleeDevices = devices.map {
                CalleeDevice(id: $0.deviceID, platform: $0.platform, canBeWoken: $0.canBeWoken)
            }
            let callID = UUID.random().lowercaseText
            let hasVideo = request.hasVideo ?? false
            let callWaiting = request.callWaiting ?? self.callWaiting
            let ringTimeout = self.ringTimeout
            let inserted = try await store.insertCall(
                callerID: caller.id, calleeID: callee.id, idempotencyKey: idempotencyKey,
                at: now, placedBy: node
            ) { busy in
                // Busy is read in the same transaction that stores the call.
                let (machine, effects) = CallMachine.invite(
                    callID: callID, caller: caller, callee: callee, hasVideo: hasVideo, calleeDevices: calleeDevices,
                    calleeOnline: online, calleeBusy: busy, callWaiting: callWaiting, now: now,
                    ringTimeout: ringTimeout)
                return (machine, (machine, effects), Self.events(of: effects, machine: machine))
            }
            return announce(inserted, devices: devices, none: [])
        }
        let (machine, devices, effects) = placed
        let call = machine.call
        var metadata: Logger.Metadata = ["call.id": .string(call.callID), "call.state": .string(call.state.rawValue)]
        if call.state == .failed {
            // Why it could not ring is for the operator; the caller is told only that the callee cannot be reached.
            metadata["callee.devices"] = .string("\(devices.count)")
            metadata["callee.wakeable_devices"] = .string("\(devices.filter(\.canBeWoken).count)")
        }
        log.info("call created", metadata)
        carryOut(effects, machine: machine, devices: [callee.id: devices])
        return call
    }

    /// `POST /v1/calls` with `callees`: one call, a leg per callee (decision 0007).
    ///
    /// Each bad input is answered before anything is stored or rung, in this order: an empty list or an entry that is
    /// no user id (`invalid-field`), the caller in the list (`self-call`), a repeat (`duplicate-callee`), more than
    /// `--max-callees-per-call` (`too-many-callees`), unknown users (`user-not-found` naming every one: the whole
    /// call is refused, so nobody rings half-way; every id in the list spends one unknown-callee unit). Then each callee rung spends
    /// one of the caller's calls, one of the pair's and one of the callee's, all or none.
    /// - Parameters:
    ///   - caller: as for ``createCall(caller:request:idempotencyKey:address:resolvingCallerName:)``.
    ///   - resolvingCallerName: as for ``createCall(caller:request:idempotencyKey:address:resolvingCallerName:)``.
    /// - Throws: ``CallServiceError``; ``RateLimitExceeded``; `StoreError` on storage failure.
    func createGroupCall(
        caller: Party, callees ids: [String], policy: AnswerPolicy, hasVideo: Bool, callWaiting: Bool,
        idempotencyKey: String?, address: String?, resolvingCallerName: Bool = false
    ) async throws -> Call {
        try checkCallees(ids, actor: caller.id)
        try limits.admitCalleeLookup(caller: caller.id, address: address)
        let callees = try await knownUsers(ids, caller: caller.id, address: address)
        try await requireGroupCallsEverywhere()
        let caller = resolvingCallerName ? try await named(caller) : caller
        let placed = try await withPartyLocks([caller.id] + ids) {
            () async throws -> (CallMachine, [String: [Device]], [CallEffect]) in
            if let idempotencyKey,
                let earlier = try await store.call(
                    forIdempotencyKey: idempotencyKey, userID: caller.id, at: clock.now())
            {
                return (earlier, [:], [])
            }
            try await admitGroup(caller: caller.id, callees: ids)
            let (devices, invitees) = try await invitees(callees)
            let now = Date(unixMilliseconds: clock.now().unixMilliseconds)
            let callID = UUID.random().lowercaseText
            let ringTimeout = self.ringTimeout
            let inserted = try await store.insertGroupCall(
                callerID: caller.id, calleeIDs: ids, idempotencyKey: idempotencyKey, at: now, placedBy: node
            ) { busy in
                let rung = invitees.map { invitee in
                    var invitee = invitee
                    invitee.busy = busy.contains(invitee.party.id)
                    return invitee
                }
                let (machine, effects) = CallMachine.inviteGroup(
                    callID: callID, caller: caller, invitees: rung, policy: policy, hasVideo: hasVideo,
                    callWaiting: callWaiting, now: now, ringTimeout: ringTimeout)
                return (machine, (machine, effects), Self.events(of: effects, machine: machine))
            }
            return announce(inserted, devices: devices, none: [:])
        }
        let (machine, devices, effects) = placed
        log.info(
            "group call created",
            [
                "call.id": .string(machine.call.callID), "call.state": .string(machine.call.state.rawValue),
                "call.callees": .string("\(ids.count)"),
            ])
        carryOut(effects, machine: machine, devices: devices)
        return machine.call
    }

    /// `POST /v1/calls/{id}/ring`: rings more people into a call that is ringing or up (decision 0007 §7), for its
    /// caller or a callee in it. Someone already ringing or in the call is left alone, so a retry rings nobody twice.
    /// - Returns: the call as the ringing user reads it.
    /// - Throws: ``CallServiceError`` (`callNotFound` for a stranger; the list's problems as for a new group call;
    ///   `rule` for a call that is over, a callee not in it, a callee whose leg ended, the limit on legs);
    ///   ``RateLimitExceeded``; `StoreError`.
    /// - Parameter address: the client's address key for per-address limits (nil: unknown).
    func ringMore(callID: String, user: Party, callees ids: [String], address: String? = nil) async throws -> Call {
        guard let current = try await store.call(id: callID), current.isParticipant(user.id) else {
            throw CallServiceError.callNotFound
        }
        try checkCallees(ids, actor: user.id)
        try limits.admitCalleeLookup(caller: user.id, address: address)
        let callees = try await knownUsers(ids, caller: user.id, address: address)
        try await requireGroupCallsEverywhere()
        let maximumLegs = maxCalleesPerCall
        let ringTimeout = self.ringTimeout
        let outcome = try await withPartyLocks(current.parties + ids) {
            () async throws -> (CallMachine, [String: [Device]], [CallEffect])? in
            guard let machine = try await store.call(id: callID) else { return nil }
            // The machine is given everyone named (it leaves those ringing or in the call alone and refuses those
            // whose leg ended); only the others are looked up and spend rate limits.
            let fresh = ids.filter { !machine.parties.contains($0) }
            let (devices, found) = try await invitees(callees.filter { fresh.contains($0.id) })
            let invitees = callees.map { callee in
                found.first { $0.party.id == callee.id } ?? Invitee(party: callee, devices: [])
            }
            let now = clock.now()
            let more = RingMore(invitees: invitees, ringTimeout: ringTimeout, maximumLegs: maximumLegs)
            do {
                // The rules first, on a copy, so a refused request spends no rate limit.
                var trial = machine
                _ = try trial.apply(.ringMore(more), by: .user(user.id), at: now)
                if !fresh.isEmpty { try await admitGroup(caller: user.id, callees: fresh) }
                guard
                    let (result, stored) = try await store.ringMore(
                        callID: callID, calleeIDs: fresh, rungBy: node,
                        {
                            machine, busy in
                            var rung = more
                            for index in rung.invitees.indices {
                                rung.invitees[index].busy = busy.contains(rung.invitees[index].party.id)
                            }
                            return try Self.transition(&machine, .ringMore(rung), by: .user(user.id), at: now)
                        })
                else { return nil }
                published(result, stored)
                return (result.0, devices, result.1)
            } catch let error as CallRuleError {
                throw CallServiceError.rule(error)
            }
        }
        guard let (machine, devices, effects) = outcome else { throw CallServiceError.callNotFound }
        if !effects.isEmpty {
            log.info(
                "callees rung into a call", ["call.id": .string(callID), "call.callees": .string("\(ids.count)")])
        }
        carryOut(effects, machine: machine, devices: devices)
        return machine.view(for: user.id)
    }

    /// `party` with the name the server knows when it carries none (a backend's request without a name).
    /// - Throws: `StoreError`.
    private func named(_ party: Party) async throws -> Party {
        party.name != nil ? party : Party(id: party.id, name: try await store.user(id: party.id)?.name)
    }

    /// Records `party` as a user others can call, with the name their token carries (a token without one keeps the
    /// stored name), and returns them with the name the server knows. Writes only for a new user or a new name: one
    /// read on every call instead of a write transaction (issue 33).
    /// - Throws: `StoreError`.
    func recordUser(_ party: Party) async throws -> Party {
        let stored = try await store.user(id: party.id)
        if stored == nil || (party.name != nil && party.name != stored?.name) {
            try await store.upsertUser(id: party.id, name: party.name, at: clock.now())
        }
        return Party(id: party.id, name: party.name ?? stored?.name)
    }

    /// Whether `user` holds an event socket here or, in a cluster, elsewhere. Redis unable to say: rung as if
    /// online, since another server's socket gets the call from the store.
    private func isOnline(_ user: String) async -> Bool {
        if hub.isOnline(userID: user) { return true }
        guard let cluster = cluster.snapshot else { return false }
        return await cluster.isOnlineElsewhere(user) ?? true
    }

    /// A callee list's own problems, before any is looked up (decision 0007 §7's order). A ring-more's list is held to
    /// the limit alone here; with the legs the call has, by ``CallMachine`` under the call's locks.
    /// - Parameter actor: the user ringing them (the caller of a new call).
    private func checkCallees(_ ids: [String], actor: String) throws {
        guard !ids.isEmpty else { throw CallServiceError.invalidRequest("callees must name at least one user") }
        if let bad = ids.first(where: { !Identifier.isValid($0) }) {
            throw CallServiceError.invalidRequest(
                "callees holds \"\(bad.prefix(64))\", which is not a user id (\(Identifier.rule))")
        }
        guard !ids.contains(actor) else { throw CallServiceError.selfCall }
        var seen: Set<String> = []
        let repeated = ids.filter { !seen.insert($0).inserted }
        guard repeated.isEmpty else { throw CallServiceError.duplicateCallees(Array(Set(repeated)).sorted()) }
        guard ids.count <= maxCalleesPerCall else {
            throw CallServiceError.tooManyCallees(limit: maxCalleesPerCall)
        }
    }

    /// A call just stored: observed, its events delivered here and published to the cluster; its machine, `devices`
    /// and effects to carry out. A retry's earlier call (same Idempotency-Key) comes back with `none` and no effects.
    private func announce<Devices>(
        _ inserted: InsertedCall<(CallMachine, [CallEffect])>, devices: Devices, none: Devices
    ) -> (CallMachine, Devices, [CallEffect]) {
        switch inserted {
        case .existing(let earlier): return (earlier, none, [])
        case .created(let result, let stored):
            observe(.callCreated(result.0.call))
            observe(.callStored(result.0.call, effects: result.1, created: true))
            hub.deliver(stored)
            cluster.snapshot?.publish(stored)
            return (result.0, devices, result.1)
        }
    }

    /// The users `ids` name, in order, or a refusal naming every unknown one.
    ///
    /// A refusal spends an unknown-callee unit for every id in the list, known ones too: it names the unknown ones and
    /// so tells the others exist, without ringing them or spending a call. Counting only the unknown ones let a list of
    /// 15 known ids and one decoy confirm 15 ids per unit, 300 a minute (found by review).
    private func knownUsers(_ ids: [String], caller: String, address: String?) async throws -> [Party] {
        var known: [Party] = []
        var unknown: [String] = []
        for id in ids {
            if let user = try await store.user(id: id) { known.append(user) } else { unknown.append(id) }
        }
        guard unknown.isEmpty else {
            limits.calleeUnknown(caller: caller, address: address, cost: ids.count)
            throw CallServiceError.usersNotFound(unknown)
        }
        return known
    }

    /// Spends a group's rate limits: the callee budget of those who talked with the caller before does not hold.
    private func admitGroup(caller: String, callees: [String]) async throws {
        var exempt: Set<String> = []
        for callee in limits.calleesOverBudget(callees) where try await store.haveTalked(caller, callee) {
            exempt.insert(callee)
        }
        try limits.admitCalls(caller: caller, callees: callees, exempt: exempt)
    }

    /// The callees' devices and what the machine needs of each (busy is read later, in the store's transaction).
    private func invitees(_ callees: [Party]) async throws -> ([String: [Device]], [Invitee]) {
        var devices: [String: [Device]] = [:]
        var invitees: [Invitee] = []
        for callee in callees {
            let theirs = try await store.devices(ofUser: callee.id)
            devices[callee.id] = theirs
            invitees.append(
                Invitee(
                    party: callee,
                    devices: theirs.map {
                        CalleeDevice(id: $0.deviceID, platform: $0.platform, canBeWoken: $0.canBeWoken)
                    },
                    online: await isOnline(callee.id)))
        }
        return (devices, invitees)
    }

    /// Group calls need every live server to know legs: an older server would read one as a 1:1 call with its first
    /// callee (decision 0007 §5, rolling upgrades).
    /// - Throws: ``CallServiceError/groupCallsUnavailable`` while a server that does not is alive.
    private func requireGroupCallsEverywhere() async throws {
        guard try await !store.anyLiveNodeWithoutGroupCalls(at: clock.now(), within: Self.nodeDeadAfter) else {
            throw CallServiceError.groupCallsUnavailable
        }
    }

    /// The per-call actions: ringing, accept, decline, cancel, end.
    /// - Parameters:
    ///   - input: the action.
    ///   - callID: the call.
    ///   - user: the acting user.
    /// - Returns: the call after the action.
    /// - Throws: ``CallServiceError`` (`callNotFound` for an unknown call or a stranger, `rule` for a wrong side or
    ///   a call past the action, `invalidDeviceID`/`unknownDevice`); `StoreError` on storage failure.
    func act(_ input: CallInput, callID: String, user: String) async throws -> Call {
        switch input {
        case .ringing(let device), .accept(let device), .decline(let device):
            try await requireDevice(device, of: user)
        default:
            break
        }
        return try await apply(input, callID: callID, actor: .user(user))
    }

    /// `accept`, plus the answering user's media session.
    func accept(callID: String, user: Party, deviceID: String) async throws -> AcceptResponse {
        let call = try await act(.accept(deviceID: deviceID), callID: callID, user: user.id)
        return AcceptResponse(call: call, media: try media.session(for: user, callID: call.callID, now: clock.now()))
    }

    /// `GET /v1/calls/{id}/media`: a participant's media session for an accepted call (the participant is
    /// heard from).
    /// - Throws: ``CallServiceError`` `callNotFound` for a stranger, `notAccepted` when the call is not accepted.
    func mediaSession(callID: String, user: Party) async throws -> MediaSession {
        try Self.requireInCall(
            try await machine(id: callID, user: user.id), user: user.id, "media is only available for an accepted call")
        heard(callID: callID, user: user.id, at: clock.now())
        return try media.session(for: user, callID: callID, now: clock.now())
    }

    /// `POST /v1/calls/{id}/keepalive`: a participant's app is still in the accepted call, so the call does not
    /// end `connection_lost` while it has no event socket.
    /// - Throws: ``CallServiceError`` `callNotFound` for a stranger or an unknown call, `notAccepted` (with the
    ///   call's state) when the call is not accepted: the app should close it.
    func keepalive(callID: String, user: String) async throws {
        try Self.requireInCall(
            try await machine(id: callID, user: user), user: user, "only an accepted call is kept alive")
        heard(callID: callID, user: user, at: clock.now())
    }

    /// Requires `user` to be in the accepted call: a 1:1 call's party, a group call's caller, or a callee whose leg
    /// is accepted (one who left, declined or lost the race is not, while the call may go on without them).
    /// - Throws: ``CallServiceError/notAccepted(_:state:legState:)`` with the call as `user` reads it.
    private static func requireInCall(_ machine: CallMachine, user: String, _ detail: String) throws {
        let call = machine.view(for: user)
        if user != call.caller.id, let leg = machine.call.leg(of: user) {
            guard leg.state == .accepted else {
                throw CallServiceError.notAccepted(detail, state: call.state, legState: leg.state)
            }
        } else if call.state != .accepted {
            throw CallServiceError.notAccepted(detail, state: call.state, legState: nil)
        }
    }

    /// `GET /v1/calls/{id}`: the call as `user` reads it (a callee of a group call: as their leg).
    /// - Throws: ``CallServiceError/callNotFound`` when the call does not exist or the user is not a participant.
    func call(id: String, user: String) async throws -> Call {
        try await machine(id: id, user: user).view(for: user)
    }

    /// The stored call, for one of its participants.
    /// - Throws: ``CallServiceError/callNotFound`` when the call does not exist or the user is not a participant.
    private func machine(id: String, user: String) async throws -> CallMachine {
        guard let machine = try await store.call(id: id), machine.isParticipant(user) else {
            throw CallServiceError.callNotFound
        }
        return machine
    }

    /// `GET /v1/calls/{id}` as its reader sees it: the callee also gets the push outcomes (their devices'), and
    /// either side gets `callee_readiness`, the sorted union of the readiness problems of the callee devices
    /// the call was pushed to (as each was when pushed) or rang on (as it last reported), with no device named.
    /// - Throws: ``CallServiceError/callNotFound`` when the call does not exist or the user is not a participant.
    ///
    /// In a group call a callee's "devices" are their own leg's, and the caller's readiness is every leg's.
    func show(id: String, user: String) async throws -> Call {
        let machine = try await machine(id: id, user: user)
        var call = machine.view(for: user)
        // Each callee whose phones count here, with the devices the call could ring and those that rang.
        var sides: [(callee: String, devices: Set<String>, rang: [String])] = []
        if let legs = machine.legs {
            for leg in legs where user == call.caller.id || leg.userID == user {
                sides.append((leg.userID, Set(leg.calleeDevices.map(\.id)), leg.ringingDeviceIDs))
            }
        } else {
            sides.append((call.callee.id, Set(machine.calleeDevices.map(\.id)), machine.ringingDeviceIDs))
        }
        let everyPush = try await store.pushAttempts(callID: id)
        // By user and device: two callees may name their phones alike (found by review). A push without a user was sent
        // while the call was still 1:1, to its first callee.
        let firstCallee = machine.legs?.first?.userID
        let pushes =
            machine.legs == nil
            ? everyPush
            : everyPush.filter { push in
                sides.contains { $0.callee == (push.userID ?? firstCallee) && $0.devices.contains(push.deviceID) }
            }
        if call.callee.id == user { call.pushes = pushes }
        var problems = Set(pushes.flatMap { $0.readiness ?? [] })
        for side in sides where !side.rang.isEmpty {
            let rang = Set(side.rang)
            for device in try await store.devices(ofUser: side.callee) where rang.contains(device.deviceID) {
                problems.formUnion(device.readinessProblems ?? [])
            }
        }
        call.calleeReadiness = problems.isEmpty ? nil : problems.sorted { $0.rawValue < $1.rawValue }
        return call
    }

    /// `GET /v1/calls?limit=`.
    func calls(of user: String, limit: Int, before: String?) async throws -> [Call] {
        try await store.calls(ofUser: user, limit: limit, before: before)
    }

    /// The outcomes of the pushes sent for a call. Every push of a call goes to the callee's devices, so they
    /// are the callee's: the caller learns the call's state, not which devices the callee has or whether
    /// their push tokens still work (docs/security.md).
    /// - Throws: ``CallServiceError`` `callNotFound` for a stranger, `pushOutcomesForCalleeOnly` for the caller.
    func pushAttempts(callID: String, user: String) async throws -> [PushAttempt] {
        let call = try await show(id: callID, user: user)
        guard call.callee.id == user, call.caller.id != user else {
            throw CallServiceError.pushOutcomesForCalleeOnly
        }
        return call.pushes ?? []
    }

    // MARK: The app's backend (decision 0009 §2)

    /// `POST /v1/server/calls/{id}/cancel` (`.cancel`) and `/end` (`.end`): the app's backend acting on any call
    /// (``CallActor/backend``'s rules in ``CallMachine``).
    /// - Returns: the whole call after the action.
    /// - Throws: ``CallServiceError`` `callNotFound`, or `rule` for a cancel of a call that is answered or over;
    ///   `StoreError`.
    func actAsBackend(_ input: CallInput, callID: String) async throws -> Call {
        try await apply(input, callID: callID, actor: .backend)
    }

    /// `GET /v1/server/calls/{id}`: the whole call, every leg and every push outcome.
    /// - Throws: ``CallServiceError/callNotFound``; `StoreError`.
    func fullCall(id: String) async throws -> Call {
        guard let machine = try await store.call(id: id) else { throw CallServiceError.callNotFound }
        var call = machine.call
        call.pushes = try await store.pushAttempts(callID: id)
        return call
    }

    /// How many stored calls one `GET /v1/server/calls` looks through at most: a filter that matches rarely answers a
    /// short page with a cursor, rather than reading the whole history in one request.
    static let historyScanLimit = 1000

    /// `GET /v1/server/calls`: a page of history, newest first. The calls are read in pages from the store and
    /// filtered as the user reads each one (``CallMachine/view(for:)``, ``CallMachine/isMissed(by:)``), looking
    /// through at most ``historyScanLimit`` calls.
    /// - Returns: the matching calls (at most `query.limit`) and where the next page starts, when any call is left.
    /// - Throws: ``CallServiceError/invalidRequest(_:)`` for a cursor that names no stored call; `StoreError`.
    func history(_ query: CallHistoryQuery) async throws -> ServerCallList {
        var found: [Call] = []
        var cursor = query.cursor
        var scanned = 0
        let batch = 100
        while scanned < Self.historyScanLimit {
            guard
                let machines = try await store.callHistory(
                    ofUser: query.userID, before: cursor, until: query.until, limit: batch)
            else { throw CallServiceError.invalidRequest("cursor names no call: pass next_cursor as it was given") }
            for machine in machines {
                scanned += 1
                cursor = machine.call.callID
                if let since = query.since, machine.call.createdAt < since {
                    return ServerCallList(calls: found)
                }
                let call = query.userID.map(machine.view(for:)) ?? machine.call
                guard query.states?.contains(call.state) ?? true else { continue }
                if query.missed, let user = query.userID, !machine.isMissed(by: user) { continue }
                found.append(call)
                if found.count == query.limit { return ServerCallList(calls: found, nextCursor: cursor) }
            }
            if machines.count < batch { return ServerCallList(calls: found) }
        }
        return ServerCallList(calls: found, nextCursor: cursor)
    }

    // MARK: Internals

    private func requireDevice(_ deviceID: String, of user: String) async throws {
        guard Identifier.isValid(deviceID) else { throw CallServiceError.invalidDeviceID }
        if try await store.device(id: deviceID, userID: user) != nil { return }
        if hub.isConnected(userID: user, deviceID: deviceID) { return }
        throw CallServiceError.unknownDevice(deviceID)
    }

    /// Runs `body` holding the parties' ``publications`` locks, waiting for them at most ``lockWait``.
    /// - Throws: `StoreError.timedOut` (an unavailable store: 503) when the locks stayed held that long;
    ///   what `body` throws.
    private func withPartyLocks<T: Sendable>(
        _ parties: [String], _ body: @Sendable () async throws -> T
    ) async throws -> T {
        guard let lockWait else { return try await publications.withLocks(parties, body) }
        return try await publications.withLocks(
            parties, waitingUntil: .now + lockWait,
            timedOut: {
                StoreError.timedOut(
                    "waiting for another change of the same user", limit: lockWait,
                    outcomeUnknown: false)
            }, body)
    }

    private func apply(_ input: CallInput, callID: String, actor: CallActor) async throws -> Call {
        try await applyChanging(input, callID: callID, actor: actor).call
    }

    /// ``apply(_:callID:actor:)``, also saying whether the input changed anything (false: a repeat, or an input a
    /// final call or leg ignores).
    private func applyChanging(
        _ input: CallInput, callID: String, actor: CallActor
    ) async throws -> (call: Call, changed: Bool) {
        let now = clock.now()
        // A 1:1 call's parties never change, a group call's only grow by a ring-more, which holds the caller's lock
        // (SQLStore's `parties(ofCall:)` says why that is enough); so they can be read before the locks are taken.
        guard let parties = try await store.call(id: callID)?.parties else {
            throw CallServiceError.callNotFound
        }
        let outcome = try await withPartyLocks(parties) { () async throws -> (CallMachine, [CallEffect])? in
            do {
                guard
                    let (result, stored) = try await store.updateCall(
                        id: callID,
                        { machine in
                            try Self.transition(&machine, input, by: actor, at: now)
                        })
                else { return nil }
                published(result, stored)
                return result
            } catch let error as CallRuleError {
                throw CallServiceError.rule(error)
            }
        }
        guard let (machine, effects) = outcome else { throw CallServiceError.callNotFound }
        if !effects.isEmpty {
            log.info("call updated", ["call.id": .string(callID), "call.state": .string(machine.call.state.rawValue)])
        }
        carryOut(effects, machine: machine, devices: nil)
        guard case .user(let user) = actor else { return (machine.call, !effects.isEmpty) }
        // Any action of a participant on a call still accepted is a sign of life of its app.
        if machine.call.state == .accepted { heard(callID: callID, user: user, at: now) }
        return (machine.view(for: user), !effects.isEmpty)
    }

    /// One change of a stored call, inside the store's transaction (``CallMachine/apply(_:by:at:)``: a ring deadline
    /// that passed wins over `input`).
    /// - Returns: the call, its effects and the devices that may be ringing, and the events to append.
    private static func transition(
        _ machine: inout CallMachine, _ input: CallInput, by actor: CallActor, at now: Date
    )
        throws -> ((CallMachine, [CallEffect]), [PendingEvent])
    {
        let effects = try machine.apply(input, by: actor, at: now)
        return ((machine, effects), events(of: effects, machine: machine))
    }

    /// A change is stored: observed, and its events handed to this server's sockets.
    private func published(_ result: (CallMachine, [CallEffect]), _ stored: [StoredEvent]) {
        observe(.callStored(result.0.call, effects: result.1, created: false))
        for case .publish(let type, let recipient) in result.1 {
            observe(.callEvent(type, result.0.view(for: recipient.userID)))
        }
        hub.deliver(stored)
        cluster.snapshot?.publish(stored)
    }

    /// A party of an accepted call was heard from here: this server's watch, and every other server's.
    /// - Parameter user: who; their leg of a group call is heard from too.
    private func heard(callID: String, user: String, at now: Date) {
        acceptedCalls.heard(callID: callID, user: user, at: now)
        cluster.snapshot?.heard(callID: callID, user: user)
    }

    /// Events another server of the cluster stored: to the sockets here, and into this server's watch over
    /// accepted calls (every server watches every accepted call, so a server that dies takes no watch with it;
    /// two ending one call end it once, the store serialising them).
    func learn(fromCluster events: [StoredEvent]) {
        hub.deliver(events)
        let now = clock.now()
        for event in events {
            let call = event.event.call
            // A callee of a group call reads the call as their leg: only the caller's copy says where the call is.
            if let legs = call.legs {
                guard event.userID == call.caller.id else { continue }
                if call.state == .accepted {
                    acceptedCalls.watch(call, lastHeard: now)
                    for leg in legs where leg.state != .accepted {
                        acceptedCalls.stopWatchingLeg(callID: call.callID, userID: leg.user.id)
                    }
                } else if call.state != .ringing {
                    acceptedCalls.stopWatching(callID: call.callID)
                }
                continue
            }
            if call.state == .accepted {
                acceptedCalls.watch(call, lastHeard: now)
            } else if call.state != .ringing {
                acceptedCalls.stopWatching(callID: call.callID)
            }
        }
    }

    /// Seconds between sweeps for ring deadlines no timer of this server ended (``sweepRingTimeouts(at:)``).
    static let ringSweepInterval: TimeInterval = 1
    /// How long past its deadline a call must be before a sweep claims it: the timer of the server that placed
    /// the call fires first whenever that server lives.
    static let ringSweepGrace: TimeInterval = 1

    /// Starts the sweep that ends every call still ringing past its deadline, whichever server placed it: the
    /// backstop for a server that died mid-ring (its timers died with it) and for a timer whose change failed.
    /// Each due call is claimed by exactly one live server (``RingerStore/claimDueRingingCall(at:excluding:_:)``),
    /// so it ends within ``ringSweepGrace`` + ``ringSweepInterval`` (2 s) of its deadline while any server runs.
    /// Each round also writes this server's heartbeat and sends again the pushes of calls whose server died
    /// (``recoverOrphanedPushes(at:)``). The first heartbeat is written before it returns, so no call this server
    /// places can look orphaned.
    /// - Throws: ``StoreError`` when the first heartbeat cannot be written.
    func startRingSweep() async throws {
        try await store.heartbeat(node: node, at: clock.now())
        ringSweep.withLock { sweep in
            guard sweep == nil else { return }
            sweep = Task { [weak self] in
                while !Task.isCancelled, let clock = self?.clock {
                    do { try await clock.sleep(until: clock.now().addingTimeInterval(Self.ringSweepInterval)) } catch {
                        return
                    }
                    guard let self else { return }
                    let now = clock.now()
                    do {
                        try await store.heartbeat(node: node, at: now)
                    } catch {
                        log.error("heartbeat failed", ["error": .string("\(error)")])
                    }
                    await sweepRingTimeouts(at: now)
                    await recoverOrphanedPushes(at: now)
                    await pruneIfDue(at: now)
                }
            }
        }
    }

    /// Seconds between two retention sweeps.
    static let pruneInterval: TimeInterval = 600
    /// Calls (and events) deleted per statement: small enough that a sweep never holds the database for long.
    static let pruneBatch = 500
    /// Batches per sweep at most; what is left waits for the next (a first sweep over years of history).
    static let pruneBatchesPerSweep = 20

    /// Deletes ended calls, their push outcomes and events older than the retention, once per ``pruneInterval``
    /// (docs/operations.md, "Retention"). Any server of a cluster may do it; two at once delete disjoint rows or
    /// nothing.
    /// - Returns: how many calls and events were deleted (tests).
    @discardableResult
    func pruneIfDue(at now: Date) async -> (calls: Int, events: Int) {
        guard let retention else { return (0, 0) }
        let due = lastPruned.withLock { last -> Bool in
            guard last.map({ now.timeIntervalSince($0) >= Self.pruneInterval }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return (0, 0) }
        var total = (calls: 0, events: 0)
        do {
            for _ in 0..<Self.pruneBatchesPerSweep {
                let pruned = try await store.prune(before: now.addingTimeInterval(-retention), batch: Self.pruneBatch)
                total = (total.calls + pruned.calls, total.events + pruned.events)
                if pruned.calls < Self.pruneBatch && pruned.events < Self.pruneBatch { break }
            }
        } catch {
            log.error("retention sweep failed", ["error": .string("\(error)")])
        }
        if total.calls > 0 || total.events > 0 {
            log.info(
                "retention sweep",
                ["calls.deleted": .string("\(total.calls)"), "events.deleted": .string("\(total.events)")])
        }
        return total
    }

    /// A server whose heartbeat is this many seconds old is taken for dead: ten missed rounds.
    static let nodeDeadAfter: TimeInterval = 10

    /// Sends again, once per call, the ringing pushes that a dead server placed and never had an outcome for, to the
    /// devices that did not acknowledge `ringing` either: at least once, never needlessly. The phone de-duplicates
    /// a second delivery by call id (RingerKit). Within ``nodeDeadAfter`` + ``ringSweepInterval`` of the death.
    /// - Returns: how many pushes were sent again (tests).
    @discardableResult
    func recoverOrphanedPushes(at now: Date) async -> Int {
        var resent = 0
        do {
            while let (machine, deviceIDs) = try await store.claimOrphanedRingingCall(
                at: now, deadAfter: Self.nodeDeadAfter, claimedBy: node)
            {
                resent += try await resend(machine.call, to: machine.call.callee.id, deviceIDs)
            }
            // A group call's legs, each rung by the server that placed the call or rang its callee more.
            while let (machine, userID, deviceIDs) = try await store.claimOrphanedRingingLeg(
                at: now, deadAfter: Self.nodeDeadAfter, claimedBy: node)
            {
                resent += try await resend(machine.view(for: userID), to: userID, deviceIDs)
            }
        } catch {
            log.error("push recovery failed", ["error": .string("\(error)")])
        }
        return resent
    }

    /// Sends the ringing push of `call`, as `user` reads it, again to those of their devices named.
    /// - Returns: how many pushes were sent.
    private func resend(_ call: Call, to user: String, _ deviceIDs: [String]) async throws -> Int {
        guard !deviceIDs.isEmpty else { return 0 }
        let wanted = Set(deviceIDs)
        let devices = try await store.devices(ofUser: user).filter { wanted.contains($0.deviceID) }
        log.info(
            "sending the ringing pushes of a call whose server died",
            ["call.id": .string(call.callID), "push.devices": .string("\(devices.count)")])
        for device in devices {
            Self.startPush { [pushes] in await pushes.ring(call, device: device) }
        }
        return devices.count
    }

    /// Ends, one transaction each, the ringing calls whose deadline passed ``ringSweepGrace`` before `now`.
    /// A call whose parties another change holds is left for the next sweep.
    /// - Returns: how many calls this sweep ended (tests).
    @discardableResult
    func sweepRingTimeouts(at now: Date) async -> Int {
        var busy: Set<String> = []
        var ended = 0
        let due = now.addingTimeInterval(-Self.ringSweepGrace)
        while true {
            do {
                guard
                    let claimed = try await store.claimDueRingingCall(
                        at: due, excluding: busy,
                        { machine in
                            try Self.transition(&machine, .ringTimeout, by: .system, at: now)
                        })
                else { return ended }
                switch claimed {
                case .busy(let callID):
                    busy.insert(callID)
                case .updated(let callID, let result, let stored):
                    ended += 1
                    observe(.ringTimeoutFired(callID: callID))
                    published(result, stored)
                    log.info(
                        "call ended by the ring sweep",
                        ["call.id": .string(callID), "call.state": .string(result.0.call.state.rawValue)])
                    carryOut(result.1, machine: result.0, devices: nil)
                }
            } catch {
                log.error("ring sweep failed", ["error": .string("\(error)")])
                return ended
            }
        }
    }

    /// Fed by the ``AcceptedCallMonitor``: ends a silent or overlong accepted call.
    private func endBySystem(_ input: CallInput, callID: String) async {
        do {
            let (call, changed) = try await applyChanging(input, callID: callID, actor: .system)
            // Already over some other way: nothing left to watch.
            if call.state != .accepted { acceptedCalls.stopWatching(callID: callID) }
            // Once, by the input that ended it: a group call's other silent legs come after, and change nothing.
            if changed, call.state == .ended, let reason = call.endReason {
                log.info(
                    "call ended by the server",
                    ["call.id": .string(callID), "call.end_reason": .string(reason.rawValue)])
            }
        } catch CallServiceError.callNotFound {
            acceptedCalls.stopWatching(callID: callID)
        } catch {
            log.error("ending an accepted call failed", ["call.id": .string(callID), "error": .string("\(error)")])
        }
    }

    /// Fired by the scheduler at a stored ring deadline.
    private func ringTimeoutFired(callID: String) async {
        observe(.ringTimeoutFired(callID: callID))
        do {
            _ = try await apply(.ringTimeout, callID: callID, actor: .system)
        } catch {
            log.error("ring timeout failed", ["call.id": .string(callID), "error": .string("\(error)")])
        }
    }

    /// Starts a ringing push in a task of its own, above the request handlers' priority, preferring the executor of
    /// the task that decided it (SE-0417), if any: the web server's service thread for a call placed over the API, so
    /// that no other thread is woken to send it (issue 33).
    private static func startPush(_ send: @escaping @Sendable () async -> Void) {
        let preferred = withUnsafeCurrentTask { $0?.unownedTaskExecutor?.asTaskExecutor() }
        Task(executorPreference: preferred, priority: .high, operation: send)
    }

    private func scheduleTimeout(callID: String, at deadline: Date) {
        timers.schedule(callID: callID, at: deadline) { [weak self] in await self?.ringTimeoutFired(callID: callID) }
    }

    /// Executes the effects that are not publications (those were delivered under the locks).
    /// - Parameters:
    ///   - effects: the machine's effects.
    ///   - machine: the call after them; each push is built from its recipient's view (``CallMachine/view(for:)``),
    ///     and a push that stops the ringing goes first to the devices that may be ringing
    ///     (``CallMachine/devicesThatMayRing(of:)``), where it matters most.
    ///   - devices: the callees' devices when the call was placed or rung more, by user (for the ringing pushes).
    private func carryOut(_ effects: [CallEffect], machine: CallMachine, devices: [String: [Device]]?) {
        let call = machine.call
        for effect in effects {
            switch effect {
            case .publish:
                continue
            case .pushIncomingCall(let deviceID):
                guard let device = devices?[call.callee.id]?.first(where: { $0.deviceID == deviceID }) else { continue }
                // Above the request handlers' priority: in a burst of calls the wake-up push of a call already
                // decided goes out before the next request is served (a ringing phone is what the caller waits for).
                Self.startPush { [pushes] in await pushes.ring(call, device: device) }
            case .pushLegIncoming(let userID, let deviceID):
                guard let device = devices?[userID]?.first(where: { $0.deviceID == deviceID }) else { continue }
                let view = machine.view(for: userID)
                Self.startPush { [pushes] in await pushes.ring(view, device: device) }
            case .pushUpdate(let type, let recipient):
                let view = machine.view(for: recipient.userID)
                let ringing = machine.devicesThatMayRing(of: recipient.userID)
                Task {
                    let targets =
                        (try? await store.devices(ofUser: recipient.userID))?
                        .filter { $0.deviceID != recipient.exceptDeviceID } ?? []
                    await pushes.update(type, call: view, devices: targets, ringing: ringing)
                }
            case .scheduleRingTimeout(let deadline):
                scheduleTimeout(callID: call.callID, at: deadline)
            case .cancelRingTimeout:
                timers.cancel(callID: call.callID)
            case .watchAcceptedCall(let acceptedAt):
                acceptedCalls.watch(call, lastHeard: acceptedAt)
            case .stopWatchingCall:
                acceptedCalls.stopWatching(callID: call.callID)
            case .watchLeg(let userID, let acceptedAt):
                acceptedCalls.watchLeg(
                    callID: call.callID, userID: userID, acceptedAt: acceptedAt, lastHeard: acceptedAt)
            case .stopWatchingLeg(let userID):
                acceptedCalls.stopWatchingLeg(callID: call.callID, userID: userID)
            }
        }
    }

    /// The events of `effects`, each with the call as its recipient reads it.
    private static func events(of effects: [CallEffect], machine: CallMachine) -> [PendingEvent] {
        effects.compactMap { effect in
            guard case .publish(let type, let recipient) = effect else { return nil }
            return PendingEvent(type: type, recipient: recipient, call: machine.view(for: recipient.userID))
        }
    }
}
