import Foundation
import RingerCore
import RingerWire
import Testing

// Call waiting (docs/decisions/0008 §3): a callee in an accepted call is `busy` unless the call rings them waiting.

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let alice = Party(id: "alice", name: "Alice")
private let bob = Party(id: "bob", name: "Bob")
private let bobPhone = CalleeDevice(id: "bob-iphone", platform: .ios, canBeWoken: true)

private func invitee(_ id: String, busy: Bool = false) -> Invitee {
    Invitee(
        party: Party(id: id), devices: [CalleeDevice(id: "\(id)-0", platform: .android, canBeWoken: true)],
        online: false, busy: busy)
}

@Suite struct CallWaitingTests {
    @Test func aBusyCalleeIsRungAsAWaitingCallWhenCallWaitingIsOn() {
        let (machine, effects) = CallMachine.invite(
            callID: "c1", caller: alice, callee: bob, hasVideo: false, calleeDevices: [bobPhone], calleeBusy: true,
            callWaiting: true, now: t0, ringTimeout: 45)
        #expect(machine.call.state == .ringing && machine.call.waiting == true)
        #expect(
            effects == [
                .publish(.callIncoming, to: .user("bob")), .pushIncomingCall(deviceID: "bob-iphone"),
                .scheduleRingTimeout(at: t0.addingTimeInterval(45)),
            ])
    }

    @Test func aBusyCalleeMakesTheCallBusyWhenCallWaitingIsOffAndAFreeOneIsNeverWaiting() {
        let (busy, effects) = CallMachine.invite(
            callID: "c1", caller: alice, callee: bob, hasVideo: false, calleeDevices: [bobPhone], calleeBusy: true,
            callWaiting: false, now: t0, ringTimeout: 45)
        #expect(busy.call.state == .busy && busy.call.waiting == nil)
        #expect(effects == [.publish(.callEnded, to: .user("alice"))])
        let (unreachable, _) = CallMachine.invite(
            callID: "c3", caller: alice, callee: bob, hasVideo: false, calleeDevices: [], calleeBusy: true,
            callWaiting: true, now: t0, ringTimeout: 45)
        #expect(unreachable.call.state == .failed && unreachable.call.waiting == nil, "waiting means rung anyway")
        let (free, _) = CallMachine.invite(
            callID: "c2", caller: alice, callee: bob, hasVideo: false, calleeDevices: [bobPhone], calleeBusy: false,
            callWaiting: true, now: t0, ringTimeout: 45)
        #expect(free.call.state == .ringing && free.call.waiting == nil, "nobody waits on a free callee")
    }

    @Test func aGroupCallRingsItsBusyCalleesWaitingAndEachReadsTheirOwnLeg() {
        let (machine, _) = CallMachine.inviteGroup(
            callID: "g1", caller: alice, invitees: [invitee("bob", busy: true), invitee("carol")],
            policy: .firstAnswer, hasVideo: false, callWaiting: true, now: t0, ringTimeout: 45)
        #expect(machine.call.legs?.map(\.state) == [.ringing, .ringing])
        #expect(machine.call.leg(of: "bob")?.waiting == true && machine.call.leg(of: "carol")?.waiting == nil)
        #expect(machine.view(for: "bob").waiting == true)
        #expect(machine.view(for: "carol").waiting == nil)
        #expect(machine.view(for: "alice").waiting == nil, "the caller reads each callee's leg")
    }

    @Test func peopleRungIntoTheCallLaterFollowTheCallsChoice() throws {
        var (machine, _) = CallMachine.inviteGroup(
            callID: "g1", caller: alice, invitees: [invitee("bob")], policy: .allMayJoin, hasVideo: false,
            callWaiting: true, now: t0, ringTimeout: 45)
        let more = RingMore(invitees: [invitee("dave", busy: true)], ringTimeout: 45, maximumLegs: 16)
        _ = try machine.handle(.ringMore(more), by: .user("alice"), at: t0.addingTimeInterval(5))
        #expect(machine.call.leg(of: "dave")?.state == .ringing && machine.call.leg(of: "dave")?.waiting == true)
        var (busyCall, _) = CallMachine.inviteGroup(
            callID: "g2", caller: alice, invitees: [invitee("bob")], policy: .allMayJoin, hasVideo: false,
            callWaiting: false, now: t0, ringTimeout: 45)
        _ = try busyCall.handle(.ringMore(more), by: .user("alice"), at: t0.addingTimeInterval(5))
        #expect(busyCall.call.leg(of: "dave")?.state == .busy)
    }

    @Test func aWaiting1to1CallTurnedIntoAGroupKeepsItsCalleeWaiting() throws {
        var (machine, _) = CallMachine.invite(
            callID: "c1", caller: alice, callee: bob, hasVideo: false, calleeDevices: [bobPhone], calleeBusy: true,
            callWaiting: true, now: t0, ringTimeout: 45)
        let more = RingMore(invitees: [invitee("carol")], ringTimeout: 45, maximumLegs: 16)
        _ = try machine.handle(.ringMore(more), by: .user("alice"), at: t0.addingTimeInterval(5))
        #expect(machine.call.leg(of: "bob")?.waiting == true && machine.call.waiting == nil)
        #expect(machine.view(for: "bob").waiting == true)
    }

    @Test func aCallStoredBeforeCallWaitingReadsAsOffAndTheChoiceRoundTrips() throws {
        let (machine, _) = CallMachine.invite(
            callID: "c1", caller: alice, callee: bob, hasVideo: false, calleeDevices: [bobPhone], calleeBusy: true,
            callWaiting: true, now: t0, ringTimeout: 45)
        let data = try RingerJSON.encode(machine)
        #expect(try RingerJSON.decode(CallMachine.self, from: data) == machine)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["call_waiting"] as? Bool == true)
        object["call_waiting"] = nil
        let old = try RingerJSON.decode(CallMachine.self, from: try JSONSerialization.data(withJSONObject: object))
        #expect(old.callWaiting == nil)
    }
}
