import Foundation
import RingerKit
import RingerSandbox
import RingerScenarios
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

/// An Android callee rings through the whole chain on loopback: the server's FCM client, the FCM sandbox
/// (Google's checks) and an Android phone in the phone host, the Kotlin SDK over the Android mirror obeying Android's
/// rules (docs/android-phone-host.md; `make -C android lab` builds it, and `make test` runs this suite after its
/// parallel part, as it times a stop to the second).
@Suite(.serialized) struct AndroidRingingEndToEndTests {
    /// A phone's events as the host reports them, for the test to wait on.
    final class PhoneEvents: Sendable {
        private let events = LockedValue<[AndroidHostEvent]>([])

        /// Keeps one event (the phone's `observe`).
        func record(_ event: AndroidHostEvent) { events.withLock { $0.append(event) } }

        /// The first event named `name`, for `callID` when given.
        func first(_ name: String, callID: String? = nil) -> AndroidHostEvent? {
            events.withLock { $0.first { $0.event == name && (callID == nil || $0.callID == callID) } }
        }

        /// The names of every event so far, in order.
        var names: [String] { events.withLock { $0.map(\.event) } }
    }

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
        let events = PhoneEvents()
        let bob = try await stack.androidPhone(
            user: "bob", name: "Bob", deviceID: "bob-pixel", behaviour: .answer(after: 0.3), appState: .swipedAway,
            observe: { events.record($0) })
        #expect(!bob.isAppRunning)
        let call = try await alice.call("bob")
        #expect(call.state == .ringing)
        #expect(await eventually { events.first("call_active", callID: call.callID) != nil }, "\(events.names)")
        #expect(events.first("started_by_message") != nil, "\(events.names)")
        let accepted = try await self.call(call.callID, reaches: .accepted, on: stack)
        #expect(accepted.state == .accepted)
        #expect(accepted.acceptedDeviceID == "bob-pixel")
        #expect(await eventually { events.first("media_ready", callID: call.callID) != nil }, "\(events.names)")
        let message = try #require(stack.fcmSandbox.acceptedMessages.first)
        #expect(message.token == bob.fcmToken)
        #expect(message.priority == .high)
        #expect(message.collapseKey == call.callID)
        #expect(message.ttl > 40 && message.ttl <= 45)
        #expect(
            await eventually { stack.fcmSandbox.deliveryState(ofMessage: message.name) == .delivered(.userVisible) })
        await stack.shutdown()
    }

    @Test func aCalleeWithAnIPhoneAndAnAndroidPhoneAnsweredOnTheIPhoneStopsTheAndroidWithinASecond() async throws {
        let stack = try await LocalStack.start()
        let alice = try await stack.phone(user: "alice", name: "Alice", deviceID: "alice-iphone", behaviour: .ignore)
        let iphone = try await stack.phone(
            user: "bob", name: "Bob", deviceID: "bob-iphone", behaviour: .answer(after: 1))
        let events = PhoneEvents()
        _ = try await stack.androidPhone(
            user: "bob", name: "Bob", deviceID: "bob-pixel", appState: .background, observe: { events.record($0) })
        iphone.setAppState(.killed)
        let call = try await alice.call("bob")
        #expect(await eventually { events.first("ringing", callID: call.callID) != nil }, "\(events.names)")
        #expect(try await self.call(call.callID, reaches: .accepted, on: stack).state == .accepted)
        let answeredAt = ContinuousClock.now
        #expect(await eventually(within: 5) { events.first("call_ended", callID: call.callID) != nil })
        #expect(ContinuousClock.now - answeredAt < .seconds(1))
        #expect(events.first("call_ended", callID: call.callID)?.cause == "ANSWERED_ELSEWHERE")
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
        let events = PhoneEvents()
        let bob = try await stack.androidPhone(
            user: "bob", name: "Bob", deviceID: "bob-pixel", appState: .background, dozing: true,
            observe: { events.record($0) })
        let call = try await alice.call("bob")
        // Cancelled at once, whether or not the phone's `ringing` acknowledgement has arrived yet.
        let api = RingerAPIClient(
            baseURL: stack.serverURL, userToken: try await stack.userToken(for: "alice", name: "Alice"))
        _ = try await api.cancel(callID: call.callID)
        let stop = await eventuallyValue {
            stack.fcmSandbox.acceptedMessages.first { $0.data["ringer"]?.contains("call.cancelled") == true }
        }
        #expect(stop?.priority == .high)
        // A normal-priority stop would wait for Doze's maintenance window while the phone rings on: the high-priority
        // one is delivered at once, and nothing is left ringing.
        if let stop {
            #expect(
                await eventually(within: 5) {
                    if case .delivered? = stack.fcmSandbox.deliveryState(ofMessage: stop.name) { return true }
                    return false
                }, "\(String(describing: stack.fcmSandbox.deliveryState(ofMessage: stop.name)))")
            #expect(stack.fcmSandbox.storedMessages(token: bob.fcmToken).allSatisfy { $0.name != stop.name })
        }
        #expect(await eventually(within: 5) { !bob.hasLiveNativeCall }, "\(events.names)")
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
        let events = PhoneEvents()
        _ = try await stack.androidPhone(
            user: "bob", name: "Bob", deviceID: "bob-pixel", behaviour: .answer(after: 0.1), appState: .forceStopped,
            observe: { events.record($0) })
        let call = try await alice.call("bob")
        #expect(call.state == .ringing)
        #expect(try await self.call(call.callID, reaches: .unanswered, on: stack).state == .unanswered)
        let ringing = try #require(stack.fcmSandbox.acceptedMessages.first)
        #expect(
            await eventually {
                if case .delivered(.notDelivered?)? = stack.fcmSandbox.deliveryState(ofMessage: ringing.name) {
                    return true
                }
                return false
            }, "\(String(describing: stack.fcmSandbox.deliveryState(ofMessage: ringing.name)))")
        #expect(events.first("message_not_delivered") != nil, "\(events.names)")
        #expect(events.first("ringing") == nil && events.first("started_by_message") == nil, "\(events.names)")
        await stack.shutdown()
    }
}
