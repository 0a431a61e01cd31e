import Foundation
import RingerKit
import RingerWire
import Testing

/// FCM data messages reach the same call logic as VoIP pushes and alert or background pushes, with Android's difference: a
/// message that cannot ring shows nothing.
@Suite struct DataMessageTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// The `data` map the server sends for a ringing call: `ringer` is the VoIP push's body as a JSON string.
    func ringing(callID: String, expiresIn seconds: TimeInterval, callee: String? = nil) -> [String: String] {
        let body = VoIPPush.Body(
            callId: callID, caller: Party(id: "alice", name: "Alice"), calleeId: callee,
            hasVideo: true, sentAt: now.unixMilliseconds,
            expiresAt: now.addingTimeInterval(seconds).unixMilliseconds)
        return ["ringer": String(decoding: try! RingerJSON.encode(body), as: UTF8.self)]
    }

    func update(_ type: EventType, callID: String) -> [String: String] {
        [
            "ringer": String(
                decoding: try! RingerJSON.encode(AlertOrBackgroundPush.Body(type: type, callId: callID)), as: UTF8.self)
        ]
    }

    /// A coordinator logged in as `user` whose clock agrees with the server's (an offset of 0 was learned on an
    /// earlier launch), unless `clockOffset` says otherwise (nil: never learned).
    func coordinator(_ ui: RecordingCallUI, user: String = "bob", clockOffset: TimeInterval? = 0) -> CallCoordinator {
        let fixed = now
        let coordinator = CallCoordinator(
            deviceID: "bob-android", ui: ui, now: { fixed },
            clockOffsets: InMemoryClockOffsetStore(offset: clockOffset))
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!,
                userToken: Self.userToken(user), transport: UnreachableTransport()))
        return coordinator
    }

    /// A token whose payload names `user` (the coordinator reads `sub` to know who is logged in).
    static func userToken(_ user: String) -> String {
        let payload = Data(#"{"sub":"\#(user)"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        return "e30.\(payload).sig"
    }

    @Test func ringingDataMessageRingsWithTheCallIDAsConnectionKey() {
        let ui = RecordingCallUI()
        let callID = UUID().uuidString.lowercased()
        let outcome = coordinator(ui).handleDataMessage(ringing(callID: callID, expiresIn: 30))
        #expect(outcome == .call(callID: callID, .ringing))
        #expect(ui.reports.map(\.id) == [UUID(uuidString: callID)!])
        #expect(ui.reports.first?.caller.name == "Alice")
        #expect(ui.reports.first?.hasVideo == true)
        #expect(ui.ended.isEmpty)
    }

    @Test func upperCaseCallIDIsTheSameCall() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui)
        let callID = UUID().uuidString.lowercased()
        #expect(
            coordinator.handleDataMessage(ringing(callID: callID.uppercased(), expiresIn: 30))
                == .call(callID: callID, .ringing))
        #expect(
            coordinator.handleDataMessage(ringing(callID: callID, expiresIn: 30)) == .call(callID: callID, .duplicate))
        #expect(ui.reports.count == 1)
    }

    @Test func aMessagePastItsDeadlineOnTheServersClockShowsNothing() {
        let ui = RecordingCallUI()
        let callID = UUID().uuidString.lowercased()
        #expect(
            coordinator(ui).handleDataMessage(ringing(callID: callID, expiresIn: -1)) == .call(callID: callID, .expired)
        )
        #expect(ui.reports.isEmpty)
        #expect(ui.ended.isEmpty)
    }

    @Test func sameCallByMessageAndSocketRingsOnceAndTheRepeatIsNotReported() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui)
        let callID = UUID().uuidString.lowercased()
        let call = Call(
            callId: callID, state: .ringing, caller: Party(id: "alice"), callee: Party(id: "bob"),
            hasVideo: false, createdAt: now, expiresAt: now.addingTimeInterval(30))
        coordinator.handle(CallEvent(seq: 1, type: .callIncoming, call: call))
        #expect(
            coordinator.handleDataMessage(ringing(callID: callID, expiresIn: 30)) == .call(callID: callID, .duplicate))
        #expect(ui.reports.count == 1)
    }

    @Test func messageForAnotherUserShowsNothing() {
        let ui = RecordingCallUI()
        let callID = UUID().uuidString.lowercased()
        let outcome = coordinator(ui, user: "carol").handleDataMessage(
            ringing(callID: callID, expiresIn: 30, callee: "bob"))
        #expect(outcome == .call(callID: callID, .otherUser))
        #expect(ui.reports.isEmpty)
    }

    @Test func unreadableRingingMessageShowsNothing() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui)
        #expect(
            coordinator.handleDataMessage(["ringer": #"{"v":1,"type":"call.incoming"}"#])
                == .call(callID: nil, .unreadable))
        #expect(
            coordinator.handleDataMessage(["ringer": #"{"v":1,"type":"call.incoming","call_id":"not-a-uuid"}"#])
                == .call(callID: nil, .unreadable))
        #expect(ui.reports.isEmpty)
    }

    @Test func eachNoticeEndsTheRingingCallWithItsReason() {
        let cases: [(EventType, CallEndReason)] = [
            (.callCancelled, .remoteEnded), (.callAnsweredElsewhere, .answeredElsewhere),
            (.callDeclinedElsewhere, .declinedElsewhere), (.callUnanswered, .unanswered),
        ]
        for (type, reason) in cases {
            let ui = RecordingCallUI()
            let coordinator = coordinator(ui)
            let callID = UUID().uuidString.lowercased()
            coordinator.handleDataMessage(ringing(callID: callID, expiresIn: 30))
            #expect(
                coordinator.handleDataMessage(update(type, callID: callID.uppercased()))
                    == .update(callID: callID, type))
            #expect(ui.ended.map(\.0) == [UUID(uuidString: callID)!])
            #expect(ui.ended.map(\.1) == [reason])
        }
    }

    @Test func ringingMessageAfterTheCancelDoesNotRing() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui)
        let callID = UUID().uuidString.lowercased()
        coordinator.handleDataMessage(ringing(callID: callID, expiresIn: 30))
        coordinator.handleDataMessage(update(.callCancelled, callID: callID))
        #expect(
            coordinator.handleDataMessage(ringing(callID: callID, expiresIn: 30))
                == .call(callID: callID, .alreadyEnded))
        #expect(ui.reports.count == 1)
        #expect(ui.ended.count == 1)
    }

    @Test func messagesThatAreNotRingersAreIgnored() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui)
        let others: [[String: String]] = [
            [:], ["chat": "hello"], ["ringer": "not json"], ["ringer": "[1,2]"], ["ringer": #"{"v":1}"#],
            ["ringer": #"{"v":1,"type":"call.accepted","call_id":"x"}"#],
            ["ringer": #"{"v":1,"type":"call.cancelled"}"#],
        ]
        for data in others { #expect(coordinator.handleDataMessage(data) == .ignored, "\(data)") }
        #expect(ui.reports.isEmpty)
        #expect(ui.ended.isEmpty)
    }
}
