import Foundation
import RingerCore
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerStore

/// Group calls in the store (decision 0007 §5), on SQLite and PostgreSQL alike: legs are mirrored into `call_legs`,
/// every callee reads the call in their list as their leg, busy and "have talked" see legs, the ring sweep ends legs,
/// and two accepts of one `first_answer` race on two servers have one winner, which the database itself guards.
@Suite struct GroupStoreTests {
    static func invitee(_ id: String) -> Invitee {
        Invitee(party: Party(id: id), devices: [CalleeDevice(id: "\(id)-phone", platform: .ios, canBeWoken: true)])
    }

    /// Places alice's group call to `callees` through the store, as the server does.
    @discardableResult
    static func placeGroup(
        _ store: SQLStore, caller: String = "alice", callees: [String], policy: AnswerPolicy = .firstAnswer,
        ringTimeout: TimeInterval = 45, at now: Date = Date(unixMilliseconds: Date().unixMilliseconds)
    ) async throws -> (CallMachine, Set<String>) {
        let inserted = try await store.insertGroupCall(
            callerID: caller, calleeIDs: callees, idempotencyKey: nil, at: now, placedBy: "node-a"
        ) { busy in
            let invitees = callees.map { id in
                var invitee = Self.invitee(id)
                invitee.busy = busy.contains(id)
                return invitee
            }
            let (machine, _) = CallMachine.inviteGroup(
                callID: UUID().uuidString.lowercased(), caller: Party(id: caller), invitees: invitees, policy: policy,
                hasVideo: false, now: now, ringTimeout: ringTimeout)
            return (machine, busy, [])
        }
        guard case .created(let busy, _) = inserted, let machine = try await store.call(id: lastCallID(store, caller))
        else { throw StoreTestError.notCreated }
        return (machine, busy)
    }

    static func lastCallID(_ store: SQLStore, _ user: String) async throws -> String {
        try #require(try await store.calls(ofUser: user, limit: 1, before: nil).first?.callID)
    }

    static func legRows(_ store: SQLStore, _ callID: String) async throws -> [String: String] {
        try await store.run { db in
            var rows: [String: String] = [:]
            try db.query("SELECT user_id, state FROM call_legs WHERE call_id = ?", [.text(callID)]) { row in
                rows[row.text(0) ?? ""] = row.text(1) ?? ""
            }
            return rows
        }
    }

    static func act(
        _ store: SQLStore, _ callID: String, _ input: CallInput, by user: String, at now: Date = Date()
    ) async throws {
        _ = try await store.updateCall(id: callID) { call -> (Int, [PendingEvent]) in
            _ = try call.apply(input, by: .user(user), at: now)
            return (0, [])
        }
    }

    @Test(arguments: StoreKind.allCases) func legsAreMirroredAndEachCalleeListsTheCallAsTheirLeg(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        let (machine, _) = try await Self.placeGroup(store, callees: ["bob", "carol"])
        let id = machine.call.callID
        #expect(try await Self.legRows(store, id) == ["bob": "ringing", "carol": "ringing"])
        try await Self.act(store, id, .accept(deviceID: "bob-phone"), by: "bob")
        #expect(try await Self.legRows(store, id) == ["bob": "accepted", "carol": "cancelled"])
        let bob = try #require(try await store.calls(ofUser: "bob", limit: 10, before: nil).first)
        #expect(
            bob.callID == id && bob.callee.id == "bob" && bob.state == .accepted && bob.acceptedDeviceID == "bob-phone")
        let carol = try #require(try await store.calls(ofUser: "carol", limit: 10, before: nil).first)
        #expect(carol.callee.id == "carol" && carol.state == .accepted && carol.acceptedDeviceID == nil)
        let alice = try #require(try await store.calls(ofUser: "alice", limit: 10, before: nil).first)
        #expect(alice.legs?.count == 2 && alice.callee.id == "bob")
        #expect(try await store.calls(ofUser: "dave", limit: 10, before: nil).isEmpty)
    }

    @Test(arguments: StoreKind.allCases) func aCalleesPagesMergeTheirGroupAnd1to1CallsInOrder(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        let start = Date(unixMilliseconds: 1_800_000_000_000)
        var expected: [String] = []
        for index in 0..<6 {
            let at = start.addingTimeInterval(Double(index))
            if index.isMultiple(of: 2) {
                let (machine, _) = try await Self.placeGroup(
                    store, caller: "x\(index)", callees: ["bob", "carol"], at: at)
                expected.append(machine.call.callID)
            } else {
                let machine = CallMachine.invite(
                    callID: UUID().uuidString.lowercased(), caller: Party(id: "y\(index)"), callee: Party(id: "bob"),
                    hasVideo: false, calleeDevices: [], calleeOnline: true, calleeBusy: false, now: at, ringTimeout: 45
                ).0
                _ = try await store.insertCall(machine, events: [], idempotencyKey: nil)
                expected.append(machine.call.callID)
            }
        }
        var seen: [String] = []
        var before: String?
        repeat {
            let page = try await store.calls(ofUser: "bob", limit: 4, before: before)
            seen += page.map(\.callID)
            before = page.count == 4 ? page.last?.callID : nil
        } while before != nil
        #expect(seen == expected.reversed())
    }

    @Test(arguments: StoreKind.allCases) func busyIsReadForEveryCalleeAndAnAcceptedLegMakesItsUserBusy(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        let talking = StoreConformanceTests.ringingCall(caller: "erin", callee: "carol")
        _ = try await store.insertCall(talking, events: [], idempotencyKey: nil)
        try await Self.act(store, talking.call.callID, .accept(deviceID: "p"), by: "carol")
        let (machine, busy) = try await Self.placeGroup(store, callees: ["bob", "carol"])
        #expect(busy == ["carol"] && machine.call.leg(of: "carol")?.state == .busy)
        #expect(try await !store.busy(calleeID: "bob"))
        try await Self.act(store, machine.call.callID, .accept(deviceID: "bob-phone"), by: "bob")
        // Bob's accepted leg makes him busy, and alice, the caller of an accepted call.
        #expect(try await store.busy(calleeID: "bob"))
        #expect(try await store.busy(calleeID: "alice"))
        #expect(try await store.haveTalked("alice", "bob"))
        #expect(try await store.haveTalked("bob", "alice"))
        #expect(try await !store.haveTalked("alice", "carol"))
        try await Self.act(store, machine.call.callID, .end, by: "bob")
        #expect(try await !store.busy(calleeID: "bob"))
        #expect(try await store.haveTalked("bob", "alice"))
    }

    @Test(arguments: StoreKind.allCases) func ringMoreAddsLegsReadsTheirBusyAndTurnsA1to1CallIntoAGroup(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        let single = StoreConformanceTests.ringingCall(caller: "alice", callee: "bob")
        _ = try await store.insertCall(single, events: [], idempotencyKey: nil)
        let talking = StoreConformanceTests.ringingCall(caller: "erin", callee: "dave")
        _ = try await store.insertCall(talking, events: [], idempotencyKey: nil)
        try await Self.act(store, talking.call.callID, .accept(deviceID: "p"), by: "dave")
        let result = try await store.ringMore(
            callID: single.call.callID, calleeIDs: ["carol", "dave"], rungBy: "node-b"
        ) {
            call, busy -> (Set<String>, [PendingEvent]) in
            let invitees = ["carol", "dave"].map { id in
                var invitee = Self.invitee(id)
                invitee.busy = busy.contains(id)
                return invitee
            }
            _ = try call.apply(
                .ringMore(RingMore(invitees: invitees, ringTimeout: 45, maximumLegs: 16)), by: .user("alice"),
                at: Date())
            return (busy, [])
        }
        #expect(result?.0 == ["dave"])
        #expect(
            try await Self.legRows(store, single.call.callID) == ["bob": "ringing", "carol": "ringing", "dave": "busy"])
        let rungBy = try await store.run { db in
            var node: String?
            try db.query("SELECT rung_by FROM call_legs WHERE user_id = 'carol'", []) { node = $0.text(0) }
            return node
        }
        #expect(rungBy == "node-b")
        // Bob still finds the call, now through his leg; carol finds it too.
        #expect(try await store.calls(ofUser: "bob", limit: 5, before: nil).first?.callID == single.call.callID)
        #expect(try await store.calls(ofUser: "carol", limit: 5, before: nil).first?.callee.id == "carol")
        let missing = try await store.ringMore(callID: "no-such-call", calleeIDs: ["x"], rungBy: nil) { _, _ in (0, [])
        }
        #expect(missing == nil)
    }

    @Test(arguments: StoreKind.allCases) func theSweepEndsEachLegAtItsOwnDeadline(_ kind: StoreKind) async throws {
        let store = try await kind.open()
        let now = Date(unixMilliseconds: Date().unixMilliseconds)
        let (machine, _) = try await Self.placeGroup(store, callees: ["bob"], ringTimeout: 1, at: now)
        let id = machine.call.callID
        _ = try await store.ringMore(callID: id, calleeIDs: ["carol"], rungBy: nil) {
            call, _ -> (Int, [PendingEvent]) in
            _ = try call.apply(
                .ringMore(RingMore(invitees: [Self.invitee("carol")], ringTimeout: 600, maximumLegs: 16)),
                by: .user("alice"), at: now)
            return (0, [])
        }
        #expect(try await store.ringingCalls().first { $0.callID == id }?.expiresAt == now.addingTimeInterval(1))
        let sweepAt = now.addingTimeInterval(5)
        let claimed = try await store.claimDueRingingCall(at: sweepAt, excluding: []) { call -> (Int, [PendingEvent]) in
            _ = try call.handle(.ringTimeout, by: .system, at: sweepAt)
            return (0, [])
        }
        guard case .updated(let callID, _, _) = claimed else {
            Issue.record("the due leg was not claimed: \(String(describing: claimed))")
            return
        }
        #expect(callID == id)
        #expect(try await Self.legRows(store, id) == ["bob": "unanswered", "carol": "ringing"])
        // Nothing else is due; carol's leg is what the timer waits for now.
        let nothing = try await store.claimDueRingingCall(at: sweepAt, excluding: []) { _ in (0, []) }
        #expect(nothing == nil)
        #expect(try await store.ringingCalls().first { $0.callID == id }?.expiresAt == now.addingTimeInterval(600))
    }

    @Test(arguments: StoreKind.allCases) func acceptsOfOneRaceOnTwoServersHaveOneWinner(_ kind: StoreKind) async throws
    {
        let (first, second) = try await kind.openTwo()
        let callees = (0..<8).map { "callee-\($0)" }
        let (machine, _) = try await Self.placeGroup(first, callees: callees)
        let winners = await withTaskGroup(of: String?.self) { group in
            for (index, callee) in callees.enumerated() {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    let answered = try? await store.updateCall(id: machine.call.callID) {
                        call -> (String, [PendingEvent]) in
                        _ = try call.apply(.accept(deviceID: "\(callee)-phone"), by: .user(callee), at: Date())
                        return (callee, [])
                    }
                    return answered?.0
                }
            }
            return await group.reduce(into: [String]()) { if let winner = $1 { $0.append(winner) } }
        }
        #expect(winners.count == 1)
        let rows = try await Self.legRows(second, machine.call.callID)
        #expect(rows.filter { $0.value == "accepted" }.keys.sorted() == winners)
        #expect(rows.filter { $0.value == "cancelled" }.count == 7)
    }

    @Test(arguments: StoreKind.allCases) func theDatabaseRefusesASecondWinnerWrittenBehindTheMachinesBack(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        let (machine, _) = try await Self.placeGroup(store, callees: ["bob", "carol"])
        try await Self.act(store, machine.call.callID, .accept(deviceID: "bob-phone"), by: "bob")
        await #expect(throws: StoreError.self) {
            try await store.run { db in
                try db.query(
                    "UPDATE call_legs SET state = 'accepted', accepted_at = 1 WHERE call_id = ? AND user_id = 'carol'",
                    [.text(machine.call.callID)])
            }
        }
        #expect(try await Self.legRows(store, machine.call.callID)["carol"] == "cancelled")
    }

    @Test(arguments: StoreKind.allCases) func pruningAGroupCallDeletesItsLegs(_ kind: StoreKind) async throws {
        let store = try await kind.open()
        let (machine, _) = try await Self.placeGroup(store, callees: ["bob", "carol"])
        try await Self.act(store, machine.call.callID, .cancel, by: "alice")
        let pruned = try await store.prune(before: Date().addingTimeInterval(60), batch: 10)
        #expect(pruned.calls == 1)
        #expect(try await Self.legRows(store, machine.call.callID).isEmpty)
        #expect(try await store.calls(ofUser: "bob", limit: 5, before: nil).isEmpty)
    }

    /// A dead server's group call: each ringing leg is claimed once, by one live server, with the devices of its callee
    /// that neither had a push outcome nor said they ring; a leg rung more by a live server is left to it.
    @Test(arguments: StoreKind.allCases) func theRingingLegsOfADeadServerAreEachClaimedOnceByOneServer(
        _ kind: StoreKind
    ) async throws {
        let (first, second) = try await kind.openTwo()
        let now = Date(unixMilliseconds: Date().unixMilliseconds)
        let (placed, _) = try await Self.placeGroup(first, callees: ["bob", "carol", "dave"], at: now)
        let id = placed.call.callID
        // Bob's phone said it rings; carol's push had an outcome; dave's never did. Erin was rung more by a live node.
        try await Self.act(first, id, .ringing(deviceID: "bob-phone"), by: "bob", at: now)
        try await first.recordPushAttempt(
            PushAttempt(
                callID: id, deviceID: "carol-phone", provider: .apns, pushType: .voip, status: 200, reason: nil,
                apnsID: nil, latencyMs: 5, attempts: 1, sentAt: now))
        _ = try await first.ringMore(callID: id, calleeIDs: ["erin"], rungBy: "alive/1") {
            call, _ -> (Int, [PendingEvent]) in
            _ = try call.apply(
                .ringMore(RingMore(invitees: [Self.invitee("erin")], ringTimeout: 45, maximumLegs: 16)),
                by: .user("alice"), at: now)
            return (0, [])
        }
        try await first.heartbeat(node: "node-a", at: now.addingTimeInterval(-30))
        try await second.heartbeat(node: "alive/1", at: now)
        let nothing = try await first.claimOrphanedRingingLeg(at: now, deadAfter: 60, claimedBy: "alive/1")
        #expect(nothing == nil)
        let claims = try await withThrowingTaskGroup(of: [String].self) { group in
            for store in [first, second, first, second] {
                group.addTask {
                    var mine: [String] = []
                    while let claim = try await store.claimOrphanedRingingLeg(
                        at: now, deadAfter: 10, claimedBy: "alive/1")
                    {
                        #expect(claim.0.call.callID == id)
                        mine.append(([claim.userID] + claim.deviceIDs).joined(separator: ":"))
                    }
                    return mine
                }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(claims.sorted() == ["bob", "carol", "dave:dave-phone"])
    }

    /// A database the release before group calls left (schema 9) takes migration 10 and every later one, and keeps its
    /// calls as they were: the stored JSON, the lists and the busy check read the same.
    @Test func aVersion9DatabaseMigratesWithItsCallsUnchanged() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-schema9-\(UUID().uuidString).sqlite"
        ).path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let machine = StoreConformanceTests.ringingCall(caller: "alice", callee: "bob")
        let json = String(decoding: try RingerJSON.encode(machine), as: UTF8.self)
        do {
            let db = try SQLiteConnection(path: path)
            for (index, migration) in SchemaMigrations.migrations.prefix(9).enumerated() {
                try db.transaction {
                    try db.execute(migration.sqlite)
                    try db.execute("PRAGMA user_version = \(index + 1)")
                }
            }
            try db.query(
                """
                INSERT INTO calls (call_id, caller_id, callee_id, state, created_at, expires_at, machine)
                VALUES (?, 'alice', 'bob', 'accepted', ?, ?, ?)
                """,
                [
                    .text(machine.call.callID), .real(machine.call.createdAt.timeIntervalSince1970),
                    .real(machine.call.expiresAt.timeIntervalSince1970), .text(json),
                ])
        }
        let store = try SQLiteStore(path: path)
        #expect(try await store.schemaVersion() == SchemaMigrations.migrations.count)
        #expect(try await store.call(id: machine.call.callID) == machine)
        #expect(try await store.calls(ofUser: "bob", limit: 5, before: nil) == [machine.call])
        #expect(try await store.busy(calleeID: "bob"))
        let stored = try await store.run { db in
            var text: String?
            try db.query("SELECT machine FROM calls WHERE call_id = ?", [.text(machine.call.callID)]) {
                text = $0.text(0)
            }
            return text
        }
        #expect(stored == json)
    }
}
