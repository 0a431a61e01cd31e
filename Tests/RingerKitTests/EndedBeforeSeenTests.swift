import Foundation
import RingerKit
import RingerWire
import Testing

/// Defect A of issue 13: an end that reaches the phone before the call's VoIP push (an alert or background push,
/// or an event on the socket) must not leave the late push ringing. (The same for an FCM data message is pinned by
/// the shared vector `ended-before-seen-update-push-then-android-data-message` and the Kotlin SDK's tests.)
@Suite struct EndedBeforeSeenTests {
    let pushes = CallCoordinatorPushTests()

    func alertOrBackgroundPush(_ type: EventType, callID: String) -> Data {
        try! RingerJSON.encode(AlertOrBackgroundPush(aps: .init(), ringer: .init(type: type, callID: callID)))
    }

    @Test(arguments: [
        (EventType.callCancelled, CallEndReason.remoteEnded), (.callAnsweredElsewhere, .answeredElsewhere),
        (.callDeclinedElsewhere, .declinedElsewhere), (.callUnanswered, .unanswered),
    ])
    func aVoIPPushAfterItsCallsEndNoticeIsReportedAndEndedAtOnceWithThatReason(
        _ type: EventType,
        _ reason: CallEndReason
    ) throws {
        let ui = RecordingCallUI()
        let coordinator = pushes.coordinator(ui)
        let callID = UUID().uuidString.lowercased()
        #expect(coordinator.handleNotificationPush(alertOrBackgroundPush(type, callID: callID)) == type)
        #expect(ui.reports.isEmpty)
        #expect(coordinator.handleVoIPPush(pushes.push(callID: callID, expiresIn: 30)) == .alreadyEnded)
        // Apple requires the report; it ends at once under the call's own id, with the end's reason.
        let uuid = try #require(UUID(uuidString: callID))
        #expect(ui.reports.map(\.id) == [uuid])
        #expect(ui.ended.map(\.0) == [uuid] && ui.ended.map(\.1) == [reason])
    }

    @Test func aVoIPPushAfterTheSocketSaidTheCallWasAnsweredElsewhereDoesNotRing() throws {
        let ui = RecordingCallUI()
        let coordinator = pushes.coordinator(ui)
        let callID = UUID().uuidString.lowercased()
        let now = pushes.now
        coordinator.handle(
            CallEvent(
                seq: 2, type: .callAnsweredElsewhere,
                call: Call(
                    callID: callID, state: .accepted, caller: Party(id: "alice"),
                    callee: Party(id: "bob"), hasVideo: false, createdAt: now,
                    expiresAt: now.addingTimeInterval(30))))
        #expect(coordinator.handleVoIPPush(pushes.push(callID: callID, expiresIn: 30)) == .alreadyEnded)
        #expect(ui.ended.map(\.1) == [.answeredElsewhere])
        // A second copy of the push is reported and ended too, never rung.
        #expect(coordinator.handleVoIPPush(pushes.push(callID: callID, expiresIn: 30)) == .alreadyEnded)
        #expect(ui.ended.map(\.1) == [.answeredElsewhere, .answeredElsewhere])
    }

    @Test func anEndHeardLongerAgoThanTheMemoryLastsNoLongerStopsAPush() {
        var machine = PhoneCallMachine(deviceID: "bob-iphone", clockOffset: 0)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let callID = UUID().uuidString.lowercased()
        _ = machine.handle(.updatePush(.callCancelled, callID: callID), at: start)
        #expect(machine.endedUnseen[callID] != nil)
        let later = start.addingTimeInterval(PhoneCallMachine.endedUnseenLifetime)
        let push = IncomingPush(
            uuid: UUID(uuidString: callID)!, caller: Party(id: "alice"), calleeID: "bob",
            hasVideo: false, sentAt: later, expiresAt: later.addingTimeInterval(30))
        let effects = machine.handle(
            .incomingPush(push, account: .loggedIn(userID: "bob"), reportsEveryPush: true), at: later)
        #expect(effects.last == .pushHandled(callID: callID, .ringing))
    }

    @Test func theMemoryOfEndsBeforeSeenIsBoundedByCountOldestFirst() {
        var machine = PhoneCallMachine(deviceID: "bob-iphone")
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let ids = (0...PhoneCallMachine.endedUnseenLimit).map { _ in UUID().uuidString.lowercased() }
        for (index, id) in ids.enumerated() {
            _ = machine.handle(.updatePush(.callUnanswered, callID: id), at: start.addingTimeInterval(Double(index)))
        }
        #expect(machine.endedUnseen.count == PhoneCallMachine.endedUnseenLimit)
        #expect(machine.endedUnseen[ids[0]] == nil && machine.endedUnseen[ids[1]] != nil)
    }
}
