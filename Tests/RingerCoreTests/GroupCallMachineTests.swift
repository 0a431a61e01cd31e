import Foundation
import RingerCore
import RingerWire
import Testing

// The rules of group calls (decision 0007 §1–§4), one test a rule. The 1:1 rules stay in CallMachineTests, unchanged.

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let alice = Party(id: "alice", name: "Alice")

private func invitee(_ id: String, devices: Int = 1, busy: Bool = false, online: Bool = false) -> Invitee {
    Invitee(
        party: Party(id: id, name: id.capitalized),
        devices: (0..<devices).map {
            CalleeDevice(id: "\(id)-\($0)", platform: $0 == 0 ? .ios : .android, canBeWoken: true)
        },
        online: online, busy: busy)
}

private func group(
    _ invitees: [Invitee] = [invitee("bob"), invitee("carol"), invitee("dave")],
    policy: AnswerPolicy = .firstAnswer
) -> (CallMachine, [CallEffect]) {
    CallMachine.inviteGroup(
        callID: "g1", caller: alice, invitees: invitees, policy: policy, hasVideo: false, now: t0, ringTimeout: 45)
}

private func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

private extension CallMachine {
    func legState(_ user: String) -> LegState? { call.leg(of: user)?.state }
}

/// The events of `effects` for one recipient user.
private func events(_ effects: [CallEffect], to user: String) -> [EventType] {
    effects.compactMap { effect in
        guard case .publish(let type, let recipient) = effect, recipient.userID == user else { return nil }
        return type
    }
}

private func pushes(_ effects: [CallEffect], to user: String) -> [EventType] {
    effects.compactMap { effect in
        guard case .pushUpdate(let type, let recipient) = effect, recipient.userID == user else { return nil }
        return type
    }
}

@Suite struct GroupCallInviteTests {
    @Test func inviteRingsEveryReachableCalleeOnEachDeviceAndSchedulesOneDeadline() {
        let (machine, effects) = group([invitee("bob", devices: 2), invitee("carol")])
        #expect(machine.call.state == .ringing && machine.call.callee.id == "bob")
        #expect(machine.call.answerPolicy == .firstAnswer)
        #expect(machine.call.legs?.map(\.state) == [.ringing, .ringing])
        #expect(
            effects == [
                .publish(.callIncoming, to: .user("bob")),
                .pushLegIncoming(userID: "bob", deviceID: "bob-0"), .pushLegIncoming(userID: "bob", deviceID: "bob-1"),
                .publish(.callIncoming, to: .user("carol")), .pushLegIncoming(userID: "carol", deviceID: "carol-0"),
                .scheduleRingTimeout(at: at(45)),
            ])
    }

    @Test func aBusyCalleeGetsABusyLegAndTheOthersRing() {
        let (machine, effects) = group([invitee("bob", busy: true), invitee("carol")])
        #expect(machine.call.state == .ringing)
        #expect(machine.legState("bob") == .busy && machine.call.leg(of: "bob")?.endedAt == t0)
        #expect(events(effects, to: "bob").isEmpty)
        #expect(events(effects, to: "carol") == [.callIncoming])
    }

    @Test func aCalleeWithNothingToRingGetsAFailedLegWithAReason() {
        let (machine, _) = group([invitee("bob", devices: 0), invitee("carol")])
        #expect(machine.legState("bob") == .failed)
        #expect(machine.call.leg(of: "bob")?.failureReason == "bob cannot be reached")
        // A socket is enough to ring.
        let (online, _) = group([invitee("bob", devices: 0, online: true)])
        #expect(online.legState("bob") == .ringing)
    }

    @Test func whenNobodyCanRingTheCallEndsBusyIfOneWasBusyElseFailed() {
        let (busy, effects) = group([invitee("bob", busy: true), invitee("carol", devices: 0)])
        #expect(busy.call.state == .busy && busy.call.endedAt == t0)
        #expect(effects == [.publish(.callEnded, to: .user("alice"))])
        let (failed, _) = group([invitee("bob", devices: 0), invitee("carol", devices: 0)])
        #expect(failed.call.state == .failed)
        #expect(failed.call.failureReason == "bob, carol cannot be reached")
    }

    @Test func repeatsAndTheCallerAreRungOnce() {
        let (machine, _) = group([invitee("bob"), invitee("bob"), Invitee(party: alice, devices: [])])
        #expect(machine.call.legs?.map(\.user.id) == ["bob"])
    }

    @Test func aGroupMachineRoundTripsAndA1to1MachineStoresNoLegs() throws {
        var (machine, _) = group()
        _ = try machine.handle(.ringing(deviceID: "bob-0"), by: .user("bob"), at: at(1))
        _ = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(2))
        let data = try RingerJSON.encode(machine)
        #expect(try RingerJSON.decode(CallMachine.self, from: data) == machine)
        #expect(String(decoding: data, as: UTF8.self).contains(#""ringing_device_ids":["bob-0"]"#))
        let (single, _) = CallMachine.invite(
            callID: "c", caller: alice, callee: Party(id: "bob"), hasVideo: false, calleeDevices: [],
            calleeOnline: true, calleeBusy: false, now: t0, ringTimeout: 45)
        let text = String(decoding: try RingerJSON.encode(single), as: UTF8.self)
        #expect(!text.contains("legs") && !text.contains("answer_policy") && !text.contains("exclusive"))
    }
}

@Suite struct GroupCallAnswerTests {
    @Test func theFirstAnswerWinsAcrossCalleesAndStopsTheOthersAtOnce() throws {
        var (machine, _) = group([invitee("bob", devices: 2), invitee("carol"), invitee("dave")])
        let effects = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(3))
        #expect(machine.call.state == .accepted && machine.call.acceptedDeviceID == "bob-0")
        #expect(machine.call.legs?.map(\.state) == [.accepted, .cancelled, .cancelled])
        #expect(machine.call.leg(of: "carol")?.endedBy == "bob")
        #expect(events(effects, to: "alice") == [.callAccepted])
        #expect(effects.contains(.publish(.callAnsweredElsewhere, to: .userExceptDevice("bob", deviceID: "bob-0"))))
        for loser in ["carol", "dave"] {
            #expect(events(effects, to: loser) == [.callAnsweredElsewhere])
            #expect(pushes(effects, to: loser) == [.callAnsweredElsewhere])
        }
        #expect(effects.contains(.cancelRingTimeout))
        #expect(effects.contains(.watchAcceptedCall(acceptedAt: at(3))))
        #expect(effects.contains(.watchLeg(userID: "bob", acceptedAt: at(3))))
    }

    @Test func aSecondCalleesAcceptUnderFirstAnswerIsAnsweredElsewhereAndChangesNothing() throws {
        var (machine, _) = group()
        _ = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(3))
        let before = machine
        let error = try #require(throws: CallRuleError.self) {
            try machine.handle(.accept(deviceID: "carol-0"), by: .user("carol"), at: at(3))
        }
        #expect(error.isAnsweredElsewhere && error.state == .accepted && error.legState == .cancelled)
        #expect(machine == before)
        // A decline that lost the same race reads the same way.
        let decline = try #require(throws: CallRuleError.self) {
            try machine.handle(.decline(deviceID: "carol-0"), by: .user("carol"), at: at(3))
        }
        #expect(decline.isAnsweredElsewhere && decline.legState == .cancelled)
    }

    @Test func underAllMayJoinEveryCalleeMayAcceptUntilTheirDeadline() throws {
        var (machine, _) = group(policy: .allMayJoin)
        let first = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(3))
        #expect(machine.call.legs?.map(\.state) == [.accepted, .ringing, .ringing])
        #expect(events(first, to: "carol") == [.callUpdated] && pushes(first, to: "carol").isEmpty)
        #expect(first.contains(.scheduleRingTimeout(at: at(45))))
        let second = try machine.handle(.accept(deviceID: "carol-0"), by: .user("carol"), at: at(5))
        #expect(machine.legState("carol") == .accepted && machine.call.acceptedDeviceID == "bob-0")
        #expect(events(second, to: "alice") == [.callUpdated])
        #expect(events(second, to: "bob") == [.callUpdated])
        // Dave never answers: his leg rings out on its own and the call goes on.
        let out = try machine.apply(.ringTimeout, by: .system, at: at(45))
        #expect(machine.legState("dave") == .unanswered && machine.call.state == .accepted)
        #expect(events(out, to: "dave") == [.callUnanswered] && pushes(out, to: "dave") == [.callUnanswered])
        #expect(events(out, to: "alice") == [.callUpdated])
    }

    @Test func acceptsAndDeclinesRepeatedFromTheSameDeviceChangeNothing() throws {
        var (machine, _) = group()
        _ = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(3))
        #expect(try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(4)) == [])
        #expect(throws: CallRuleError.self) {
            try machine.handle(.accept(deviceID: "bob-1"), by: .user("bob"), at: at(4))
        }
        var (declining, _) = group()
        _ = try declining.handle(.decline(deviceID: "carol-0"), by: .user("carol"), at: at(3))
        #expect(try declining.handle(.decline(deviceID: "carol-0"), by: .user("carol"), at: at(4)) == [])
    }

    @Test func ringingAcksTellTheCallerOnceForTheCallThenPerLegAsUpdates() throws {
        var (machine, _) = group()
        #expect(
            try machine.handle(.ringing(deviceID: "bob-0"), by: .user("bob"), at: at(1))
                == [.publish(.callRinging, to: .user("alice"))])
        #expect(try machine.handle(.ringing(deviceID: "bob-0"), by: .user("bob"), at: at(1)) == [])
        #expect(
            try machine.handle(.ringing(deviceID: "carol-0"), by: .user("carol"), at: at(2))
                == [.publish(.callUpdated, to: .user("alice"))])
        #expect(machine.call.leg(of: "carol")?.ringingAt == at(2) && machine.call.leg(of: "bob")?.ringingAt == at(1))
        #expect(machine.devicesThatMayRing(of: "carol") == ["carol-0"])
        #expect(throws: CallRuleError.self) {
            try machine.handle(.ringing(deviceID: "alice-0"), by: .user("alice"), at: at(2))
        }
    }
}

@Suite struct GroupCallEndingTests {
    @Test func theLastDeclineEndsTheCallDeclined() throws {
        var (machine, _) = group([invitee("bob"), invitee("carol")])
        let first = try machine.handle(.decline(deviceID: "bob-0"), by: .user("bob"), at: at(2))
        #expect(machine.call.state == .ringing)
        #expect(events(first, to: "alice") == [.callUpdated] && events(first, to: "carol") == [.callUpdated])
        let last = try machine.handle(.decline(deviceID: "carol-0"), by: .user("carol"), at: at(3))
        #expect(machine.call.state == .declined && machine.call.endedBy == "carol")
        #expect(events(last, to: "alice") == [.callDeclined])
        #expect(last.contains(.cancelRingTimeout))
    }

    @Test func aMixOfDeclinedBusyAndRungOutEndsUnanswered() throws {
        var (machine, _) = group([invitee("bob"), invitee("carol", busy: true), invitee("dave")])
        _ = try machine.handle(.decline(deviceID: "bob-0"), by: .user("bob"), at: at(2))
        let out = try machine.apply(.ringTimeout, by: .system, at: at(45))
        #expect(machine.call.state == .unanswered && machine.call.endedBy == nil)
        #expect(machine.call.legs?.map(\.state) == [.declined, .busy, .unanswered])
        #expect(events(out, to: "alice") == [.callUnanswered])
        #expect(events(out, to: "dave") == [.callUnanswered] && pushes(out, to: "dave") == [.callUnanswered])
        #expect(events(out, to: "bob").isEmpty)
    }

    @Test func theCallersCancelStopsEveryRingingLeg() throws {
        var (machine, _) = group([invitee("bob"), invitee("carol"), invitee("dave", busy: true)])
        let effects = try machine.handle(.cancel, by: .user("alice"), at: at(5))
        #expect(machine.call.state == .cancelled)
        #expect(machine.call.legs?.map(\.state) == [.cancelled, .cancelled, .busy])
        #expect(machine.call.leg(of: "bob")?.endedBy == "alice")
        for callee in ["bob", "carol"] {
            #expect(events(effects, to: callee) == [.callCancelled] && pushes(effects, to: callee) == [.callCancelled])
        }
        #expect(effects.contains(.cancelRingTimeout))
        #expect(try machine.handle(.cancel, by: .user("alice"), at: at(6)) == [])
    }

    @Test func aCancelBeforeAnAcceptWinsAndTheAcceptIsRefused() throws {
        var (machine, _) = group()
        _ = try machine.handle(.cancel, by: .user("alice"), at: at(5))
        let error = try #require(throws: CallRuleError.self) {
            try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(5))
        }
        #expect(error.isStateConflict && error.state == .cancelled && error.legState == .cancelled)
    }

    @Test func anAcceptBeforeACancelWinsAndTheCancelIsRefused() throws {
        var (machine, _) = group()
        _ = try machine.handle(.accept(deviceID: "carol-0"), by: .user("carol"), at: at(5))
        let error = try #require(throws: CallRuleError.self) {
            try machine.handle(.cancel, by: .user("alice"), at: at(5))
        }
        #expect(error.isStateConflict && error.state == .accepted)
        #expect(throws: CallRuleError.self) { try machine.handle(.cancel, by: .user("carol"), at: at(6)) }
    }

    @Test func aCalleeLeavesWithoutEndingTheCallAndTheLastToLeaveEndsIt() throws {
        var (machine, _) = group(policy: .allMayJoin)
        _ = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(2))
        _ = try machine.handle(.accept(deviceID: "carol-0"), by: .user("carol"), at: at(3))
        let left = try machine.handle(.end, by: .user("bob"), at: at(60))
        #expect(machine.legState("bob") == .left && machine.call.state == .accepted)
        #expect(events(left, to: "bob") == [.callEnded] && events(left, to: "alice") == [.callUpdated])
        #expect(events(left, to: "carol") == [.callUpdated])
        #expect(left.contains(.stopWatchingLeg(userID: "bob")))
        #expect(try machine.handle(.end, by: .user("bob"), at: at(61)) == [])
        // Dave still rings when the last callee in the call leaves: the call ends and his ringing stops.
        let last = try machine.handle(.end, by: .user("carol"), at: at(70))
        #expect(machine.call.state == .ended && machine.call.endedBy == "carol")
        #expect(machine.legState("dave") == .cancelled && machine.call.leg(of: "dave")?.endedBy == nil)
        #expect(events(last, to: "alice") == [.callEnded] && events(last, to: "carol") == [.callEnded])
        #expect(events(last, to: "dave") == [.callCancelled] && pushes(last, to: "dave") == [.callCancelled])
        #expect(last.contains(.stopWatchingCall) && last.contains(.cancelRingTimeout))
    }

    @Test func theCallersEndEndsItForEveryone() throws {
        var (machine, _) = group(policy: .allMayJoin)
        _ = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(2))
        let effects = try machine.handle(.end, by: .user("alice"), at: at(30))
        #expect(machine.call.state == .ended && machine.call.endedBy == "alice")
        #expect(machine.call.legs?.map(\.state) == [.left, .cancelled, .cancelled])
        #expect(events(effects, to: "bob") == [.callEnded] && events(effects, to: "carol") == [.callCancelled])
        #expect(machine.call.leg(of: "carol")?.endedBy == "alice")
        #expect(effects.contains(.stopWatchingLeg(userID: "bob")) && effects.contains(.stopWatchingCall))
    }

    @Test func endingARingingCallOrLeavingARingingLegIsAConflict() throws {
        var (machine, _) = group()
        #expect(throws: CallRuleError.self) { try machine.handle(.end, by: .user("alice"), at: at(2)) }
        let error = try #require(throws: CallRuleError.self) {
            try machine.handle(.end, by: .user("bob"), at: at(2))
        }
        #expect(error.detail.contains("decline") && error.legState == .ringing)
    }

    @Test func theServerEndsASilentCallOrOneCalleesSilentLeg() throws {
        var (machine, _) = group(policy: .allMayJoin)
        _ = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(2))
        _ = try machine.handle(.accept(deviceID: "carol-0"), by: .user("carol"), at: at(3))
        let lost = try machine.handle(.legConnectionLost(userID: "bob"), by: .system, at: at(200))
        #expect(machine.legState("bob") == .left && machine.call.leg(of: "bob")?.endedBy == nil)
        #expect(machine.call.state == .accepted && events(lost, to: "alice") == [.callUpdated])
        #expect(throws: CallRuleError.self) {
            try machine.handle(.legConnectionLost(userID: "carol"), by: .user("alice"), at: at(200))
        }
        _ = try machine.handle(.legConnectionLost(userID: "carol"), by: .system, at: at(300))
        #expect(machine.call.state == .ended && machine.call.endReason == .connectionLost)
        #expect(machine.view(for: "carol").endReason == .connectionLost)
        #expect(machine.view(for: "bob").endReason == nil)

        var (whole, _) = group()
        _ = try whole.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(2))
        _ = try whole.handle(.maximumDurationReached, by: .system, at: at(14_400))
        #expect(whole.call.endReason == .maximumDuration && whole.legState("bob") == .left)
    }

    @Test func eachLegRingsOutAtItsOwnDeadlineAndALateAcceptIsRefused() throws {
        var (machine, _) = group([invitee("bob")])
        let more = RingMore(invitees: [invitee("carol")], ringTimeout: 45, maximumLegs: 16)
        _ = try machine.handle(.ringMore(more), by: .user("alice"), at: at(20))
        #expect(machine.call.leg(of: "carol")?.expiresAt == at(65) && machine.call.expiresAt == at(65))
        // Bob's deadline passed with no timer fired yet: his accept meets the ring-out first.
        let error = try #require(throws: CallRuleError.self) {
            try machine.apply(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(46))
        }
        #expect(error.isStateConflict && error.legState == .unanswered)
        let out = try machine.apply(.ringTimeout, by: .system, at: at(46))
        #expect(machine.legState("bob") == .unanswered && machine.legState("carol") == .ringing)
        #expect(out.contains(.scheduleRingTimeout(at: at(65))) && events(out, to: "alice") == [.callUpdated])
        _ = try machine.apply(.accept(deviceID: "carol-0"), by: .user("carol"), at: at(50))
        #expect(machine.call.state == .accepted)
    }
}

@Suite struct GroupCallRingMoreTests {
    @Test func ringingMoreWhileRingingJoinsTheRace() throws {
        var (machine, _) = group([invitee("bob")])
        let more = RingMore(invitees: [invitee("carol")], ringTimeout: 45, maximumLegs: 16)
        let effects = try machine.handle(.ringMore(more), by: .user("alice"), at: at(10))
        #expect(events(effects, to: "carol") == [.callIncoming])
        #expect(effects.contains(.pushLegIncoming(userID: "carol", deviceID: "carol-0")))
        #expect(events(effects, to: "bob") == [.callUpdated] && events(effects, to: "alice") == [.callUpdated])
        _ = try machine.handle(.accept(deviceID: "carol-0"), by: .user("carol"), at: at(12))
        #expect(machine.legState("bob") == .cancelled && machine.call.leg(of: "bob")?.endedBy == "carol")
    }

    @Test func ringingMoreWhileUpLetsTheNewCalleeJoinUnderFirstAnswer() throws {
        var (machine, _) = group([invitee("bob"), invitee("carol")])
        _ = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(5))
        // A callee in the call may ring more, as the caller may.
        let more = RingMore(invitees: [invitee("dave")], ringTimeout: 45, maximumLegs: 16)
        _ = try machine.handle(.ringMore(more), by: .user("bob"), at: at(60))
        #expect(machine.legState("dave") == .ringing && machine.call.leg(of: "dave")?.expiresAt == at(105))
        let joined = try machine.handle(.accept(deviceID: "dave-0"), by: .user("dave"), at: at(70))
        #expect(machine.legState("dave") == .accepted && machine.legState("bob") == .accepted)
        #expect(events(joined, to: "alice") == [.callUpdated])
    }

    @Test func aLiveLegRungAgainRingsNobodyAndAnEndedOneIsRefused() throws {
        var (machine, _) = group([invitee("bob"), invitee("carol")])
        _ = try machine.handle(.decline(deviceID: "carol-0"), by: .user("carol"), at: at(2))
        let again = RingMore(invitees: [invitee("bob")], ringTimeout: 45, maximumLegs: 16)
        #expect(try machine.handle(.ringMore(again), by: .user("alice"), at: at(3)) == [])
        let before = machine
        let refused = RingMore(invitees: [invitee("dave"), invitee("carol")], ringTimeout: 45, maximumLegs: 16)
        let error = try #require(throws: CallRuleError.self) {
            try machine.handle(.ringMore(refused), by: .user("alice"), at: at(3))
        }
        #expect(error.isCalleeAlreadyRung && error.callees == ["carol"])
        #expect(machine == before)
    }

    @Test func ringMoreIsForTheCallerOrACalleeInTheCallWhileItIsLive() throws {
        var (machine, _) = group([invitee("bob"), invitee("carol")])
        let more = RingMore(invitees: [invitee("dave")], ringTimeout: 45, maximumLegs: 16)
        let ringingCallee = try #require(throws: CallRuleError.self) {
            try machine.handle(.ringMore(more), by: .user("bob"), at: at(2))
        }
        #expect(ringingCallee.isWrongParty && ringingCallee.legState == .ringing)
        #expect(throws: CallRuleError.notParticipant(state: .ringing)) {
            try machine.handle(.ringMore(more), by: .user("mallory"), at: at(2))
        }
        _ = try machine.handle(.cancel, by: .user("alice"), at: at(3))
        let over = try #require(throws: CallRuleError.self) {
            try machine.handle(.ringMore(more), by: .user("alice"), at: at(4))
        }
        #expect(over.isStateConflict && over.state == .cancelled)
    }

    @Test func ringMoreStopsAtTheLimitOnLegs() throws {
        var (machine, _) = group([invitee("bob"), invitee("carol")])
        let more = RingMore(invitees: [invitee("dave"), invitee("erin")], ringTimeout: 45, maximumLegs: 3)
        let error = try #require(throws: CallRuleError.self) {
            try machine.handle(.ringMore(more), by: .user("alice"), at: at(2))
        }
        #expect(error.isTooManyCallees && error.detail.contains("3"))
    }

    @Test func ringingMoreIntoAnAccepted1to1CallMakesItAGroupCall() throws {
        var (machine, _) = CallMachine.invite(
            callID: "c", caller: alice, callee: Party(id: "bob", name: "Bob"), hasVideo: false,
            calleeDevices: [CalleeDevice(id: "bob-0", platform: .ios, canBeWoken: true)], calleeBusy: false, now: t0,
            ringTimeout: 45)
        _ = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(3))
        let more = RingMore(invitees: [invitee("carol")], ringTimeout: 45, maximumLegs: 16)
        let effects = try machine.handle(.ringMore(more), by: .user("alice"), at: at(30))
        #expect(machine.call.isGroup && machine.call.answerPolicy == .firstAnswer)
        #expect(machine.call.legs?.map(\.state) == [.accepted, .ringing])
        #expect(machine.call.leg(of: "bob")?.acceptedDeviceID == "bob-0")
        #expect(effects.first == .watchLeg(userID: "bob", acceptedAt: at(3)))
        #expect(events(effects, to: "bob") == [.callUpdated] && events(effects, to: "carol") == [.callIncoming])
        // Bob hanging up now only leaves: Carol may still join.
        _ = try machine.handle(.accept(deviceID: "carol-0"), by: .user("carol"), at: at(40))
        _ = try machine.handle(.end, by: .user("bob"), at: at(50))
        #expect(machine.call.state == .accepted && machine.legState("carol") == .accepted)
    }

    /// Found by review: the converted leg lost that bob's phone had rung, so carol's ring was the call's "first".
    @Test func aRinging1to1CallRungMoreTellsTheCallerItRangOnlyOnce() throws {
        var (machine, _) = CallMachine.invite(
            callID: "c", caller: alice, callee: Party(id: "bob", name: "Bob"), hasVideo: false,
            calleeDevices: [CalleeDevice(id: "bob-0", platform: .ios, canBeWoken: true)], calleeBusy: false, now: t0,
            ringTimeout: 45)
        #expect(
            events(try machine.handle(.ringing(deviceID: "bob-0"), by: .user("bob"), at: at(1)), to: "alice") == [
                .callRinging
            ])
        let more = RingMore(invitees: [invitee("carol")], ringTimeout: 45, maximumLegs: 16)
        _ = try machine.handle(.ringMore(more), by: .user("alice"), at: at(5))
        #expect(machine.call.leg(of: "bob")?.ringingAt == at(5))
        let carolRings = try machine.handle(.ringing(deviceID: "carol-0"), by: .user("carol"), at: at(6))
        #expect(events(carolRings, to: "alice") == [.callUpdated])
    }

    /// Found by review: under all_may_join a late ring told the caller `call.ringing` about an accepted call.
    @Test func aRingAfterTheCallWasAcceptedIsAnUpdateNotTheCallsRinging() throws {
        var (machine, _) = group(policy: .allMayJoin)
        _ = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(2))
        let daveRings = try machine.handle(.ringing(deviceID: "dave-0"), by: .user("dave"), at: at(3))
        #expect(events(daveRings, to: "alice") == [.callUpdated])
        #expect(machine.call.leg(of: "dave")?.ringingAt == at(3))
    }

    @Test func aRingMoreThatRingsNobodyLeavesA1to1CallAsItWas() throws {
        var (machine, _) = CallMachine.invite(
            callID: "c", caller: alice, callee: Party(id: "bob"), hasVideo: false, calleeDevices: [],
            calleeOnline: true, calleeBusy: false, now: t0, ringTimeout: 45)
        let before = machine
        let more = RingMore(invitees: [Invitee(party: alice, devices: [])], ringTimeout: 45, maximumLegs: 16)
        #expect(try machine.handle(.ringMore(more), by: .user("alice"), at: at(1)) == [])
        #expect(machine == before && !machine.call.isGroup)
    }
}

@Suite struct GroupCallViewTests {
    @Test func eachCalleeReadsTheirLegAndTheCallerTheCall() throws {
        var (machine, _) = group()
        _ = try machine.handle(.decline(deviceID: "dave-0"), by: .user("dave"), at: at(2))
        _ = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(3))
        #expect(machine.view(for: "alice") == machine.call)
        let bob = machine.view(for: "bob")
        #expect(bob.callee.id == "bob" && bob.state == .accepted && bob.acceptedDeviceID == "bob-0")
        // Carol lost the race: she reads an answer by someone else, as a 1:1 callee's other devices do.
        let carol = machine.view(for: "carol")
        #expect(carol.state == .accepted && carol.acceptedDeviceID == nil && carol.acceptedAt == at(3))
        #expect(carol.endedAt == nil && carol.endedBy == nil && carol.callee.id == "carol")
        let dave = machine.view(for: "dave")
        #expect(
            dave.state == .declined && dave.endedBy == "dave"
                && dave.legs?.map(\.state) == machine.call.legs?.map(\.state))
        // Found by review: only the caller learns which of bob's phones answered; the other callees read the leg
        // without it, and bob reads his own.
        #expect(dave.leg(of: "bob")?.acceptedDeviceID == nil && dave.leg(of: "bob")?.acceptedAt == at(3))
        #expect(bob.leg(of: "bob")?.acceptedDeviceID == "bob-0")
        #expect(machine.view(for: "alice").leg(of: "bob")?.acceptedDeviceID == "bob-0")
        _ = try machine.handle(.end, by: .user("bob"), at: at(9))
        #expect(machine.view(for: "bob").state == .ended && machine.call.state == .ended)
        #expect(machine.view(for: "mallory") == machine.call)
    }

    /// Found by the group race explorer: the loser of a first_answer race read `accepted` after the call had ended, so
    /// the call looked live to her forever.
    @Test func aCalleeWhoLostTheRaceReadsTheCallEndedOnceItEnds() throws {
        var (machine, _) = group()
        _ = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(3))
        _ = try machine.handle(.end, by: .user("alice"), at: at(9))
        let carol = machine.view(for: "carol")
        #expect(carol.state == .ended && carol.endedAt == at(9) && carol.endedBy == "alice")
        #expect(carol.acceptedAt == at(3) && carol.acceptedDeviceID == nil && carol.callee.id == "carol")
        #expect(machine.call.legs?.first { $0.user.id == "carol" }?.state == .cancelled)
    }

    @Test func aCalleesRefusalCarriesTheirViewAndLegState() throws {
        var (machine, _) = group(policy: .allMayJoin)
        _ = try machine.handle(.accept(deviceID: "bob-0"), by: .user("bob"), at: at(2))
        _ = try machine.handle(.accept(deviceID: "carol-0"), by: .user("carol"), at: at(3))
        _ = try machine.handle(.end, by: .user("bob"), at: at(4))
        let error = try #require(throws: CallRuleError.self) {
            try machine.handle(.decline(deviceID: "bob-0"), by: .user("bob"), at: at(5))
        }
        #expect(error.state == .ended && error.legState == .left && machine.call.state == .accepted)
        #expect(throws: CallRuleError.self) {
            try machine.handle(.accept(deviceID: "alice-0"), by: .user("alice"), at: at(5))
        }
    }
}
