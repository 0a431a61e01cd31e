import Foundation
import RingerSandbox
import RingerScenarios
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

/// One call rings every device of the callee, whatever keeps each reachable: a VoIP push (app killed), the
/// event socket (app on screen) or an FCM data message (Android app swiped away).
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
        var androids: [SimulatedAndroidPhone] = []
        for index in 0..<3 {
            let device = "bob-pixel-\(index)"
            androids.append(
                try await stack.androidPhone(user: "bob", name: "Bob", deviceID: device, behaviour: .ignore) {
                    if case .ringing(let callID, _) = $0 { note(device, callID) }
                })
        }
        // Four iPhones only a VoIP push can wake; three hold their event socket; three Android apps were swiped away.
        for phone in iPhones.prefix(4) { phone.setAppState(.killed) }
        for phone in androids { phone.setAppState(.swipedAway) }

        let call = try await alice.call("bob")
        let devices = Set(iPhones.map(\.identity.deviceID) + androids.map(\.identity.deviceID))
        #expect(await eventually(within: 15) { Set(rang.withLock { $0 }.keys) == devices })
        // Each device rang once, for this call.
        #expect(rang.withLock { $0 }.values.allSatisfy { $0 == [call.callId] })
        let voip = stack.sandbox.acceptedPushes.filter { $0.pushType == "voip" }.map(\.deviceToken)
        for phone in iPhones.prefix(4) { #expect(voip.contains(phone.identity.voipToken)) }
        let fcm = stack.fcmSandbox.acceptedMessages.map(\.token)
        for phone in androids { #expect(fcm.contains(phone.identity.fcmToken)) }
        await stack.shutdown()
    }
}
