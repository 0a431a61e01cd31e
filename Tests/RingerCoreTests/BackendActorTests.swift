import Foundation
import RingerCore
import RingerWire
import Testing

// The app's backend as an actor of `CallMachine` (decision 0009 §2): it may cancel a ringing call and end any call;
// it is never a party, so it accepts, declines and rings nobody.

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

private func oneToOne() -> CallMachine {
    CallMachine.invite(
        callID: "c1", caller: Party(id: "alice"), callee: Party(id: "bob"), hasVideo: false,
        calleeDevices: [CalleeDevice(id: "bob-iphone", platform: .ios, canBeWoken: true)], calleeBusy: false, now: t0,
        ringTimeout: 45
    ).0
}

private func group() -> CallMachine {
    let invitees = ["bob", "carol"].map { id in
        Invitee(party: Party(id: id), devices: [CalleeDevice(id: "\(id)-iphone", platform: .ios, canBeWoken: true)])
    }
    return CallMachine.inviteGroup(
        callID: "g1", caller: Party(id: "alice"), invitees: invitees, policy: .firstAnswer, hasVideo: false, now: t0,
        ringTimeout: 45
    ).0
}

private func published(_ effects: [CallEffect], to user: String) -> [EventType] {
    effects.compactMap { effect in
        guard case .publish(let type, let recipient) = effect, recipient.userID == user else { return nil }
        return type
    }
}

@Suite struct BackendActorTests {
    @Test func theBackendsCancelStopsTheRingingNamesNobodyAndTellsTheCallerToo() throws {
        var machine = oneToOne()
        let effects = try machine.apply(.cancel, by: .backend, at: t0.addingTimeInterval(3))
        #expect(machine.call.state == .cancelled && machine.call.endedBy == nil)
        #expect(published(effects, to: "bob") == [.callCancelled])
        #expect(published(effects, to: "alice") == [.callCancelled])
        #expect(effects.contains(.pushUpdate(.callCancelled, to: .user("bob"))))
        #expect(effects.contains(.cancelRingTimeout))
        // Again: nothing more.
        #expect(try machine.apply(.cancel, by: .backend, at: t0.addingTimeInterval(4)).isEmpty)
    }

    @Test func theBackendCannotCancelAnAnsweredCallButEndsIt() throws {
        var machine = oneToOne()
        _ = try machine.apply(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: t0.addingTimeInterval(2))
        #expect(throws: CallRuleError.self) { try machine.apply(.cancel, by: .backend, at: t0.addingTimeInterval(3)) }
        let effects = try machine.apply(.end, by: .backend, at: t0.addingTimeInterval(9))
        #expect(
            machine.call.state == .ended && machine.call.endReason == .endedByBackend && machine.call.endedBy == nil)
        #expect(published(effects, to: "alice") == [.callEnded] && published(effects, to: "bob") == [.callEnded])
        #expect(effects.contains(.stopWatchingCall))
        #expect(try machine.apply(.end, by: .backend, at: t0.addingTimeInterval(10)).isEmpty)
    }

    @Test func theBackendsEndOfARingingCallIsACancelAndOfACallOverIsNothing() throws {
        var ringing = oneToOne()
        _ = try ringing.apply(.end, by: .backend, at: t0.addingTimeInterval(1))
        #expect(ringing.call.state == .cancelled && ringing.call.endReason == nil)
        var declined = oneToOne()
        _ = try declined.apply(.decline(deviceID: "bob-iphone"), by: .user("bob"), at: t0.addingTimeInterval(1))
        #expect(try declined.apply(.end, by: .backend, at: t0.addingTimeInterval(2)).isEmpty)
        #expect(declined.call.state == .declined)
    }

    @Test func theBackendIsNoPartyOfTheCall() {
        var machine = oneToOne()
        for input in [
            CallInput.accept(deviceID: "bob-iphone"), .decline(deviceID: "bob-iphone"), .ringing(deviceID: "x"),
        ] {
            #expect(throws: CallRuleError.self) { try machine.apply(input, by: .backend, at: t0.addingTimeInterval(1)) }
        }
        #expect(machine.call.state == .ringing)
    }

    @Test func theBackendCancelsAGroupCallsEveryRingingLeg() throws {
        var machine = group()
        let effects = try machine.apply(.cancel, by: .backend, at: t0.addingTimeInterval(2))
        #expect(machine.call.state == .cancelled && machine.call.endedBy == nil)
        #expect(machine.call.legs?.allSatisfy { $0.state == .cancelled && $0.endedBy == nil } == true)
        #expect(published(effects, to: "alice") == [.callCancelled])
        #expect(published(effects, to: "carol") == [.callCancelled])
    }

    @Test func theBackendEndsAnAnsweredGroupCallForEveryone() throws {
        var machine = group()
        _ = try machine.apply(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: t0.addingTimeInterval(2))
        let effects = try machine.apply(.end, by: .backend, at: t0.addingTimeInterval(30))
        #expect(machine.call.state == .ended && machine.call.endReason == .endedByBackend)
        #expect(machine.call.leg(of: "bob")?.state == .left)
        #expect(published(effects, to: "bob") == [.callEnded] && published(effects, to: "alice") == [.callEnded])
    }

    @Test func aMissedCallIsOneTheCalleeNeverAnsweredAndDidNotDecline() throws {
        var unanswered = oneToOne()
        _ = try unanswered.apply(.ringTimeout, by: .system, at: t0.addingTimeInterval(45))
        #expect(unanswered.isMissed(by: "bob") && !unanswered.isMissed(by: "alice") && !unanswered.isMissed(by: "eve"))
        var declined = oneToOne()
        _ = try declined.apply(.decline(deviceID: "bob-iphone"), by: .user("bob"), at: t0.addingTimeInterval(1))
        #expect(!declined.isMissed(by: "bob"))
        // A group callee whose leg stopped because another answered did not miss the call; one left ringing when the
        // caller gave up did.
        var answered = group()
        _ = try answered.apply(.accept(deviceID: "bob-iphone"), by: .user("bob"), at: t0.addingTimeInterval(2))
        #expect(!answered.isMissed(by: "carol") && !answered.isMissed(by: "bob"))
        var cancelled = group()
        _ = try cancelled.apply(.cancel, by: .user("alice"), at: t0.addingTimeInterval(2))
        #expect(cancelled.isMissed(by: "carol"))
    }
}
