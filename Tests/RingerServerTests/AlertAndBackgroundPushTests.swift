import Foundation
import RingerKit
import RingerSandbox
import RingerScenarios
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

/// Non-VoIP pushes: background pushes stop other devices ringing; a missed call is an alert; and
/// only `call.incoming` ever travels as a VoIP push.
@Suite(.serialized) struct AlertAndBackgroundPushTests {
    static func decode<T: Decodable>(_ type: T.Type, _ push: SandboxPush) -> T? {
        try? RingerJSON.decode(type, from: push.payload)
    }

    @Test func answeredElsewhereReachesTheOtherDeviceAsABackgroundPushNeverVoIP() async throws {
        let stack = try await LocalStack.start()
        let ended = LockedValue<[CallEndReason]>([])
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let phone = try await stack.phone(
            user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .answer(after: 0.3))
        let pad = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-ipad", behaviour: .ignore) {
            observation in
            if case .callKitEnded(_, let reason) = observation { ended.withLock { $0.append(reason) } }
        }
        phone.setAppState(.killed)
        pad.setAppState(.background)
        let call = try await alice.call("bob")
        #expect(await eventually { ended.withLock { !$0.isEmpty } })
        #expect(ended.withLock { $0 } == [.answeredElsewhere])

        // The iPad's app, resumed by the VoIP push, may hear it on its socket before the background push is out.
        #expect(await eventually { stack.sandbox.acceptedPushes.contains { $0.deviceToken == pad.identity.apnsToken } })
        let pushes = stack.sandbox.acceptedPushes
        let notice = pushes.first { $0.deviceToken == pad.identity.apnsToken }
        #expect(notice?.pushType == "background")
        #expect(notice?.priority == 5)
        #expect(notice.flatMap { Self.decode(AlertOrBackgroundPush.self, $0) }?.ringer.type == .callAnsweredElsewhere)
        #expect(notice.flatMap { Self.decode(AlertOrBackgroundPush.self, $0) }?.ringer.callID == call.callID)
        for push in pushes where push.pushType == "voip" {
            #expect(Self.decode(VoIPPush.self, push)?.ringer.type == .callIncoming)
        }
        await stack.shutdown()
    }

    @Test func ringOutSendsAMissedCallAlertToTheCallee() async throws {
        var options = LocalStack.Options()
        options.ringTimeout = 1
        let stack = try await LocalStack.start(options)
        let shown = LockedValue<[String]>([])
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.phone(user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .ignore) {
            observation in
            if case .notificationShown(let title, let body) = observation {
                shown.withLock { $0.append("\(title): \(body)") }
            }
        }
        bob.setAppState(.killed)
        let call = try await alice.call("bob")
        #expect(await eventually { shown.withLock { !$0.isEmpty } })
        #expect(shown.withLock { $0 } == ["Missed call: Alice"])
        let alert = stack.sandbox.acceptedPushes.first { $0.pushType == "alert" }
        #expect(alert?.deviceToken == bob.identity.apnsToken)
        #expect(alert?.topic == bob.identity.bundleID)
        #expect(alert.flatMap { Self.decode(AlertOrBackgroundPush.self, $0) }?.ringer.callID == call.callID)
        #expect(stack.sandbox.acceptedPushes.filter { $0.pushType == "voip" }.count == 1)
        await stack.shutdown()
    }
}
