import Foundation
import RingerCore
import RingerStore
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerServer

/// Call changes lock their two parties only: unrelated calls never wait, one user's events stay in
/// order, and "busy" is settled inside the store's transaction.
@Suite struct CallLockingTests {
    struct Fixture {
        let store: HookedStore
        let hub: EventHub
        let service: CallService

        init(ringTimeout: TimeInterval = 45) throws {
            store = try HookedStore()
            let publications = KeyedAsyncLock()
            hub = EventHub(store: store, publications: publications, maxSocketsPerUser: 100)
            service = try makeCallService(store: store, hub: hub, publications: publications, ringTimeout: ringTimeout)
        }

        /// Creates the users, each with an open socket (so a call to them rings), and returns the sockets.
        func users(_ ids: [String]) async throws -> [String: RecordingSink] {
            var sinks: [String: RecordingSink] = [:]
            for (index, id) in ids.enumerated() {
                try await store.upsertUser(id: id, name: nil, at: Date())
                let sink = RecordingSink()
                #expect(
                    hub.admit(id: UInt64(index + 1), userID: id, deviceID: "\(id)-phone", sink: sink, since: nil)
                        == .admitted)
                await hub.goLive(id: UInt64(index + 1), userID: id)
                sinks[id] = sink
            }
            return sinks
        }

        func place(_ caller: String, _ callee: String) async throws -> Call {
            try await service.createCall(caller: Party(id: caller), request: CreateCallRequest(callee: callee))
        }
    }

    @Test func placingACallDoesNotWaitForACallBetweenOtherUsers() async throws {
        let fixture = try Fixture()
        _ = try await fixture.users(["alice", "bob", "carol", "dave"])
        let gate = Gate()
        fixture.store.beforeInsert.withLock { $0 = { callee in if callee == "bob" { await gate.pass() } } }
        let held = Task { try await fixture.place("alice", "bob") }
        #expect(await eventually { gate.arrived == 1 })
        // Alice → Bob is held inside its change; Carol → Dave completes meanwhile.
        let done = LockedValue<Call?>(nil)
        Task {
            let call = try? await fixture.place("carol", "dave")
            done.withLock { $0 = call }
        }
        #expect(await eventually { done.snapshot != nil })
        #expect(done.snapshot?.state == .ringing)
        gate.open()
        #expect(try await held.value.state == .ringing)
    }

    @Test func actingOnACallDoesNotWaitForAnotherPairsChange() async throws {
        let fixture = try Fixture()
        _ = try await fixture.users(["alice", "bob", "carol", "dave"])
        let first = try await fixture.place("alice", "bob")
        let second = try await fixture.place("carol", "dave")
        let gate = Gate()
        fixture.store.beforeUpdate.withLock { $0 = { id in if id == first.callID { await gate.pass() } } }
        let held = Task { try await fixture.service.act(.cancel, callID: first.callID, user: "alice") }
        #expect(await eventually { gate.arrived == 1 })
        let done = LockedValue<Call?>(nil)
        Task {
            let call = try? await fixture.service.act(.cancel, callID: second.callID, user: "carol")
            done.withLock { $0 = call }
        }
        #expect(await eventually { done.snapshot?.state == .cancelled })
        gate.open()
        #expect(try await held.value.state == .cancelled)
    }

    @Test func aRingTimeoutFiresWhileAnotherPairsChangeIsHeld() async throws {
        let fixture = try Fixture(ringTimeout: 0.5)
        _ = try await fixture.users(["alice", "bob", "carol", "dave"])
        let first = try await fixture.place("alice", "bob")
        let second = try await fixture.place("carol", "dave")
        let gate = Gate()
        fixture.store.beforeUpdate.withLock { $0 = { id in if id == first.callID { await gate.pass() } } }
        let held = Task { try await fixture.service.act(.cancel, callID: first.callID, user: "alice") }
        #expect(await eventually { gate.arrived >= 1 })
        // Carol's call rings out on time although Alice and Bob's change is still held.
        let store = fixture.store
        #expect(await eventuallyAsync { (try? await store.call(id: second.callID))?.call.state == .unanswered })
        #expect(try await store.call(id: first.callID)?.call.state == .ringing)
        gate.open()
        _ = try? await held.value
        #expect(
            await eventuallyAsync {
                [.cancelled, .unanswered].contains((try? await store.call(id: first.callID))?.call.state)
            })
    }

    @Test func concurrentChangesToOneUserReachTheirSocketsInSeqOrder() async throws {
        let fixture = try Fixture()
        let callers = (0..<20).map { "caller\($0)" }
        let sinks = try await fixture.users(["bob"] + callers)
        // Each caller places a call to Bob and cancels it, all at once: Bob's stream gets 40 events.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for caller in callers {
                group.addTask {
                    let call = try await fixture.place(caller, "bob")
                    _ = try await fixture.service.act(.cancel, callID: call.callID, user: caller)
                }
            }
            try await group.waitForAll()
        }
        let bob = try #require(sinks["bob"])
        #expect(await eventually { bob.events.count == 40 })
        #expect(bob.events.map(\.seq) == Array(1...40))
        #expect(try await fixture.store.latestSeq(forUser: "bob") == 40)
    }

    @Test func aCallPlacedWhileAnotherServerAcceptsIsBusyNotRinging() async throws {
        let fixture = try Fixture()
        let sinks = try await fixture.users(["alice", "bob", "carol"])
        let first = try await fixture.place("alice", "bob")
        // Carol calls Bob; just before her call is stored, Bob's accept of Alice's call commits through
        // another server (straight to the shared store, so no lock of this process orders the two).
        fixture.store.beforeInsert.withLock {
            $0 = { [store = fixture.store] callee in
                guard callee == "bob" else { return }
                _ = try? await store.base.updateCall(id: first.callID) { machine -> (Int, [PendingEvent]) in
                    _ = try machine.handle(.accept(deviceID: "bob-phone"), by: .user("bob"), at: Date())
                    return (0, [])
                }
            }
        }
        let second = try await fixture.place("carol", "bob")
        #expect(try await fixture.store.call(id: first.callID)?.call.state == .accepted)
        #expect(second.state == .busy)
        let bob = try #require(sinks["bob"])
        #expect(!bob.events.contains { $0.call.callID == second.callID })
        #expect(try #require(sinks["carol"]).events.map(\.type) == [.callEnded])
    }

    @Test func aCallRingingPastItsDeadlineOnAServerThatDiedIsEndedByTheSweepOnceAndItsPartiesAreTold() async throws {
        let fixture = try Fixture()
        let sinks = try await fixture.users(["alice", "bob"])
        // Placed by a server that died before its ring timer fired: stored, ringing, no timer here.
        let placedAt = Date(unixMilliseconds: Date().unixMilliseconds - 10_000)
        let orphan = CallMachine.invite(
            callID: UUID().uuidString.lowercased(), caller: Party(id: "alice"), callee: Party(id: "bob"),
            hasVideo: false, calleeDevices: [], calleeOnline: true, calleeBusy: false,
            now: placedAt, ringTimeout: 5
        ).0
        _ = try await fixture.store.insertCall(orphan, events: [], idempotencyKey: nil)
        // Not yet: inside the grace the placing server's own timer is given to fire first.
        #expect(await fixture.service.sweepRingTimeouts(at: orphan.call.expiresAt.addingTimeInterval(0.5)) == 0)
        #expect(await fixture.service.sweepRingTimeouts(at: Date()) == 1)
        #expect(await fixture.service.sweepRingTimeouts(at: Date()) == 0)
        #expect(try await fixture.store.call(id: orphan.call.callID)?.call.state == .unanswered)
        for user in ["alice", "bob"] {
            let events = try #require(sinks[user]).events.filter { $0.call.callID == orphan.call.callID }
            #expect(events.map(\.type) == [.callUnanswered], "\(user)")
        }
    }

    @Test func locksTakenInAnyOrderNeverDeadlock() async throws {
        let locks = KeyedAsyncLock(stripes: 4)
        let count = LockedValue(0)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                let names = index.isMultiple(of: 2) ? ["a", "b", "c"] : ["c", "b", "a"]
                group.addTask {
                    await locks.withLocks(names) {
                        await Task.yield()
                        count.withLock { $0 += 1 }
                    }
                }
            }
        }
        #expect(count.snapshot == 200)
        #expect(!locks.isHeld("a") && !locks.isHeld("b") && !locks.isHeld("c"))
    }
}
