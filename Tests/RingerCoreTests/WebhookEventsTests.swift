import Foundation
import RingerCore
import RingerWire
import Testing

// The events a stored change of a call makes for the app's backend (decision 0009 §3), derived from the call before
// and after: one test a rule.

private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

private func oneToOne(busy: Bool = false, devices: Int = 2) -> CallMachine {
    CallMachine.invite(
        callID: "c1", caller: Party(id: "alice"), callee: Party(id: "bob"), hasVideo: false,
        calleeDevices: (0..<devices).map { CalleeDevice(id: "bob-\($0)", platform: .ios, canBeWoken: true) },
        calleeBusy: busy, now: t0, ringTimeout: 45
    ).0
}

private func group(busyCarol: Bool = false) -> CallMachine {
    let invitees = ["bob", "carol"].map { id in
        Invitee(
            party: Party(id: id), devices: [CalleeDevice(id: "\(id)-0", platform: .ios, canBeWoken: true)],
            busy: id == "carol" && busyCarol)
    }
    return CallMachine.inviteGroup(
        callID: "g1", caller: Party(id: "alice"), invitees: invitees, policy: .firstAnswer, hasVideo: false, now: t0,
        ringTimeout: 45
    ).0
}

private func types(_ events: [CallWebhookEvent]) -> [WebhookEventType] { events.map(\.type) }

/// Applies `input` and answers the events of the change.
private func change(
    _ machine: inout CallMachine, _ input: CallInput, by actor: CallActor, at seconds: TimeInterval = 1
)
    throws -> [CallWebhookEvent]
{
    let before = machine
    _ = try machine.apply(input, by: actor, at: t0.addingTimeInterval(seconds))
    return CallMachine.webhookEvents(from: before, to: machine)
}

@Suite struct WebhookEventsTests {
    @Test func aNewCallIsCreatedAndOneThatEndsAtOnceSaysHow() {
        #expect(types(CallMachine.webhookEvents(from: nil, to: oneToOne())) == [.callCreated])
        #expect(types(CallMachine.webhookEvents(from: nil, to: oneToOne(busy: true))) == [.callCreated, .callBusy])
        #expect(types(CallMachine.webhookEvents(from: nil, to: oneToOne(devices: 0))) == [.callCreated, .callFailed])
    }

    @Test func eachDevicesFirstRingingAcknowledgementIsAnEventRepeatsAreNot() throws {
        var machine = oneToOne()
        let first = try change(&machine, .ringing(deviceID: "bob-0"), by: .user("bob"))
        #expect(first == [CallWebhookEvent(type: .callRinging, userID: "bob", deviceID: "bob-0")])
        #expect(try change(&machine, .ringing(deviceID: "bob-0"), by: .user("bob")).isEmpty)
        #expect(try change(&machine, .ringing(deviceID: "bob-1"), by: .user("bob")).map(\.deviceID) == ["bob-1"])
    }

    @Test func theCallsLifeIsToldByItsStates() throws {
        var answered = oneToOne()
        #expect(types(try change(&answered, .accept(deviceID: "bob-0"), by: .user("bob"))) == [.callAccepted])
        #expect(types(try change(&answered, .end, by: .user("alice"), at: 30)) == [.callEnded])
        #expect(try change(&answered, .end, by: .user("alice"), at: 31).isEmpty)
        var missed = oneToOne()
        #expect(types(try change(&missed, .ringTimeout, by: .system, at: 45)) == [.callUnanswered])
        var declined = oneToOne()
        #expect(types(try change(&declined, .decline(deviceID: "bob-1"), by: .user("bob"))) == [.callDeclined])
        var cancelled = oneToOne()
        #expect(types(try change(&cancelled, .cancel, by: .backend)) == [.callCancelled])
    }

    @Test func aGroupCallTellsEachLegThatChangedThenTheCall() throws {
        let created = group(busyCarol: true)
        // Carol's leg was busy from the start: told at once; bob's rings, which `call.created` says.
        #expect(
            CallMachine.webhookEvents(from: nil, to: created)
                == [CallWebhookEvent(type: .callCreated), CallWebhookEvent(type: .callLegUpdated, userID: "carol")])
        var machine = group()
        let accepted = try change(&machine, .accept(deviceID: "bob-0"), by: .user("bob"))
        // Bob's leg is accepted and carol's stops (answered elsewhere): both legs, then the call.
        #expect(
            accepted == [
                CallWebhookEvent(type: .callLegUpdated, userID: "bob"),
                CallWebhookEvent(type: .callLegUpdated, userID: "carol"), CallWebhookEvent(type: .callAccepted),
            ])
    }

    @Test func aRingMoreTellsTheNewLegOnlyAndTheCalleeAlreadyThereNot() throws {
        var machine = oneToOne()
        _ = try machine.apply(.accept(deviceID: "bob-0"), by: .user("bob"), at: t0.addingTimeInterval(1))
        let more = RingMore(
            invitees: [
                Invitee(
                    party: Party(id: "carol"), devices: [CalleeDevice(id: "carol-0", platform: .ios, canBeWoken: true)])
            ], ringTimeout: 45, maximumLegs: 8)
        let events = try change(&machine, .ringMore(more), by: .user("alice"), at: 5)
        #expect(events == [CallWebhookEvent(type: .callLegUpdated, userID: "carol")])
    }
}
