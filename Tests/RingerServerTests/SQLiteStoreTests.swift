import Foundation
import RingerCore
import RingerStore
import RingerWire
import Testing

/// The embedded store's guarantees, on an in-memory database.
@Suite struct SQLiteStoreTests {
    /// A ringing call at a whole millisecond, the precision the store keeps.
    static func ringingCall() -> CallMachine {
        CallMachine.invite(callID: UUID().uuidString.lowercased(), caller: Party(id: "alice"), callee: Party(id: "bob"),
                           hasVideo: false, calleeDevices: [CalleeDevice(id: "p", platform: .ios, canBeWoken: true)],
                           calleeBusy: false, now: Date(unixMilliseconds: Date().unixMilliseconds), ringTimeout: 45).0
    }

    @Test func replayAfterAnOutageReturnsTheNewestEventsInOrder() async throws {
        let store = try SQLiteStore(path: ":memory:")
        let machine = Self.ringingCall()
        let events = (0..<600).map { _ in PendingEvent(type: .callRinging, recipient: .user("alice"), call: machine.call) }
        let stored = try await store.insertCall(machine, events: events, idempotencyKey: nil)
        #expect(stored.map(\.event.seq) == Array(1...600))
        let replay = try await store.events(forUser: "alice", after: 0, limit: 500)
        #expect(replay.map(\.event.seq) == Array(101...600))
        #expect(try await store.latestSeq(forUser: "alice") == 600)
        #expect(try await store.latestSeq(forUser: "nobody") == 0)
    }

    @Test func textIsStoredWholeEvenWithAnEmbeddedNUL() async throws {
        // What was acknowledged is what is stored: SQLite given a C string would keep "tok" only.
        let store = try SQLiteStore(path: ":memory:")
        try await store.upsertUser(id: "alice", name: "tok\u{0}A", at: Date())
        #expect(try await store.user(id: "alice")?.name == "tok\u{0}A")
        let device = try await store.registerDevice(Device(deviceId: "p", userId: "alice", platform: .android,
                                                           fcmToken: "tok\u{0}B", updatedAt: Date()))
        #expect(device.fcmToken == "tok\u{0}B")
        #expect(try await store.device(id: "p", userID: "alice")?.fcmToken == "tok\u{0}B")
    }

    @Test func insertingACallReadsBusyInsideItsTransaction() async throws {
        let store = try SQLiteStore(path: ":memory:")
        let first = Self.ringingCall()
        _ = try await store.insertCall(first, events: [], idempotencyKey: nil)
        let notYet = try await store.insertCall(calleeID: "bob", idempotencyKey: nil) { busy in (Self.ringingCall(), busy, []) }
        #expect(notYet.0 == false)
        _ = try await store.updateCall(id: first.call.callId) { machine -> (Int, [PendingEvent]) in
            _ = try machine.handle(.accept(deviceID: "p"), by: .user("bob"), at: Date())
            return (0, [])
        }
        let busy = try await store.insertCall(calleeID: "bob", idempotencyKey: nil) { busy in (Self.ringingCall(), busy, []) }
        #expect(busy.0 == true)
        // The caller of the accepted call is busy too; an unrelated user is not.
        #expect(try await store.insertCall(calleeID: "alice", idempotencyKey: nil) { busy in (Self.ringingCall(), busy, []) }.0)
        #expect(try await store.insertCall(calleeID: "carol", idempotencyKey: nil) { busy in (Self.ringingCall(), busy, []) }.0 == false)
    }

    @Test func aFailedUpdateChangesNothing() async throws {
        struct Refused: Error {}
        let store = try SQLiteStore(path: ":memory:")
        let machine = Self.ringingCall()
        _ = try await store.insertCall(machine, events: [], idempotencyKey: nil)
        await #expect(throws: Refused.self) {
            _ = try await store.updateCall(id: machine.call.callId) { machine -> (Int, [PendingEvent]) in
                _ = try machine.handle(.cancel, by: .user("alice"), at: Date())
                throw Refused()
            }
        }
        #expect(try await store.call(id: machine.call.callId) == machine)
        #expect(try await store.latestSeq(forUser: "bob") == 0)
    }

    @Test func schemaIsMigratedOnceAndReopensWithItsData() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-store-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let machine = Self.ringingCall()
        do {
            let store = try SQLiteStore(path: path)
            _ = try await store.insertCall(machine, events: [], idempotencyKey: nil)
        }
        let reopened = try SQLiteStore(path: path)
        #expect(try await reopened.call(id: machine.call.callId) == machine)
        #expect(try await reopened.ringingCalls().map(\.callID) == [machine.call.callId])
    }

    @Test func aTokenTakenByAnotherRegistrationLeavesItsDeviceMarkedNotDeleted() async throws {
        let store = try SQLiteStore(path: ":memory:")
        let first = Date(unixMilliseconds: 1_800_000_000_000)
        let token = String(repeating: "cd", count: 32)
        _ = try await store.registerDevice(Device(deviceId: "bob-iphone", userId: "bob", platform: .ios, voipToken: token,
                                                  apnsEnvironment: .production, bundleId: "com.example.app", updatedAt: first))
        // Carol logs in on the same phone: its VoIP token is now hers.
        let carol = try await store.registerDevice(Device(deviceId: "carol-iphone", userId: "carol", platform: .ios,
                                                          voipToken: token, apnsEnvironment: .production,
                                                          bundleId: "com.example.app", updatedAt: first + 60))
        #expect(carol.voipToken == token)
        let bob = try #require(try await store.device(id: "bob-iphone", userID: "bob"))
        #expect(bob.voipToken == nil)
        #expect(bob.pushProblem == PushProblem(reason: "TokenMovedToAnotherDevice", token: "voip_token", at: first + 60))
        // Bob's app registers again with a token of its own: the mark clears.
        let again = try await store.registerDevice(Device(deviceId: "bob-iphone", userId: "bob", platform: .ios,
                                                          voipToken: String(repeating: "ef", count: 32),
                                                          apnsEnvironment: .production, bundleId: "com.example.app",
                                                          updatedAt: first + 120))
        #expect(again.pushProblem == nil)
        #expect(try await store.device(id: "bob-iphone", userID: "bob")?.pushProblem == nil)
    }

    @Test func aDeadFCMTokenNeverRemovesOrMarksAnEqualTokenOfAnotherKind() async throws {
        // Hex passes the FCM charset: another user may register Bob's VoIP token string as an FCM token.
        let store = try SQLiteStore(path: ":memory:")
        let registered = Date(unixMilliseconds: 1_800_000_000_000)
        let shared = String(repeating: "ab", count: 32)
        _ = try await store.registerDevice(Device(deviceId: "bob-iphone", userId: "bob", platform: .ios, voipToken: shared,
                                                  apnsEnvironment: .production, bundleId: "com.example.app",
                                                  updatedAt: registered))
        _ = try await store.registerDevice(Device(deviceId: "carol-pixel", userId: "carol", platform: .android,
                                                  fcmToken: shared, updatedAt: registered))
        #expect(try await store.flagPushToken(shared, kind: .fcm, problem: "SENDER_ID_MISMATCH", at: registered + 1))
        #expect(try await store.removeDeadPushToken(shared, kind: .fcm, invalidSince: registered + 2))
        let bob = try #require(try await store.device(id: "bob-iphone", userID: "bob"))
        #expect(bob.voipToken == shared)
        #expect(bob.pushProblem == nil)
        #expect(try await store.device(id: "carol-pixel", userID: "carol") == nil)
        // And the other way round: an APNs 410 about the VoIP token leaves an equal FCM token alone.
        _ = try await store.registerDevice(Device(deviceId: "carol-pixel", userId: "carol", platform: .android,
                                                  fcmToken: shared, updatedAt: registered))
        #expect(try await store.removeDeadPushToken(shared, kind: .voip, invalidSince: registered + 3))
        #expect(try await store.device(id: "carol-pixel", userID: "carol")?.fcmToken == shared)
        #expect(try await store.device(id: "bob-iphone", userID: "bob") == nil)
    }

    @Test func badTokenMarksTheDeviceKeepsTheTokenAndTheNextRegistrationClearsTheMark() async throws {
        let store = try SQLiteStore(path: ":memory:")
        let registered = Date(unixMilliseconds: 1_800_000_000_000)
        let voip = String(repeating: "ab", count: 32)
        let device = Device(deviceId: "bob-iphone", userId: "bob", platform: .ios, voipToken: voip,
                            apnsEnvironment: .production, bundleId: "com.example.app", updatedAt: registered)
        _ = try await store.registerDevice(device)

        // A refusal about a registration older than the current one is not recorded on it.
        #expect(try await store.flagPushToken(voip, kind: .voip, problem: "BadDeviceToken", at: registered.addingTimeInterval(-1)) == false)
        #expect(try await store.flagPushToken(voip, kind: .voip, problem: "BadDeviceToken", at: registered.addingTimeInterval(5)))
        let flagged = try #require(try await store.device(id: "bob-iphone", userID: "bob"))
        #expect(flagged.voipToken == voip)
        #expect(flagged.pushProblem == PushProblem(reason: "BadDeviceToken", token: "voip_token",
                                                   at: registered.addingTimeInterval(5)))

        var again = device
        again.apnsEnvironment = .sandbox
        again.updatedAt = registered.addingTimeInterval(60)
        #expect(try await store.registerDevice(again).pushProblem == nil)
        #expect(try await store.devices(ofUser: "bob").first?.pushProblem == nil)
    }
}

extension RingerStore {
    /// Stores a call decided before the transaction (tests that do not exercise "busy").
    func insertCall(_ machine: CallMachine, events: [PendingEvent], idempotencyKey: String?) async throws -> [StoredEvent] {
        try await insertCall(calleeID: machine.call.callee.id, idempotencyKey: idempotencyKey) { _ in (machine, (), events) }.1
    }
}
