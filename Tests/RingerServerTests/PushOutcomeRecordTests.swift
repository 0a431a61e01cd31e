import Foundation
import RingerCore
@testable import RingerStore
import RingerSupport
import RingerWire
import Testing

@testable import RingerServer

/// A push's outcome handed to the store without waiting (issue 33): stored and then heard of, on both databases; a
/// store that cannot write says so to the one who handed it over.
struct PushOutcomeRecordTests {
    static func attempt(_ callID: String, device: String = "phone") -> PushAttempt {
        PushAttempt(
            callID: callID, deviceID: device, provider: .apns, pushType: .voip, status: 200, reason: nil, apnsID: nil,
            latencyMs: 5, attempts: 1, sentAt: Date(unixMilliseconds: Date().unixMilliseconds))
    }

    /// Hands `attempt` over and waits until the store says how it ended.
    static func record(_ attempt: PushAttempt, in store: any RingerStore) async -> (any Error)? {
        await withCheckedContinuation { continuation in
            store.recordPushAttempt(attempt) { error in continuation.resume(returning: error) }
        }
    }

    @Test(arguments: StoreKind.allCases) func anOutcomeHandedOverIsStoredWhenTheStoreSaysSo(
        _ kind: StoreKind
    ) async throws {
        let store = try await kind.open()
        let machine = StoreConformanceTests.ringingCall()
        _ = try await store.insertCall(machine, events: [], idempotencyKey: nil)
        let callID = machine.call.callID
        let error = await Self.record(Self.attempt(callID), in: store)
        #expect(error == nil)
        #expect(try await store.pushAttempts(callID: callID).map(\.deviceID) == ["phone"])
        // Many at once, each stored once.
        let errors = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                group.addTask { await Self.record(Self.attempt(callID, device: "d\(index)"), in: store) == nil }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 0 : 1 }
        }
        #expect(errors == 0)
        #expect(try await store.pushAttempts(callID: callID).count == 51)
    }

    @Test func anOutcomeWaitsForTheNextCommitSomebodyWaitsForAndIsStoredWithIt() async throws {
        let store = try await StoreKind.sqlite.open()
        let machine = StoreConformanceTests.ringingCall()
        _ = try await store.insertCall(machine, events: [], idempotencyKey: nil)
        let callID = machine.call.callID
        let heard = LockedValue(false)
        let handedOver = ContinuousClock.now
        store.recordPushAttempt(Self.attempt(callID)) { _ in heard.withLock { $0 = true } }
        // Inside the window (20 ms) nobody has committed it yet. Only a look taken inside it tells: a loaded machine
        // that stalled this task past the window (one `make test` run did) has rightly committed it alone.
        try await Task.sleep(for: .milliseconds(2))
        let heardEarly = heard.withLock { $0 }
        if ContinuousClock.now - handedOver < .milliseconds(20) {  // SQLiteConnectionSource.deferredWindow
            #expect(!heardEarly)
        }
        // A write somebody waits for takes it along: it is stored, and heard of, by the time that write returns.
        let other = StoreConformanceTests.ringingCall(caller: "carol", callee: "dave")
        _ = try await store.insertCall(other, events: [], idempotencyKey: nil)
        #expect(heard.withLock { $0 })
        #expect(try await store.pushAttempts(callID: callID).count == 1)
    }

    @Test func anOutcomeNoOtherWriteTakesAlongIsStoredWithinTheWindow() async throws {
        let store = try await StoreKind.sqlite.open()
        let machine = StoreConformanceTests.ringingCall()
        _ = try await store.insertCall(machine, events: [], idempotencyKey: nil)
        let started = ContinuousClock.now
        let error = await Self.record(Self.attempt(machine.call.callID), in: store)
        #expect(error == nil)
        // Not before its window: it waited for company.
        #expect(ContinuousClock.now - started >= .milliseconds(20))
        #expect(try await store.pushAttempts(callID: machine.call.callID).count == 1)
    }

    @Test func aStoreWhoseFileWasDeletedTellsTheOneWhoHandedTheOutcomeOver() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-push-record-\(UUID().uuidString).sqlite"
        ).path
        let store = try SQLiteStore(path: path)
        try FileManager.default.removeItem(atPath: path)
        let error = await Self.record(Self.attempt("gone"), in: store)
        #expect(error != nil)
    }
}

/// The push outcome's stored record written with Jansson (issue 33): RingerJSON's decoder reads it back as the same
/// attempt, and it has the encoder's members, whatever fields are set.
struct PushAttemptRecordTests {
    static let attempts: [PushAttempt] = [
        PushAttempt(
            callID: "c1", deviceID: "phone", provider: .apns, pushType: .voip, status: 200, reason: nil,
            apnsID: "A-1", latencyMs: 12.345, attempts: 1, sentAt: Date(unixMilliseconds: 1_765_000_000_123)),
        PushAttempt(
            callID: "c2", deviceID: "pixel \"7\" / \\ é", provider: .fcm, pushType: .high, status: nil,
            reason: "transport: connection reset\nby peer", apnsID: nil, messageName: "projects/p/messages/1",
            latencyMs: 0.1 + 0.2, attempts: 0, sentAt: Date(unixMilliseconds: 0),
            readiness: [.notificationsDisabled, .fullScreenIntentDenied], userID: "bob"),
        PushAttempt(
            callID: "c3", deviceID: "d", provider: .apns, pushType: .alert, status: 410, reason: "Unregistered",
            apnsID: nil, latencyMs: 1e-7, attempts: Int(Int32.max), sentAt: Date(unixMilliseconds: 253_402_300_799_999),
            readiness: []),
    ]

    @Test(arguments: attempts) func theRecordReadsBackAsTheAttemptWithTheEncodersMembers(_ attempt: PushAttempt) throws
    {
        let text = try #require(attempt.recordText)
        #expect(try RingerJSON.decoder().decode(PushAttempt.self, from: Data(text.utf8)) == attempt)
        let ours = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let theirs = try #require(
            try JSONSerialization.jsonObject(with: RingerJSON.encoder().encode(attempt)) as? [String: Any])
        #expect(Set(ours.keys) == Set(theirs.keys))
        // The number of milliseconds may be written with more digits (JSONWriter): the decoder above read it back as
        // the same Double; every other member is the encoder's.
        for (key, value) in theirs where key != "latency_ms" {
            #expect((ours[key] as? NSObject) == (value as? NSObject), "\(key)")
        }
    }
}
