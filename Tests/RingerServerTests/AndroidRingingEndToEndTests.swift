import Foundation
import RingerKit
import RingerSandbox
import RingerScenarios
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

/// An Android callee rings through the whole chain on loopback: the server's FCM client, the FCM sandbox
/// (Google's checks), a simulated Android phone obeying Android's rules.
@Suite(.serialized) struct AndroidRingingEndToEndTests {
    private func uuid(_ call: Call) -> UUID { UUID(uuidString: call.callId)! }

    /// Alice's view of the call through the API, once it is in `state` (or its last state after 10 s).
    private func call(_ id: String, reaches state: CallState, on stack: LocalStack) async throws -> Call {
        let api = RingerAPIClient(
            baseURL: stack.serverURL, userToken: try await stack.userToken(for: "alice", name: "Alice"))
        let deadline = ContinuousClock.now + .seconds(10)
        var call = try await api.call(id: id)
        while call.state != state, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            call = try await api.call(id: id)
        }
        return call
    }

    @Test func swipedAwayAndroidAppIsStartedByTheRingingMessageAndAnswersWithMedia() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let media = LockedValue<[String]>([])
        let bob = try await stack.androidPhone(
            user: "bob", name: "Bob", deviceID: "bob-pixel", behaviour: .answer(after: 0.3)
        ) {
            if case .mediaReady(let callID, _) = $0 { media.withLock { $0.append(callID) } }
        }
        bob.setAppState(.swipedAway)
        #expect(!bob.isProcessRunning)
        let call = try await alice.call("bob")
        #expect(call.state == .ringing)
        #expect(await eventually { bob.connectionService.connection(uuid(call))?.state == .active })
        let accepted = try await self.call(call.callId, reaches: .accepted, on: stack)
        #expect(accepted.state == .accepted)
        #expect(accepted.acceptedDeviceId == "bob-pixel")
        #expect(await eventually { media.withLock { $0 } == [call.callId] })
        let message = try #require(stack.fcmSandbox.acceptedMessages.first)
        #expect(message.token == bob.identity.fcmToken)
        #expect(message.priority == .high)
        #expect(message.collapseKey == call.callId)
        #expect(message.ttl > 40 && message.ttl <= 45)
        #expect(stack.fcmSandbox.deliveryState(ofMessage: message.name) == .delivered(.userVisible))
        await stack.shutdown()
    }

    @Test func aCalleeWithAnIPhoneAndAnAndroidPhoneAnsweredOnTheIPhoneStopsTheAndroidWithinASecond() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let iphone = try await stack.phone(
            user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .answer(after: 1))
        let pixel = try await stack.androidPhone(user: "bob", name: "Bob", deviceID: "bob-pixel", behaviour: .ignore)
        iphone.setAppState(.killed)
        pixel.setAppState(.background)
        let call = try await alice.call("bob")
        #expect(await eventually { pixel.connectionService.isRinging })
        #expect(try await self.call(call.callId, reaches: .accepted, on: stack).state == .accepted)
        let answeredAt = ContinuousClock.now
        #expect(await eventually(within: 5) { !pixel.connectionService.isRinging })
        #expect(ContinuousClock.now - answeredAt < .seconds(1))
        #expect(pixel.connectionService.connection(uuid(call))?.disconnectCause == DisconnectCause(.answeredElsewhere))
        // The Android phone acknowledged ringing, so the stop was sent at high priority and ended a call screen.
        let stop = try #require(
            stack.fcmSandbox.acceptedMessages.first { $0.data["ringer"]?.contains("call.answered_elsewhere") == true })
        #expect(stop.priority == .high)
        #expect(
            await eventually {
                stack.fcmSandbox.deliveryState(ofMessage: stop.name) != nil
                    && stack.fcmSandbox.deliveryState(ofMessage: stop.name) != .delivering
            })
        await stack.shutdown()
    }

    @Test func aDozingPhoneCancelledBeforeItAcknowledgedRingingStopsAtOnce() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.androidPhone(user: "bob", name: "Bob", deviceID: "bob-pixel", behaviour: .ignore)
        bob.setAppState(.background)
        bob.setDozing(true)
        let call = try await alice.call("bob")
        // Cancelled at once, whether or not the phone's `ringing` acknowledgement has arrived yet.
        let api = RingerAPIClient(
            baseURL: stack.serverURL, userToken: try await stack.userToken(for: "alice", name: "Alice"))
        _ = try await api.cancel(callID: call.callId)
        let stop = await eventuallyValue {
            stack.fcmSandbox.acceptedMessages.first { $0.data["ringer"]?.contains("call.cancelled") == true }
        }
        #expect(stop?.priority == .high)
        // A normal-priority stop would wait for Doze's maintenance window while the phone rings on.
        #expect(
            await eventually(within: 5) {
                bob.connectionService.connections.allSatisfy { !$0.isRinging } && !bob.connectionService.isRinging
            })
        if let stop {
            #expect(stack.fcmSandbox.storedMessages(token: bob.identity.fcmToken).allSatisfy { $0.name != stop.name })
        }
        await stack.shutdown()
    }

    /// Polls `body` every 20 ms for up to 10 s until it gives a value.
    private func eventuallyValue<T>(_ body: () -> T?) async -> T? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let value = body() { return value }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return body()
    }

    @Test func aForceStoppedAppGetsNothingAndTheCallRingsOut() async throws {
        var options = LocalStack.Options()
        options.ringTimeout = 2
        let stack = try await LocalStack.start(options)
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let bob = try await stack.androidPhone(
            user: "bob", name: "Bob", deviceID: "bob-pixel", behaviour: .answer(after: 0.1))
        bob.setAppState(.forceStopped)
        let call = try await alice.call("bob")
        #expect(call.state == .ringing)
        #expect(try await self.call(call.callId, reaches: .unanswered, on: stack).state == .unanswered)
        let ringing = try #require(stack.fcmSandbox.acceptedMessages.first)
        if case .delivered(.notDelivered) = stack.fcmSandbox.deliveryState(ofMessage: ringing.name) {
        } else {
            Issue.record(
                "expected notDelivered, got \(String(describing: stack.fcmSandbox.deliveryState(ofMessage: ringing.name)))"
            )
        }
        #expect(bob.connectionService.connections.isEmpty)
        await stack.shutdown()
    }
}
