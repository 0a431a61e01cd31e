import Foundation
import RingerCore
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerStore

/// The two stores under one suite: every guarantee of ``RingerStore`` holds on SQLite and on PostgreSQL alike.
/// PostgreSQL is a real server the tests start (``PostgresServer``), one fresh database per test; a test that
/// cannot start it fails saying why, it never passes.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// A fresh, empty store.
    func open() async throws -> SQLStore {
        try await openTwo().0
    }

    /// Two stores on one fresh database, as two servers of a cluster see it (SQLite: one file, two connections).
    func openTwo() async throws -> (SQLStore, SQLStore) {
        switch self {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ringer-conformance-\(UUID().uuidString).sqlite"
            ).path
            return (try SQLiteStore(path: path), try SQLiteStore(path: path))
        case .postgres:
            let target = try await Self.freshPostgres()
            return (try PostgresStore(target: target), try PostgresStore(target: target))
        }
    }

    /// A fresh database on the test process's PostgreSQL.
    static func freshPostgres() async throws -> PostgresTarget {
        let url = try await PostgresServer.shared().makeDatabase()
        return try #require(PostgresTarget(url: url))
    }
}

@Suite struct StoreConformanceTests {
    /// A ringing call at a whole millisecond, the precision the store keeps.
    static func ringingCall(
        caller: String = "alice", callee: String = "bob", ringTimeout: TimeInterval = 45
    ) -> CallMachine {
        CallMachine.invite(
            callID: UUID().uuidString.lowercased(), caller: Party(id: caller), callee: Party(id: callee),
            hasVideo: false, calleeDevices: [CalleeDevice(id: "p", platform: .ios, canBeWoken: true)],
            calleeBusy: false, now: Date(unixMilliseconds: Date().unixMilliseconds), ringTimeout: ringTimeout
        ).0
    }

    @Test(arguments: StoreKind.allCases) func replayAfterAnOutageReturnsTheNewestEventsInOrder(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        let machine = Self.ringingCall()
        let events = (0..<600).map { _ in
            PendingEvent(type: .callRinging, recipient: .user("alice"), call: machine.call)
        }
        let stored = try await store.insertCall(machine, events: events, idempotencyKey: nil)
        #expect(stored.map(\.event.seq) == Array(1...600))
        let replay = try await store.events(forUser: "alice", after: 0, limit: 500)
        #expect(replay.map(\.event.seq) == Array(101...600))
        #expect(try await store.latestSeq(forUser: "alice") == 600)
        #expect(try await store.latestSeq(forUser: "nobody") == 0)
    }

    @Test(arguments: StoreKind.allCases) func textWithAnEmbeddedNULIsStoredWholeOrRefusedNeverCut(
        _ kind: StoreKind
    ) async throws {
        // What was acknowledged is what is stored: a store given a C string would keep "tok" only. SQLite keeps the
        // NUL; PostgreSQL text cannot hold one, so it refuses the write and keeps what it had.
        let store = try await kind.open()
        try await store.upsertUser(id: "alice", name: "Alice", at: Date())
        let nameWithNUL = "tok\u{0}A"
        switch kind {
        case .sqlite:
            try await store.upsertUser(id: "alice", name: nameWithNUL, at: Date())
            #expect(try await store.user(id: "alice")?.name == nameWithNUL)
            let device = try await store.registerDevice(
                Device(
                    deviceID: "p", userID: "alice", platform: .android,
                    fcmToken: "tok\u{0}B", updatedAt: Date()))
            #expect(device.fcmToken == "tok\u{0}B")
            #expect(try await store.device(id: "p", userID: "alice")?.fcmToken == "tok\u{0}B")
        case .postgres:
            let refusal = await #expect(throws: StoreError.self) {
                try await store.upsertUser(id: "alice", name: nameWithNUL, at: Date())
            }
            #expect(refusal?.description.contains("NUL") == true)
            #expect(try await store.user(id: "alice")?.name == "Alice")
            await #expect(throws: StoreError.self) {
                _ = try await store.registerDevice(
                    Device(
                        deviceID: "p", userID: "alice", platform: .android,
                        fcmToken: "tok\u{0}B", updatedAt: Date()))
            }
            #expect(try await store.device(id: "p", userID: "alice") == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func insertingACallReadsBusyInsideItsTransaction(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        let first = Self.ringingCall()
        _ = try await store.insertCall(first, events: [], idempotencyKey: nil)
        #expect(try await store.busy(calleeID: "bob") == false)
        _ = try await store.updateCall(id: first.call.callID) { machine -> (Int, [PendingEvent]) in
            _ = try machine.handle(.accept(deviceID: "p"), by: .user("bob"), at: Date())
            return (0, [])
        }
        #expect(try await store.busy(calleeID: "bob"))
        // The caller of the accepted call is busy too; an unrelated user is not.
        #expect(try await store.busy(calleeID: "alice"))
        #expect(try await store.busy(calleeID: "carol") == false)
    }

    @Test(arguments: StoreKind.allCases) func aFailedUpdateChangesNothing(_ kind: StoreKind) async throws {
        struct Refused: Error {}
        let store = try await kind.open()
        let machine = Self.ringingCall()
        _ = try await store.insertCall(machine, events: [], idempotencyKey: nil)
        await #expect(throws: Refused.self) {
            _ = try await store.updateCall(id: machine.call.callID) { machine -> (Int, [PendingEvent]) in
                _ = try machine.handle(.cancel, by: .user("alice"), at: Date())
                throw Refused()
            }
        }
        #expect(try await store.call(id: machine.call.callID) == machine)
        #expect(try await store.latestSeq(forUser: "bob") == 0)
    }

    @Test(arguments: StoreKind.allCases) func schemaIsMigratedOnceAndReopensWithItsData(_ kind: StoreKind) async throws
    {
        let machine = Self.ringingCall()
        let (first, second) = try await kind.openTwo()
        _ = try await first.insertCall(machine, events: [], idempotencyKey: nil)
        // The second store opened the same database after the first migrated it: it found nothing to do.
        #expect(try await second.call(id: machine.call.callID) == machine)
        #expect(try await second.ringingCalls().map(\.callID) == [machine.call.callID])
        #expect(try await first.schemaVersion() == SchemaMigrations.migrations.count)
    }

    @Test(arguments: StoreKind.allCases) func aDatabaseFromANewerRingerIsRefusedAndNotMigratedDown(
        _ kind: StoreKind
    ) async throws {
        let machine = Self.ringingCall()
        let newer = SchemaMigrations.migrations.count + 1
        let reopen: () async throws -> SQLStore
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-newer-\(UUID().uuidString).sqlite"
        ).path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        switch kind {
        case .sqlite:
            _ = try await SQLiteStore(path: path).insertCall(machine, events: [], idempotencyKey: nil)
            try SQLiteConnection(path: path).execute("PRAGMA user_version = \(newer)")
            reopen = { try SQLiteStore(path: path) }
            let error = #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
            #expect(error?.isNewerSchema == true)
            #expect(error?.description.contains("schema version \(newer)") == true)
            try SQLiteConnection(path: path).execute("PRAGMA user_version = \(newer - 1)")
        case .postgres:
            let target = try await StoreKind.freshPostgres()
            _ = try await PostgresStore(target: target).insertCall(machine, events: [], idempotencyKey: nil)
            try PostgresConnection(target).execute("UPDATE ringer_schema SET version = \(newer)")
            let error = #expect(throws: StoreError.self) { try PostgresStore(target: target) }
            #expect(error?.isNewerSchema == true)
            try PostgresConnection(target).execute("UPDATE ringer_schema SET version = \(newer - 1)")
            reopen = { try PostgresStore(target: target) }
        }
        // Refused without touching anything: back at its own version, every row is still there.
        #expect(try await reopen().call(id: machine.call.callID) == machine)
    }

    @Test(arguments: StoreKind.allCases) func aTokenTakenByAnotherRegistrationLeavesItsDeviceMarkedNotDeleted(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        let first = Date(unixMilliseconds: 1_800_000_000_000)
        let token = String(repeating: "cd", count: 32)
        _ = try await store.registerDevice(
            Device(
                deviceID: "bob-iphone", userID: "bob", platform: .ios, voipToken: token,
                apnsEnvironment: .production, bundleID: "com.example.app", updatedAt: first))
        // Carol logs in on the same phone: its VoIP token is now hers.
        let carol = try await store.registerDevice(
            Device(
                deviceID: "carol-iphone", userID: "carol", platform: .ios,
                voipToken: token, apnsEnvironment: .production,
                bundleID: "com.example.app", updatedAt: first + 60))
        #expect(carol.voipToken == token)
        let bob = try #require(try await store.device(id: "bob-iphone", userID: "bob"))
        #expect(bob.voipToken == nil)
        #expect(
            bob.pushProblem == PushProblem(reason: "TokenMovedToAnotherDevice", token: "voip_token", at: first + 60))
        // Bob's app registers again with a token of its own: the mark clears.
        let again = try await store.registerDevice(
            Device(
                deviceID: "bob-iphone", userID: "bob", platform: .ios,
                voipToken: String(repeating: "ef", count: 32),
                apnsEnvironment: .production, bundleID: "com.example.app",
                updatedAt: first + 120))
        #expect(again.pushProblem == nil)
        #expect(try await store.device(id: "bob-iphone", userID: "bob")?.pushProblem == nil)
    }

    @Test(arguments: StoreKind.allCases) func aDeadFCMTokenNeverRemovesOrMarksAnEqualTokenOfAnotherKind(
        _ kind: StoreKind
    ) async throws {
        // Hex passes the FCM charset: another user may register Bob's VoIP token string as an FCM token.
        let store = try await kind.open()
        let registered = Date(unixMilliseconds: 1_800_000_000_000)
        let shared = String(repeating: "ab", count: 32)
        _ = try await store.registerDevice(
            Device(
                deviceID: "bob-iphone", userID: "bob", platform: .ios, voipToken: shared,
                apnsEnvironment: .production, bundleID: "com.example.app",
                updatedAt: registered))
        _ = try await store.registerDevice(
            Device(
                deviceID: "carol-pixel", userID: "carol", platform: .android,
                fcmToken: shared, updatedAt: registered))
        #expect(try await store.flagPushToken(shared, kind: .fcm, problem: "SENDER_ID_MISMATCH", at: registered + 1))
        #expect(try await store.removeDeadPushToken(shared, kind: .fcm, invalidSince: registered + 2))
        let bob = try #require(try await store.device(id: "bob-iphone", userID: "bob"))
        #expect(bob.voipToken == shared)
        #expect(bob.pushProblem == nil)
        #expect(try await store.device(id: "carol-pixel", userID: "carol") == nil)
        // And the other way round: an APNs 410 about the VoIP token leaves an equal FCM token alone.
        _ = try await store.registerDevice(
            Device(
                deviceID: "carol-pixel", userID: "carol", platform: .android,
                fcmToken: shared, updatedAt: registered))
        #expect(try await store.removeDeadPushToken(shared, kind: .voip, invalidSince: registered + 3))
        #expect(try await store.device(id: "carol-pixel", userID: "carol")?.fcmToken == shared)
        #expect(try await store.device(id: "bob-iphone", userID: "bob") == nil)
    }

    @Test(arguments: StoreKind.allCases) func badTokenMarksTheDeviceKeepsTheTokenAndTheNextRegistrationClearsTheMark(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        let registered = Date(unixMilliseconds: 1_800_000_000_000)
        let voip = String(repeating: "ab", count: 32)
        let device = Device(
            deviceID: "bob-iphone", userID: "bob", platform: .ios, voipToken: voip,
            apnsEnvironment: .production, bundleID: "com.example.app", updatedAt: registered)
        _ = try await store.registerDevice(device)

        // A refusal about a registration older than the current one is not recorded on it.
        #expect(
            try await store.flagPushToken(
                voip, kind: .voip, problem: "BadDeviceToken", at: registered.addingTimeInterval(-1)) == false)
        #expect(
            try await store.flagPushToken(
                voip, kind: .voip, problem: "BadDeviceToken", at: registered.addingTimeInterval(5)))
        let flagged = try #require(try await store.device(id: "bob-iphone", userID: "bob"))
        #expect(flagged.voipToken == voip)
        #expect(
            flagged.pushProblem
                == PushProblem(
                    reason: "BadDeviceToken", token: "voip_token",
                    at: registered.addingTimeInterval(5)))

        var again = device
        again.apnsEnvironment = .sandbox
        again.updatedAt = registered.addingTimeInterval(60)
        #expect(try await store.registerDevice(again).pushProblem == nil)
        #expect(try await store.devices(ofUser: "bob").first?.pushProblem == nil)
    }

    // MARK: Races two servers run into, settled by the database

    @Test(arguments: StoreKind.allCases) func oneIdempotencyKeyTriedOnTwoServersAtOnceMakesOneCall(
        _ kind: StoreKind
    ) async throws {
        let (first, second) = try await kind.openTwo()
        let outcomes = try await withThrowingTaskGroup(of: String?.self) { group in
            for attempt in 0..<12 {
                let store = attempt.isMultiple(of: 2) ? first : second
                group.addTask {
                    let machine = Self.ringingCall()
                    let inserted = try await store.insertCall(
                        callerID: "alice", calleeID: "bob", idempotencyKey: "retry-1",
                        at: machine.call.createdAt, placedBy: nil
                    ) { _ in (machine, (), []) }
                    if case .created = inserted { return machine.call.callID }
                    if case .existing(let earlier) = inserted { return "existing:" + earlier.call.callID }
                    return nil
                }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }.compactMap { $0 }
        }
        let created = outcomes.filter { !$0.hasPrefix("existing:") }
        #expect(created.count == 1)
        #expect(Set(outcomes.filter { $0.hasPrefix("existing:") }) == Set(created.map { "existing:" + $0 }))
        #expect(try await first.calls(ofUser: "alice", limit: 100, before: nil).count == 1)
    }

    @Test(arguments: StoreKind.allCases) func simultaneousAcceptsOnTwoServersHaveOneWinner(
        _ kind: StoreKind
    ) async throws {
        let (first, second) = try await kind.openTwo()
        let machine = CallMachine.invite(
            callID: UUID().uuidString.lowercased(), caller: Party(id: "alice"), callee: Party(id: "bob"),
            hasVideo: false,
            calleeDevices: (0..<8).map { CalleeDevice(id: "phone-\($0)", platform: .ios, canBeWoken: true) },
            calleeBusy: false, now: Date(unixMilliseconds: Date().unixMilliseconds), ringTimeout: 45
        ).0
        _ = try await first.insertCall(machine, events: [], idempotencyKey: nil)
        let winners = await withTaskGroup(of: String?.self) { group in
            for device in 0..<8 {
                let store = device.isMultiple(of: 2) ? first : second
                group.addTask {
                    let answered = try? await store.updateCall(id: machine.call.callID) {
                        call -> (String, [PendingEvent]) in
                        _ = try call.handle(.accept(deviceID: "phone-\(device)"), by: .user("bob"), at: Date())
                        return ("phone-\(device)", [])
                    }
                    return answered?.0
                }
            }
            return await group.reduce(into: [String]()) { if let winner = $1 { $0.append(winner) } }
        }
        #expect(winners.count == 1)
        let stored = try #require(try await second.call(id: machine.call.callID))
        #expect(stored.call.state == .accepted)
        #expect(stored.call.acceptedDeviceID == winners.first)
    }

    @Test(arguments: StoreKind.allCases) func aTokenRegisteredOnTwoServersAtOnceEndsOnExactlyOneDevice(
        _ kind: StoreKind
    ) async throws {
        let (first, second) = try await kind.openTwo()
        let token = String(repeating: "7a", count: 32)
        let registered = Date(unixMilliseconds: 1_800_000_000_000)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for user in 0..<10 {
                let store = user.isMultiple(of: 2) ? first : second
                group.addTask {
                    _ = try await store.registerDevice(
                        Device(
                            deviceID: "phone", userID: "user-\(user)", platform: .ios,
                            voipToken: token, apnsEnvironment: .production,
                            bundleID: "com.example.app", updatedAt: registered))
                }
            }
            try await group.waitForAll()
        }
        var holders: [String] = []
        var moved = 0
        for user in 0..<10 {
            let device = try #require(try await first.device(id: "phone", userID: "user-\(user)"))
            if device.voipToken == token { holders.append(device.userID) }
            if device.pushProblem?.reason == SQLStore.tokenMovedReason { moved += 1 }
        }
        #expect(holders.count == 1)
        #expect(moved == 9)
    }

    @Test(arguments: StoreKind.allCases) func eachDueRingingCallIsClaimedByExactlyOneServer(
        _ kind: StoreKind
    ) async throws {
        let (first, second) = try await kind.openTwo()
        // Ten calls between ten pairs, whose 1 s ring ended before the sweep; one more still ringing.
        var due: Set<String> = []
        for pair in 0..<10 {
            let machine = Self.ringingCall(caller: "caller-\(pair)", callee: "callee-\(pair)", ringTimeout: 1)
            _ = try await first.insertCall(machine, events: [], idempotencyKey: nil)
            due.insert(machine.call.callID)
        }
        let later = Self.ringingCall(caller: "caller-x", callee: "callee-x", ringTimeout: 600)
        _ = try await first.insertCall(later, events: [], idempotencyKey: nil)
        let sweepAt = Date().addingTimeInterval(5)
        let claims = try await withThrowingTaskGroup(of: [String].self) { group in
            for store in [first, second, first, second] {
                group.addTask {
                    var mine: [String] = []
                    var busy: Set<String> = []
                    while let claimed = try await store.claimDueRingingCall(
                        at: sweepAt, excluding: busy,
                        { call -> (Int, [PendingEvent]) in
                            _ = try call.handle(.ringTimeout, by: .system, at: sweepAt)
                            return (
                                0,
                                [PendingEvent(type: .callEnded, recipient: .user(call.call.caller.id), call: call.call)]
                            )
                        })
                    {
                        switch claimed {
                        case .updated(let callID, _, _): mine.append(callID)
                        case .busy(let callID): busy.insert(callID)
                        }
                    }
                    return mine
                }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(claims.count == 10)
        #expect(Set(claims) == due)
        for callID in due {
            #expect(try await second.call(id: callID)?.call.state == .unanswered)
        }
        #expect(try await second.call(id: later.call.callID)?.call.state == .ringing)
        // Every ended call told its caller once.
        #expect(try await first.latestSeq(forUser: "caller-3") == 1)
    }

    @Test(arguments: StoreKind.allCases) func aRingingCallOfADeadServerHasItsUnansweredPushesClaimedOnceByOneServer(
        _ kind: StoreKind
    ) async throws {
        let (first, second) = try await kind.openTwo()
        let now = Date()
        let devices = ["answered", "acknowledged", "silent", "not-wakeable"].map {
            CalleeDevice(id: $0, platform: .ios, canBeWoken: $0 != "not-wakeable")
        }
        var machine = CallMachine.invite(
            callID: UUID().uuidString.lowercased(), caller: Party(id: "alice"), callee: Party(id: "bob"),
            hasVideo: false, calleeDevices: devices, calleeBusy: false,
            now: Date(unixMilliseconds: now.unixMilliseconds), ringTimeout: 45
        ).0
        _ = try machine.handle(.ringing(deviceID: "acknowledged"), by: .user("bob"), at: now)
        _ = try await first.insertCall(machine, events: [], idempotencyKey: nil, placedBy: "dead/1")
        try await first.recordPushAttempt(
            PushAttempt(
                callID: machine.call.callID, deviceID: "answered", provider: .apns,
                pushType: .voip, status: 200, reason: nil, apnsID: nil,
                latencyMs: 5, attempts: 1, sentAt: now))
        // A live server's calls are left alone, however old.
        let alive = Self.ringingCall(caller: "carol", callee: "dave")
        _ = try await first.insertCall(alive, events: [], idempotencyKey: nil, placedBy: "alive/1")
        try await first.heartbeat(node: "dead/1", at: now.addingTimeInterval(-30))
        try await second.heartbeat(node: "alive/1", at: now)

        // While the dead server's heartbeat is fresh enough, nothing.
        #expect(try await first.claimOrphanedRingingCall(at: now, deadAfter: 60, claimedBy: "alive/1") == nil)
        // The dead server itself, come back under its old name (a stall, not a death), never claims its own.
        #expect(try await first.claimOrphanedRingingCall(at: now, deadAfter: 10, claimedBy: "dead/1") == nil)
        let claims = try await withThrowingTaskGroup(of: [String]?.self) { group in
            for store in [first, second, first, second] {
                group.addTask {
                    try await store.claimOrphanedRingingCall(at: now, deadAfter: 10, claimedBy: "alive/1").map {
                        [$0.0.call.callID] + $0.1
                    }
                }
            }
            return try await group.reduce(into: [[String]]()) { if let claim = $1 { $0.append(claim) } }
        }
        #expect(claims == [[machine.call.callID, "silent"]])
        #expect(try await second.claimOrphanedRingingCall(at: now, deadAfter: 10, claimedBy: "alive/1") == nil)
    }

    /// The recovery reads the servers with unrecovered ringing calls from an index (issue 33); a server with no
    /// heartbeat at all counts as dead, as before, and among many live servers' calls a dead one's is still found.
    @Test(arguments: StoreKind.allCases) func aCallOfAServerWithoutAHeartbeatAmongManyLiveOnesIsClaimed(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        let now = Date()
        try await store.heartbeat(node: "alive/1", at: now)
        try await store.heartbeat(node: "alive/2", at: now)
        for index in 0..<40 {
            let machine = Self.ringingCall(caller: "caller-\(index)", callee: "callee-\(index)")
            _ = try await store.insertCall(
                machine, events: [], idempotencyKey: nil, placedBy: index.isMultiple(of: 2) ? "alive/1" : "alive/2")
        }
        #expect(try await store.claimOrphanedRingingCall(at: now, deadAfter: 10, claimedBy: "alive/1") == nil)
        let orphan = Self.ringingCall(caller: "carol", callee: "dave")
        _ = try await store.insertCall(orphan, events: [], idempotencyKey: nil, placedBy: "never-beat/1")
        let late = Self.ringingCall(caller: "erin", callee: "frank")
        _ = try await store.insertCall(late, events: [], idempotencyKey: nil, placedBy: "zz-never-beat/2")
        var claimed: [String] = []
        while let (machine, devices) = try await store.claimOrphanedRingingCall(
            at: now, deadAfter: 10, claimedBy: "alive/1")
        {
            claimed.append(machine.call.callID)
            #expect(devices == ["p"])
        }
        #expect(Set(claimed) == [orphan.call.callID, late.call.callID] && claimed.count == 2)
    }
}

extension RingerStore {
    /// Stores a call decided before the transaction (tests that do not exercise "busy").
    func insertCall(
        _ machine: CallMachine, events: [PendingEvent], idempotencyKey: String?,
        placedBy node: String? = nil
    ) async throws -> [StoredEvent] {
        let inserted = try await insertCall(
            callerID: machine.call.caller.id, calleeID: machine.call.callee.id,
            idempotencyKey: idempotencyKey, at: machine.call.createdAt,
            placedBy: node
        ) { _ in (machine, (), events) }
        guard case .created(_, let stored) = inserted else { throw StoreTestError.notCreated }
        return stored
    }

    /// Whether a new call to the callee would be busy, as `insertCall` reads it in its transaction (a call from
    /// `zed` is stored).
    func busy(calleeID: String) async throws -> Bool {
        let machine = StoreConformanceTests.ringingCall(caller: "zed", callee: calleeID)
        let inserted = try await insertCall(
            callerID: "zed", calleeID: calleeID, idempotencyKey: nil, at: Date(),
            placedBy: nil
        ) { busy in
            (machine, busy, [])
        }
        guard case .created(let busy, _) = inserted else { throw StoreTestError.notCreated }
        return busy
    }
}

enum StoreTestError: Error { case notCreated }
