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
    CallMachine.invite(callID: "c1", caller: alice, callee: bob, hasVideo: false, calleeDevices: devices,
                       calleeBusy: false, now: t0, ringTimeout: 45)
}

@Suite struct CallMachineInviteTests {
    @Test func inviteRingsEveryVoIPDeviceAndSchedulesTheDeadline() {
        let (machine, effects) = ringingCall()
        #expect(machine.call.state == .ringing)
        #expect(machine.call.expiresAt == t0.addingTimeInterval(45))
        #expect(effects == [.publish(.callIncoming, to: .user("bob")),
                            .pushIncomingCall(deviceID: "bob-iphone"), .pushIncomingCall(deviceID: "bob-ipad"),
                            .scheduleRingTimeout(at: t0.addingTimeInterval(45))])
    }

    @Test func inviteToBusyCalleeEndsBusyAtOnceWithoutPushing() {
        let (machine, effects) = CallMachine.invite(callID: "c1", caller: alice, callee: bob, hasVideo: false,
                                                    calleeDevices: [bobPhone], calleeBusy: true, now: t0,
                                                    ringTimeout: 45)
        #expect(machine.call.state == .busy)
        #expect(machine.call.endedAt == t0)
        #expect(!effects.contains { if case .pushIncomingCall = $0 { true } else { false } })
    }

    @Test func inviteToCalleeWithNoDeviceFailsWithAReason() {
        let (machine, effects) = CallMachine.invite(callID: "c1", caller: alice, callee: bob, hasVideo: false,
                                                    calleeDevices: [], calleeBusy: false, now: t0, ringTimeout: 45)
        #expect(machine.call.state == .failed)
        #expect(machine.call.failureReason?.contains("bob") == true)
        #expect(effects == [.publish(.callEnded, to: .user("alice"))])
    }

    @Test func inviteToCalleeOnlineOnWebSocketRingsWithoutPush() {
        let (machine, effects) = CallMachine.invite(callID: "c1", caller: alice, callee: bob, hasVideo: true,
                                                    calleeDevices: [], calleeOnline: true, calleeBusy: false,
                                                    now: t0, ringTimeout: 45)
        #expect(machine.call.state == .ringing)
        #expect(effects.first == .publish(.callIncoming, to: .user("bob")))
        #expect(!effects.contains { if case .pushIncomingCall = $0 { true } else { false } })
    }

    @Test func cancelTellsEveryCalleeDeviceBySocketAndNoticePushNeverVoIP() throws {
        var (machine, _) = ringingCall()
        let effects = try machine.handle(.cancel, by: .user("alice"), at: t0)
        #expect(effects == [.cancelRingTimeout, .publish(.callCancelled, to: .user("bob")),
                            .pushNotice(.callCancelled, to: .user("bob"))])
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
        #expect(try machine.handle(.ringing(deviceID: "bob-iphone"), by: .user("bob"), at: t0)
            == [.publish(.callRinging, to: .user("alice"))])
        #expect(try machine.handle(.ringing(deviceID: "bob-ipad"), by: .user("bob"), at: t0).isEmpty)
        #expect(try machine.handle(.ringing(deviceID: "bob-iphone"), by: .user("bob"), at: t0).isEmpty)
        #expect(machine.ringingDeviceIds == ["bob-iphone", "bob-ipad"])
    }

    @Test func acceptTellsCallerAndOtherDevicesAndStopsTheTimer() throws {
        var (machine, _) = ringingCall()
        let later = t0.addingTimeInterval(3)
        let effects = try machine.handle(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: later)
        #expect(machine.call.state == .accepted)
        #expect(machine.call.acceptedAt == later)
        #expect(machine.call.acceptedDeviceId == "bob-iphone")
        let others = EventRecipient.userExceptDevice("bob", deviceID: "bob-iphone")
        #expect(effects == [.cancelRingTimeout, .publish(.callAccepted, to: .user("alice")),
                            .publish(.callAnsweredElsewhere, to: others), .pushNotice(.callAnsweredElsewhere, to: others)])
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
        #expect(effects.contains(.pushNotice(.callDeclinedElsewhere, to: .userExceptDevice("bob", deviceID: "bob-ipad"))))
        #expect(try machine.handle(.decline(deviceID: "bob-ipad"), by: .user("bob"), at: t0).isEmpty)
    }

    @Test func cancelAfterAcceptIsAConflictAndEndWorks() throws {
        var (machine, _) = ringingCall()
        _ = try machine.handle(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: t0)
        #expect(throws: CallRuleError.self) { try machine.handle(.cancel, by: .user("alice"), at: t0) }
        let effects = try machine.handle(.end, by: .user("alice"), at: t0.addingTimeInterval(60))
        #expect(machine.call.state == .ended)
        #expect(machine.call.endedBy == "alice")
        #expect(effects == [.publish(.callEnded, to: .user("alice")), .publish(.callEnded, to: .user("bob"))])
        #expect(try machine.handle(.end, by: .user("bob"), at: t0.addingTimeInterval(61)).isEmpty)
        #expect(machine.call.endedBy == "alice")
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
        #expect(effects == [.publish(.callUnanswered, to: .user("alice")), .publish(.callUnanswered, to: .user("bob")),
                            .pushNotice(.callUnanswered, to: .user("bob"))])
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
