import Foundation
import RingerSandbox
import RingerScenarios
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

/// One call rings every device of the callee, whatever keeps each reachable: a VoIP push (app killed), the
/// event socket (app on screen) or an FCM data message (an Android device, here the FCM sandbox's in-process
/// device: what the app does with the message is the Kotlin SDK's, tested on its side).
@Suite(.serialized) struct RingFanOutTests {
    @Test func oneCallRingsEveryOneOfTenDevicesOfMixedKinds() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        // Device id → call ids it showed as ringing.
        let rang = LockedValue<[String: [String]]>([:])
        @Sendable func note(_ device: String, _ callID: String) {
            rang.withLock { $0[device, default: []].append(callID) }
        }
        var iPhones: [SimulatedIPhone] = []
        for index in 0..<7 {
            let device = "bob-iphone-\(index)"
            iPhones.append(
                try await stack.phone(user: "bob", name: "Bob", deviceID: device, behaviour: .ignore) {
                    if case .callKitReported(let callID) = $0 { note(device, callID) }
                })
        }
        // Android device id → its FCM registration token; a ringing message for the call counts as its ring.
        var androids: [String: String] = [:]
        for index in 0..<3 {
            let device = "bob-pixel-\(index)"
            androids[device] = try await FCMSandboxPhone.register(on: stack, user: "bob", deviceID: device) { message in
                guard let callID = FCMSandboxPhone.ringingCallID(message) else { return .silent }
                note(device, callID)
                return .userVisible
            }
        }
        // Four iPhones only a VoIP push can wake; three hold their event socket; three Android devices only FCM reaches.
        for phone in iPhones.prefix(4) { phone.setAppState(.killed) }

        let call = try await alice.call("bob")
        let devices = Set(iPhones.map(\.identity.deviceID) + androids.keys)
        #expect(await eventually(within: 15) { Set(rang.withLock { $0 }.keys) == devices })
        // Each device rang once, for this call.
        #expect(rang.withLock { $0 }.values.allSatisfy { $0 == [call.callID] })
        let voip = stack.sandbox.acceptedPushes.filter { $0.pushType == "voip" }.map(\.deviceToken)
        for phone in iPhones.prefix(4) { #expect(voip.contains(phone.identity.voipToken)) }
        let fcm = stack.fcmSandbox.acceptedMessages.map(\.token)
        for token in androids.values { #expect(fcm.contains(token)) }
        await stack.shutdown()
    }
}
