import Foundation
import RingerKit
import RingerSandbox
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Simulated Android phones against a real Ringer server over loopback: registration, the event socket,
/// answering through the ConnectionService, and the socket an active call keeps alive.
@Suite(.serialized) struct SimulatedAndroidEndToEndTests {
    private struct DeviceList: Decodable { var devices: [Device] }

    func uuid(_ call: Call) -> UUID { UUID(uuidString: call.callId)! }

    @Test func registeredPhoneRingsFromItsSocketAndAnswersThroughTheConnectionService() async throws {
        let stack = try await AndroidTestStack.start()
        let events = LockedValue<[EventType]>([])
        let phone = try await stack.phone(behaviour: .answer(after: 0.2)) { observation in
            if case .event(let event) = observation { events.withLock { $0.append(event.type) } }
        }
        // Registered as an Android device with its FCM token.
        var request = URLRequest(url: stack.url.appendingPathComponent("v1/devices"))
        request.setValue("Bearer " + (try await stack.token("bob")), forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        let devices = try RingerJSON.decode(DeviceList.self, from: data).devices
        #expect(devices.map(\.platform) == [.android])
        #expect(devices.first?.fcmToken == phone.identity.fcmToken)
        #expect(devices.first?.deviceId == "bob-android")
        #expect(await stack.holdsStream(phone, true))

        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await waitFor { (try? await alice.call(id: call.callId).state) == .accepted })
        let accepted = try await alice.call(id: call.callId)
        #expect(accepted.acceptedDeviceId == "bob-android")
        #expect(events.snapshot.first == .callIncoming)
        let changes = phone.connectionService.changes
        let id = uuid(call)
        #expect(changes.starts(with: [.addNewIncomingCall(id), .ringing(id, .inApp), .ringerStarted]))
        #expect(await eventually { phone.connectionService.connection(id)?.state == .active })
        // `onAnswer` stopped the ringtone; `setActive` came only after the server's confirmation.
        let order = phone.connectionService.changes
        #expect(order.firstIndex(of: .onAnswer(id))! < order.firstIndex(of: .ringerStopped)!)
        #expect(order.firstIndex(of: .ringerStopped)! < order.firstIndex(of: .active(id))!)

        // The caller hangs up: `call.ended` on the socket disconnects with REMOTE; the service stops.
        _ = try await alice.end(callID: call.callId)
        #expect(
            await eventually { phone.connectionService.connection(id)?.disconnectCause == DisconnectCause(.remote) })
        #expect(await eventually { !phone.foregroundService.isRunning })
        await stack.shutdown()
    }

    @Test func activeCallKeepsTheBackgroundAppAliveWithItsSocket() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone(behaviour: .answer(after: 0.1))
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await eventually { phone.connectionService.connection(uuid(call))?.state == .active })
        phone.setAppState(.background)
        #expect(phone.holdsEventStream)
        phone.setAppState(.swipedAway)
        #expect(phone.isProcessRunning, "the call's foreground service keeps the process")
        #expect(await stack.holdsStream(phone, true))
        // The hang-up reaches the backgrounded app on the socket its call kept open.
        _ = try await alice.end(callID: call.callId)
        #expect(
            await eventually {
                phone.connectionService.connection(uuid(call))?.disconnectCause == DisconnectCause(.remote)
            })
        // With no call left the service stops and the app is frozen: the socket goes.
        #expect(await stack.holdsStream(phone, false))
        #expect(!phone.foregroundService.isRunning)
        await stack.shutdown()
    }

    @Test func answerFromAnAppStartedByAMessageConnects() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone(behaviour: .answer(after: 0.2))
        try await stack.companion()
        phone.setAppState(.swipedAway)
        #expect(await stack.holdsStream(phone, false))
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await stack.registry.deliver(FCMTestMessage.ringing(call, to: phone)) == .userVisible)
        #expect(await waitFor { (try? await alice.call(id: call.callId).acceptedDeviceId) == "bob-android" })
        #expect(await eventually { phone.connectionService.connection(uuid(call))?.state == .active })
        // In a call, the woken app holds its socket in the background.
        #expect(await stack.holdsStream(phone, true))
        await stack.shutdown()
    }

    @Test func androidPhoneCallsAnotherAndTheDialledConnectionBecomesActiveWhenAnswered() async throws {
        let stack = try await AndroidTestStack.start()
        let bob = try await stack.phone()
        let carol = try await stack.phone("carol", deviceID: "carol-android", behaviour: .answer(after: 0.1))
        let call = try await bob.call("carol")
        let id = uuid(call)
        #expect(bob.connectionService.connection(id)?.state == .dialing)
        #expect(bob.foregroundService.types == [.phoneCall])
        #expect(await eventually { bob.connectionService.connection(id)?.state == .active })
        #expect(await eventually { bob.foregroundService.types == [.phoneCall, .microphone] })
        #expect(await eventually { carol.connectionService.connection(id)?.state == .active })
        bob.hangUp(callID: call.callId)
        #expect(bob.connectionService.connection(id)?.disconnectCause == DisconnectCause(.local))
        #expect(
            await eventually { carol.connectionService.connection(id)?.disconnectCause == DisconnectCause(.remote) })
        await stack.shutdown()
    }
}
