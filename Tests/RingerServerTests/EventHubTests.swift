import Foundation
import RingerCore
import RingerStore
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

@testable import RingerServer

/// The event hub on its own: who an event reaches, in what order, and which sockets a user may hold.
@Suite struct EventHubTests {
    static func call(callee: String = "bob") -> Call {
        Call(
            callID: UUID().uuidString.lowercased(), state: .ringing, caller: Party(id: "alice"),
            callee: Party(id: callee),
            hasVideo: false, createdAt: Date(), expiresAt: Date().addingTimeInterval(45))
    }

    /// Stores `count` events for `user` and returns them as the store numbered them.
    static func storeEvents(_ count: Int, for user: String, in store: SQLiteStore) async throws -> [StoredEvent] {
        let call = Self.call(callee: user)
        let machine = CallMachine.invite(
            callID: call.callID, caller: call.caller, callee: call.callee, hasVideo: false,
            calleeDevices: [], calleeOnline: true, calleeBusy: false, now: Date(),
            ringTimeout: 45
        ).0
        let pending = (0..<count).map { _ in PendingEvent(type: .callRinging, recipient: .user(user), call: call) }
        return try await store.insertCall(machine, events: pending, idempotencyKey: nil)
    }

    /// Admits a socket and waits until it is live (its `stream.ready` written).
    static func live(
        _ hub: EventHub, id: UInt64, user: String, device: String?, sink: RecordingSink,
        since: Int64? = nil
    ) async throws {
        #expect(hub.admit(id: id, userID: user, deviceID: device, sink: sink, since: since) == .admitted)
        await hub.goLive(id: id, userID: user)
        #expect(sink.record.withLock { $0.texts.contains { $0.contains("stream.ready") } })
    }

    @Test func deliveryToOneUserNeverWaitsForAnotherUsersSocketsNorWritesToThem() async throws {
        let store = try SQLiteStore(path: ":memory:")
        let hub = EventHub(store: store, publications: KeyedAsyncLock())
        // Alice's socket blocks inside its send (holding whatever lock the hub writes under) until opened.
        let gate = DispatchSemaphore(value: 0)
        let blocking = LockedValue(false)
        let entered = LockedValue(false)
        let alice = RecordingSink(onSend: {
            guard blocking.snapshot else { return }
            entered.withLock { $0 = true }
            gate.wait()
        })
        try await Self.live(hub, id: 1, user: "alice", device: "alice-phone", sink: alice)
        // Hundreds of unrelated users, and bob, in another part of the hub than alice.
        var others: [RecordingSink] = []
        for index in 0..<300 {
            let sink = RecordingSink()
            try await Self.live(hub, id: UInt64(100 + index), user: "user\(index)", device: "phone", sink: sink)
            others.append(sink)
        }
        let bobID = (0..<1000).map { "bob\($0)" }.first { !hub.sharesStripe("alice", $0) }!
        let bob = RecordingSink()
        try await Self.live(hub, id: 2, user: bobID, device: "bob-phone", sink: bob)
        let framesBefore = others.map(\.sendCount)

        let aliceEvents = try await Self.storeEvents(1, for: "alice", in: store)
        let bobEvents = try await Self.storeEvents(1, for: bobID, in: store)
        blocking.withLock { $0 = true }
        let stuck = Thread { hub.deliver(aliceEvents) }
        stuck.start()
        #expect(await eventually { entered.snapshot })  // blocked inside alice's send
        // Delivering to bob completes while alice's delivery is still blocked.
        let delivered = LockedValue(false)
        Thread {
            hub.deliver(bobEvents)
            delivered.withLock { $0 = true }
        }.start()
        #expect(await eventually { delivered.snapshot })
        #expect(bob.events.map(\.seq) == [1])
        #expect(others.map(\.sendCount) == framesBefore)
        gate.signal()
        #expect(await eventually { alice.events.count == 1 })
    }

    @Test func eventsArrivingOutOfOrderReachTheSocketInSeqOrderAndNoneIsDropped() async throws {
        let store = try SQLiteStore(path: ":memory:")
        let hub = EventHub(store: store, publications: KeyedAsyncLock())
        let phone = RecordingSink()
        let tablet = RecordingSink()
        try await Self.live(hub, id: 1, user: "bob", device: "bob-phone", sink: phone)
        try await Self.live(hub, id: 2, user: "bob", device: "bob-tablet", sink: tablet)
        let events = try await Self.storeEvents(200, for: "bob", in: store)
        // Many publishers at once, each with one event, in shuffled order.
        await withTaskGroup(of: Void.self) { group in
            for event in events.shuffled() { group.addTask { hub.deliver([event]) } }
        }
        #expect(await eventually { phone.events.count == 200 && tablet.events.count == 200 })
        #expect(phone.events.map(\.seq) == Array(1...200))
        #expect(tablet.events.map(\.seq) == Array(1...200))
    }

    @Test func aLateEventIsTakenFromTheStoreWhenItsPublisherIsSlow() async throws {
        let store = try SQLiteStore(path: ":memory:")
        let hub = EventHub(store: store, publications: KeyedAsyncLock())
        let phone = RecordingSink()
        try await Self.live(hub, id: 1, user: "bob", device: "bob-phone", sink: phone)
        let events = try await Self.storeEvents(3, for: "bob", in: store)
        hub.deliver([events[0], events[2]])  // seq 2's publisher has not reached the hub (yet)
        #expect(await eventually { phone.events.count == 3 })
        #expect(phone.events.map(\.seq) == [1, 2, 3])
        hub.deliver([events[1]])  // arriving after all, it is not written twice
        try await Task.sleep(for: .milliseconds(50))
        #expect(phone.events.map(\.seq) == [1, 2, 3])
    }

    @Test func anotherSocketGoingLiveWhileAnEventWaitsForALateOneSkipsNothing() async throws {
        let store = try HookedStore()
        let hub = EventHub(store: store, publications: KeyedAsyncLock())
        let phone = RecordingSink()
        try await Self.live(hub, id: 1, user: "bob", device: "bob-phone", sink: phone)
        let events = try await Self.storeEvents(3, for: "bob", in: store.base)
        let gate = Gate()
        store.beforeEvents.withLock { $0 = { _ in await gate.pass() } }
        hub.deliver([events[0], events[2]])  // 3 waits for 2; the read of 2 from the store is held
        #expect(await eventually { gate.arrived == 1 })
        // Bob's tablet goes live meanwhile: the newest stored seq (3) must not move the phone's order past 2.
        let tablet = RecordingSink()
        try await Self.live(hub, id: 2, user: "bob", device: "bob-tablet", sink: tablet)
        gate.open()
        #expect(await eventually { phone.events.count == 3 })
        #expect(phone.events.map(\.seq) == [1, 2, 3])
    }

    @Test func theNewestSocketOfADeviceReplacesTheOlderWithACloseCode() async throws {
        let store = try SQLiteStore(path: ":memory:")
        let hub = EventHub(store: store, publications: KeyedAsyncLock())
        let old = RecordingSink()
        let new = RecordingSink()
        try await Self.live(hub, id: 1, user: "bob", device: "bob-phone", sink: old)
        try await Self.live(hub, id: 2, user: "bob", device: "bob-phone", sink: new)
        let closes = old.record.withLock { $0.closes }
        #expect(closes.map(\.code) == [4001])
        #expect(closes.first?.reason == "replaced by a newer connection of this device")
        #expect(new.record.withLock { $0.closes }.isEmpty)
        #expect(hub.socketCount(userID: "bob") == 1)
        // The old socket's close arrives later: it must not take the new one's presence with it.
        hub.disconnect(id: 1, userID: "bob")
        #expect(hub.isConnected(userID: "bob", deviceID: "bob-phone"))
        hub.deliver(try await Self.storeEvents(1, for: "bob", in: store))
        #expect(await eventually { new.events.count == 1 })
        #expect(old.events.isEmpty)
    }

    @Test func aDeviceThatReconnectedToAnotherServerHasItsOlderSocketHereClosedButNotANewerOne() async throws {
        let store = try SQLiteStore(path: ":memory:")
        let hub = EventHub(store: store, publications: KeyedAsyncLock())
        let presence = LockedValue<[Bool]>([])
        hub.presenceObserver.withLock { $0 = { _, online in presence.withLock { $0.append(online) } } }
        let here = RecordingSink()
        try await Self.live(hub, id: 1, user: "bob", device: "bob-phone", sink: here)
        // A socket of the device that another server admitted before this one: this one is the newer, it stays.
        hub.replaceDevice(userID: "bob", deviceID: "bob-phone", connectedAt: Date().addingTimeInterval(-60))
        #expect(here.record.withLock { $0.closes }.isEmpty)
        #expect(hub.isConnected(userID: "bob", deviceID: "bob-phone"))
        // Another device of Bob's elsewhere touches nothing here.
        hub.replaceDevice(userID: "bob", deviceID: "bob-tablet", connectedAt: Date().addingTimeInterval(60))
        #expect(here.record.withLock { $0.closes }.isEmpty)
        // The device reconnected to another server after: the old socket here is closed as replaced.
        hub.replaceDevice(userID: "bob", deviceID: "bob-phone", connectedAt: Date().addingTimeInterval(60))
        #expect(here.record.withLock { $0.closes }.map(\.code) == [4001])
        #expect(!hub.isOnline(userID: "bob"))
        #expect(presence.snapshot == [true, false])
        hub.deliver(try await Self.storeEvents(1, for: "bob", in: store))
        try await Task.sleep(for: .milliseconds(100))
        #expect(here.events.isEmpty)
    }

    @Test func socketsBeyondThePerUserCapAreRefusedButADeviceMayStillReplaceItsOwn() async throws {
        let hub = EventHub(
            store: try SQLiteStore(path: ":memory:"), publications: KeyedAsyncLock(), maxSocketsPerUser: 3)
        for index in 0..<3 {
            #expect(
                hub.admit(
                    id: UInt64(index), userID: "bob", deviceID: "phone\(index)", sink: RecordingSink(),
                    since: nil) == .admitted)
        }
        #expect(hub.admit(id: 10, userID: "bob", deviceID: "phone9", sink: RecordingSink(), since: nil) == .full)
        #expect(hub.admit(id: 11, userID: "bob", deviceID: nil, sink: RecordingSink(), since: nil) == .full)
        #expect(hub.admit(id: 12, userID: "bob", deviceID: "phone1", sink: RecordingSink(), since: nil) == .admitted)
        #expect(hub.admit(id: 13, userID: "carol", deviceID: nil, sink: RecordingSink(), since: nil) == .admitted)
        #expect(hub.socketCount(userID: "bob") == 3)
        hub.disconnect(id: 0, userID: "bob")
        #expect(hub.admit(id: 14, userID: "bob", deviceID: nil, sink: RecordingSink(), since: nil) == .admitted)
    }

    @Test func presenceFollowsTheUsersOwnSockets() async throws {
        let hub = EventHub(store: try SQLiteStore(path: ":memory:"), publications: KeyedAsyncLock())
        #expect(!hub.isOnline(userID: "bob"))
        #expect(hub.admit(id: 1, userID: "bob", deviceID: "bob-phone", sink: RecordingSink(), since: nil) == .admitted)
        #expect(hub.admit(id: 2, userID: "carol", deviceID: nil, sink: RecordingSink(), since: nil) == .admitted)
        #expect(hub.isOnline(userID: "bob"))
        #expect(hub.isConnected(userID: "bob", deviceID: "bob-phone"))
        #expect(!hub.isConnected(userID: "carol", deviceID: "bob-phone"))
        hub.disconnect(id: 1, userID: "bob")
        #expect(!hub.isOnline(userID: "bob"))
        #expect(hub.isOnline(userID: "carol"))
    }
}
