import Foundation
import RingerCore
import RingerWire
import Testing

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
private let alice = Party(id: "alice", name: "Alice")
private let bob = Party(id: "bob", name: "Bob")
private let bobPhone = CalleeDevice(id: "bob-iphone", platform: .ios, canBeWoken: true)
private let bobPad = CalleeDevice(id: "bob-ipad", platform: .ios, canBeWoken: true)

private func ringingCall(devices: [CalleeDevice] = [bobPhone, bobPad]) -> (CallMachine, [CallEffect]) {
    CallMachine.invite(
        callID: "c1", caller: alice, callee: bob, hasVideo: false, calleeDevices: devices,
        calleeBusy: false, now: t0, ringTimeout: 45)
}

@Suite struct CallMachineInviteTests {
    @Test func inviteRingsEveryVoIPDeviceAndSchedulesTheDeadline() {
        let (machine, effects) = ringingCall()
        #expect(machine.call.state == .ringing)
        #expect(machine.call.expiresAt == t0.addingTimeInterval(45))
        #expect(
            effects == [
                .publish(.callIncoming, to: .user("bob")),
                .pushIncomingCall(deviceID: "bob-iphone"), .pushIncomingCall(deviceID: "bob-ipad"),
                .scheduleRingTimeout(at: t0.addingTimeInterval(45)),
            ])
    }

    @Test func inviteToBusyCalleeEndsBusyAtOnceWithoutPushing() {
        let (machine, effects) = CallMachine.invite(
            callID: "c1", caller: alice, callee: bob, hasVideo: false,
            calleeDevices: [bobPhone], calleeBusy: true, now: t0,
            ringTimeout: 45)
        #expect(machine.call.state == .busy)
        #expect(machine.call.endedAt == t0)
        #expect(!effects.contains { if case .pushIncomingCall = $0 { true } else { false } })
    }

    @Test func inviteToCalleeWithNoDeviceFailsWithAReason() {
        let (machine, effects) = CallMachine.invite(
            callID: "c1", caller: alice, callee: bob, hasVideo: false,
            calleeDevices: [], calleeBusy: false, now: t0, ringTimeout: 45)
        #expect(machine.call.state == .failed)
        #expect(machine.call.failureReason?.contains("bob") == true)
        #expect(effects == [.publish(.callEnded, to: .user("alice"))])
    }

    @Test func inviteToCalleeOnlineOnWebSocketRingsWithoutPush() {
        let (machine, effects) = CallMachine.invite(
            callID: "c1", caller: alice, callee: bob, hasVideo: true,
            calleeDevices: [], calleeOnline: true, calleeBusy: false,
            now: t0, ringTimeout: 45)
        #expect(machine.call.state == .ringing)
        #expect(effects.first == .publish(.callIncoming, to: .user("bob")))
        #expect(!effects.contains { if case .pushIncomingCall = $0 { true } else { false } })
    }

    @Test func cancelTellsEveryCalleeDeviceBySocketAndUpdatePushNeverVoIP() throws {
        var (machine, _) = ringingCall()
        let effects = try machine.handle(.cancel, by: .user("alice"), at: t0)
        #expect(
            effects == [
                .cancelRingTimeout, .publish(.callCancelled, to: .user("bob")),
                .pushUpdate(.callCancelled, to: .user("bob")),
            ])
    }

    @Test func onlyIncomingCallsAreEverPushedAsVoIP() throws {
        var (machine, _) = ringingCall()
        var effects: [CallEffect] = []
        effects += try machine.handle(.ringing(deviceID: "bob-iphone"), by: .user("bob"), at: t0)
        effects += try machine.handle(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: t0)
        effects += try machine.handle(.end, by: .user("alice"), at: t0)
        #expect(!effects.contains { if case .pushIncomingCall = $0 { true } else { false } })
    }
}

@Suite struct CallMachineTransitionTests {
    @Test func firstRingingAckTellsTheCallerOnce() throws {
        var (machine, _) = ringingCall()
        #expect(
            try machine.handle(.ringing(deviceID: "bob-iphone"), by: .user("bob"), at: t0)
                == [.publish(.callRinging, to: .user("alice"))])
        #expect(try machine.handle(.ringing(deviceID: "bob-ipad"), by: .user("bob"), at: t0).isEmpty)
        #expect(try machine.handle(.ringing(deviceID: "bob-iphone"), by: .user("bob"), at: t0).isEmpty)
        #expect(machine.ringingDeviceIDs == ["bob-iphone", "bob-ipad"])
    }

    @Test func acceptTellsCallerAndOtherDevicesAndStopsTheTimer() throws {
        var (machine, _) = ringingCall()
        let later = t0.addingTimeInterval(3)
        let effects = try machine.handle(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: later)
        #expect(machine.call.state == .accepted)
        #expect(machine.call.acceptedAt == later)
        #expect(machine.call.acceptedDeviceID == "bob-iphone")
        let others = EventRecipient.userExceptDevice("bob", deviceID: "bob-iphone")
        #expect(
            effects == [
                .cancelRingTimeout, .watchAcceptedCall(acceptedAt: later), .publish(.callAccepted, to: .user("alice")),
                .publish(.callAnsweredElsewhere, to: others),
                .pushUpdate(.callAnsweredElsewhere, to: others),
            ])
    }

    @Test func acceptTwiceFromTheSameDeviceIsIdempotent() throws {
        var (machine, _) = ringingCall()
        _ = try machine.handle(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: t0)
        let before = machine
        #expect(try machine.handle(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: t0).isEmpty)
        #expect(machine == before)
    }

    @Test func secondDeviceAcceptingLosesWithAnsweredElsewhere() throws {
        var (machine, _) = ringingCall()
        _ = try machine.handle(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: t0)
        let error = #expect(throws: CallRuleError.self) {
            try machine.handle(.accept(deviceID: "bob-ipad"), by: .user("bob"), at: t0)
        }
        #expect(error?.isAnsweredElsewhere == true)
    }

    @Test func acceptAfterCancelIsAConflictCarryingTheState() throws {
        var (machine, _) = ringingCall()
        _ = try machine.handle(.cancel, by: .user("alice"), at: t0)
        let error = #expect(throws: CallRuleError.self) {
            try machine.handle(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: t0)
        }
        #expect(error?.isStateConflict == true)
        #expect(error?.state == .cancelled)
    }

    @Test func callerCannotAcceptAndCalleeCannotCancel() throws {
        var (machine, _) = ringingCall()
        let before = machine
        #expect(throws: CallRuleError.self) {
            try machine.handle(.accept(deviceID: "alice-phone"), by: .user("alice"), at: t0)
        }
        #expect(throws: CallRuleError.self) { try machine.handle(.cancel, by: .user("bob"), at: t0) }
        #expect(machine == before)
    }

    @Test func strangerIsNotAParticipant() throws {
        var (machine, _) = ringingCall()
        let error = #expect(throws: CallRuleError.self) { try machine.handle(.end, by: .user("mallory"), at: t0) }
        #expect(error?.isNotParticipant == true)
    }

    @Test func declineEndsTheCallAndTellsTheOtherDevices() throws {
        var (machine, _) = ringingCall()
        let effects = try machine.handle(.decline(deviceID: "bob-ipad"), by: .user("bob"), at: t0)
        #expect(machine.call.state == .declined)
        #expect(machine.call.endedBy == "bob")
        #expect(effects.contains(.publish(.callDeclined, to: .user("alice"))))
        #expect(effects.contains(.publish(.callDeclinedElsewhere, to: .userExceptDevice("bob", deviceID: "bob-ipad"))))
        #expect(
            effects.contains(
                .pushUpdate(.callDeclinedElsewhere, to: .userExceptDevice("bob", deviceID: "bob-ipad"))))
        #expect(try machine.handle(.decline(deviceID: "bob-ipad"), by: .user("bob"), at: t0).isEmpty)
    }

    @Test func cancelAfterAcceptIsAConflictAndEndWorks() throws {
        var (machine, _) = ringingCall()
        _ = try machine.handle(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: t0)
        #expect(throws: CallRuleError.self) { try machine.handle(.cancel, by: .user("alice"), at: t0) }
        let effects = try machine.handle(.end, by: .user("alice"), at: t0.addingTimeInterval(60))
        #expect(machine.call.state == .ended)
        #expect(machine.call.endedBy == "alice")
        #expect(
            effects == [
                .stopWatchingCall, .publish(.callEnded, to: .user("alice")), .publish(.callEnded, to: .user("bob")),
            ])
        #expect(try machine.handle(.end, by: .user("bob"), at: t0.addingTimeInterval(61)).isEmpty)
        #expect(machine.call.endedBy == "alice")
        #expect(machine.call.endReason == nil)
    }

    @Test func endBeforeAnswerIsAConflict() throws {
        var (machine, _) = ringingCall()
        #expect(throws: CallRuleError.self) { try machine.handle(.end, by: .user("alice"), at: t0) }
        #expect(machine.call.state == .ringing)
    }

    @Test func ringTimeoutFiresOnlyAtTheDeadlineAndOnlyWhileRinging() throws {
        var (machine, _) = ringingCall()
        #expect(try machine.handle(.ringTimeout, by: .system, at: t0.addingTimeInterval(44)).isEmpty)
        #expect(machine.call.state == .ringing)
        let effects = try machine.handle(.ringTimeout, by: .system, at: t0.addingTimeInterval(45))
        #expect(machine.call.state == .unanswered)
        #expect(
            effects == [
                .publish(.callUnanswered, to: .user("alice")), .publish(.callUnanswered, to: .user("bob")),
                .pushUpdate(.callUnanswered, to: .user("bob")),
            ])
        var answered = ringingCall().0
        _ = try answered.handle(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: t0)
        #expect(try answered.handle(.ringTimeout, by: .system, at: t0.addingTimeInterval(50)).isEmpty)
        #expect(answered.call.state == .accepted)
    }

    @Test func machineSurvivesAJSONRoundTrip() throws {
        var (machine, _) = ringingCall()
        _ = try machine.handle(.ringing(deviceID: "bob-iphone"), by: .user("bob"), at: t0)
        let data = try RingerJSON.encode(machine)
        #expect(try RingerJSON.decode(CallMachine.self, from: data) == machine)
    }
}

/// The server's own ends of an accepted call (issue 12, item 4).
@Suite struct CallMachineSystemEndTests {
    private func acceptedCall() throws -> CallMachine {
        var (machine, _) = ringingCall()
        _ = try machine.handle(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: t0.addingTimeInterval(2))
        return machine
    }

    @Test func aLostConnectionEndsAnAcceptedCallWithItsReasonAndTellsBothParties() throws {
        var machine = try acceptedCall()
        let at = t0.addingTimeInterval(300)
        let effects = try machine.handle(.connectionLost, by: .system, at: at)
        #expect(machine.call.state == .ended)
        #expect(machine.call.endReason == .connectionLost)
        #expect(machine.call.endedBy == nil)
        #expect(machine.call.endedAt == at)
        #expect(
            effects == [
                .stopWatchingCall, .publish(.callEnded, to: .user("alice")), .publish(.callEnded, to: .user("bob")),
            ])
    }

    @Test func theMaximumDurationEndsAnAcceptedCallWithItsOwnReason() throws {
        var machine = try acceptedCall()
        let effects = try machine.handle(.maximumDurationReached, by: .system, at: t0.addingTimeInterval(14402))
        #expect(machine.call.state == .ended)
        #expect(machine.call.endReason == .maximumDuration)
        #expect(effects.contains(.publish(.callEnded, to: .user("bob"))))
    }

    @Test func systemEndsChangeNothingOutsideAnAcceptedCall() throws {
        var (ringing, _) = ringingCall()
        #expect(try ringing.handle(.connectionLost, by: .system, at: t0).isEmpty)
        #expect(try ringing.handle(.maximumDurationReached, by: .system, at: t0).isEmpty)
        #expect(ringing.call.state == .ringing)
        var ended = try acceptedCall()
        _ = try ended.handle(.end, by: .user("alice"), at: t0.addingTimeInterval(9))
        let before = ended
        #expect(try ended.handle(.connectionLost, by: .system, at: t0.addingTimeInterval(500)).isEmpty)
        #expect(ended == before)
        #expect(ended.call.endedBy == "alice")
        #expect(ended.call.endReason == nil)
    }

    @Test func aParticipantCannotClaimTheConnectionWasLost() throws {
        var machine = try acceptedCall()
        let error = #expect(throws: CallRuleError.self) {
            try machine.handle(.connectionLost, by: .user("alice"), at: t0)
        }
        #expect(error?.isWrongParty == true)
        #expect(machine.call.state == .accepted)
    }

    @Test func anEndAfterTheServerEndedTheCallIsIdempotent() throws {
        var machine = try acceptedCall()
        _ = try machine.handle(.connectionLost, by: .system, at: t0.addingTimeInterval(200))
        #expect(try machine.handle(.end, by: .user("bob"), at: t0.addingTimeInterval(201)).isEmpty)
        #expect(machine.call.endReason == .connectionLost)
    }

    @Test func theEndReasonTravelsAsEndReasonInJSON() throws {
        var machine = try acceptedCall()
        _ = try machine.handle(.maximumDurationReached, by: .system, at: t0.addingTimeInterval(14402))
        let text = String(decoding: try RingerJSON.encode(machine.call), as: UTF8.self)
        #expect(text.contains(#""end_reason":"max_duration""#))
        #expect(try RingerJSON.decode(CallMachine.self, from: RingerJSON.encode(machine)) == machine)
    }
}

@Suite struct AcceptedCallWatchTests {
    private let watch = AcceptedCallWatch(idleLimit: 120, maximumDuration: 14400)

    private func watched(
        _ id: String = "c1", acceptedAt: Date = t0, lastHeard: Date = t0,
        online: Bool = false
    ) -> AcceptedCallWatch.Watched {
        .init(callID: id, acceptedAt: acceptedAt, lastHeard: lastHeard, partyOnline: online)
    }

    @Test func aSilentCallEndsAtTheIdleLimitAndNotBefore() {
        let before = watch.sweep([watched()], now: t0.addingTimeInterval(119))
        #expect(before.ends.isEmpty)
        #expect(before.lastHeard == ["c1": t0])
        #expect(before.nextDeadline == t0.addingTimeInterval(120))
        let at = watch.sweep([watched()], now: t0.addingTimeInterval(120))
        #expect(at.ends == [.init(callID: "c1", input: .connectionLost)])
        #expect(at.lastHeard.isEmpty)
        #expect(at.nextDeadline == nil)
    }

    @Test func aPartyOnlineMovesTheLastHeardTimeToNow() {
        let now = t0.addingTimeInterval(3600)
        let sweep = watch.sweep([watched(online: true)], now: now)
        #expect(sweep.ends.isEmpty)
        #expect(sweep.lastHeard == ["c1": now])
        #expect(sweep.nextDeadline == now.addingTimeInterval(120))
    }

    @Test func aSocketSeenAtThePreviousSweepCountsAsOpenUntilNow() {
        let now = t0.addingTimeInterval(130)
        let previous = t0.addingTimeInterval(120)
        let view = AcceptedCallWatch.Watched(
            callID: "c1", acceptedAt: t0, lastHeard: previous, partyOnline: false,
            wasOnline: true)
        let sweep = watch.sweep([view], now: now)
        #expect(sweep.ends.isEmpty)
        #expect(sweep.lastHeard == ["c1": now])
        #expect(sweep.nextDeadline == now.addingTimeInterval(120))
    }

    @Test func theMaximumDurationEndsACallEvenWithBothPartiesOnline() {
        let sweep = watch.sweep([watched(online: true)], now: t0.addingTimeInterval(14400))
        #expect(sweep.ends == [.init(callID: "c1", input: .maximumDurationReached)])
    }

    @Test func theMaximumDurationWinsWhenBothLimitsPassed() {
        let sweep = watch.sweep([watched()], now: t0.addingTimeInterval(20000))
        #expect(sweep.ends == [.init(callID: "c1", input: .maximumDurationReached)])
    }

    @Test func theNextDeadlineIsTheEarliestOfEveryKeptCall() {
        let now = t0.addingTimeInterval(14350)
        let sweep = watch.sweep(
            [
                watched("old", online: true),
                watched("new", acceptedAt: now, lastHeard: now.addingTimeInterval(-10)),
                watched("gone", acceptedAt: now, lastHeard: now.addingTimeInterval(-130)),
            ], now: now)
        #expect(sweep.ends == [.init(callID: "gone", input: .connectionLost)])
        #expect(Set(sweep.lastHeard.keys) == ["old", "new"])
        // "old" reaches its maximum duration (t0 + 14400) before "new" goes silent (now + 110).
        #expect(sweep.nextDeadline == t0.addingTimeInterval(14400))
    }

    @Test func aLastHeardTimeAheadOfTheSweepIsKept() {
        let later = t0.addingTimeInterval(50)
        let sweep = watch.sweep([watched(lastHeard: later, online: true)], now: t0.addingTimeInterval(40))
        #expect(sweep.lastHeard == ["c1": later])
    }
}

/// The rules the server applies to every stored call, once, in the machine (issue 28): the passed deadline, the
/// devices that may ring, who may see a call.
@Suite struct CallMachineServerRuleTests {
    @Test func aPassedRingDeadlineWinsOverAnAcceptWhoseTimerHasNotFired() throws {
        var machine = ringingCall().0
        let late = t0.addingTimeInterval(45.2)
        #expect(throws: CallRuleError.self) {
            try machine.apply(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: late)
        }
        // Refused as a whole: the ring-out is left for the timer (or the sweep), not stored with a failed accept.
        #expect(machine.call.state == .ringing)
        let effects = try machine.apply(.ringTimeout, by: .system, at: late)
        #expect(machine.call.state == .unanswered)
        #expect(effects.contains(.publish(.callUnanswered, to: .user("alice"))))
    }

    @Test func aPassedRingDeadlineEndsTheCallBeforeAnActionThatStillApplies() throws {
        var machine = ringingCall().0
        // The caller's cancel after the deadline: the call rang out first, and cancelling a call that is over
        // is refused with its state.
        let error = #expect(throws: CallRuleError.self) {
            try machine.apply(.cancel, by: .user("alice"), at: t0.addingTimeInterval(46))
        }
        #expect(error?.state == .unanswered)
        // Before the deadline the same input is applied as it is.
        let effects = try machine.apply(.accept(deviceID: "bob-ipad"), by: .user("bob"), at: t0.addingTimeInterval(44))
        #expect(machine.call.state == .accepted)
        #expect(effects.contains(.publish(.callAccepted, to: .user("alice"))))
    }

    @Test func theRingTimeoutAloneIsAppliedOnce() throws {
        var machine = ringingCall().0
        let effects = try machine.apply(.ringTimeout, by: .system, at: t0.addingTimeInterval(45))
        #expect(effects.filter { $0 == .publish(.callUnanswered, to: .user("alice")) }.count == 1)
    }

    @Test func theDevicesThatMayRingAreThoseWokenAndThoseThatSaidSo() throws {
        let sleeping = CalleeDevice(id: "bob-old-phone", platform: .android, canBeWoken: false)
        var machine = ringingCall(devices: [bobPhone, sleeping]).0
        #expect(machine.devicesThatMayRing == ["bob-iphone"])
        // A device without a push token still rings when its app is open on the socket and says so.
        _ = try machine.apply(.ringing(deviceID: "bob-laptop"), by: .user("bob"), at: t0.addingTimeInterval(1))
        #expect(machine.devicesThatMayRing == ["bob-iphone", "bob-laptop"])
    }

    @Test func onlyTheCallerAndTheCalleeAreParticipants() {
        let machine = ringingCall().0
        #expect(machine.isParticipant("alice"))
        #expect(machine.isParticipant("bob"))
        #expect(!machine.isParticipant("mallory"))
    }
}
