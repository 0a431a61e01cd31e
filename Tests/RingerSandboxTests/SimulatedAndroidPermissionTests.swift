import Foundation
import RingerKit
import RingerSandbox
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

/// Android 13/14's permissions on the simulated phone: notifications, full-screen intents, and the foreground
/// service types of a call; a refused one ends the call cleanly.
@Suite(.serialized) struct SimulatedAndroidPermissionTests {
    static let all = Set(AndroidPermission.allCases)

    func uuid(_ call: Call) -> UUID { UUID(uuidString: call.callId)! }

    @Test func withoutPostNotificationsTheMissedCallIsNotShownButCallsStillRing() async throws {
        let stack = try await AndroidTestStack.start()
        let blocked = LockedValue(0)
        let phone = try await stack.phone(permissions: Self.all.subtracting([.postNotifications])) { observation in
            if case .notificationBlocked = observation { blocked.withLock { $0 += 1 } }
        }
        try await stack.companion()
        phone.setAppState(.swipedAway)
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await stack.registry.deliver(FCMTestMessage.ringing(call, to: phone)) == .userVisible)
        #expect(phone.connectionService.connection(uuid(call))?.state == .ringing)
        #expect(await stack.registry.deliver(FCMTestMessage.missedCall(call, to: phone)) == .silent)
        #expect(phone.notifications.isEmpty)
        #expect(blocked.snapshot == 1)
        await stack.shutdown()
    }

    @Test func lockedPhoneWithoutFullScreenIntentShowsAHeadsUpAndStillRings() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone(permissions: Self.all.subtracting([.useFullScreenIntent]))
        try await stack.companion()
        phone.setAppState(.swipedAway)
        phone.setLocked(true)
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await stack.registry.deliver(FCMTestMessage.ringing(call, to: phone)) == .userVisible)
        #expect(phone.connectionService.connection(uuid(call))?.presentation == .headsUp)
        #expect(phone.connectionService.isRinging)
        // Granted again in Settings, the next call is full-screen.
        phone.setPermission(.useFullScreenIntent, granted: true)
        let next = try await alice.createCall(callee: "bob")
        #expect(await stack.registry.deliver(FCMTestMessage.ringing(next, to: phone)) == .userVisible)
        #expect(phone.connectionService.connection(uuid(next))?.presentation == .fullScreen)
        await stack.shutdown()
    }

    @Test func answeredCallHoldsPhoneCallThenMicrophoneOnceActive() async throws {
        let stack = try await AndroidTestStack.start()
        let audio = LockedValue<[String]>([])
        let phone = try await stack.phone(behaviour: .answer(after: 0.1)) { observation in
            if case .audioStarted(let callID) = observation { audio.withLock { $0.append(callID) } }
        }
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await eventually { audio.snapshot == [call.callId] })
        #expect(phone.connectionService.connection(uuid(call))?.state == .active)
        #expect(phone.foregroundService.types == [.phoneCall, .microphone])
        #expect(phone.foregroundService.changes == [.started([.phoneCall]), .started([.phoneCall, .microphone])])
        await stack.shutdown()
    }

    @Test func callWithoutMicrophonePermissionEndsCleanlyInsteadOfCrashing() async throws {
        let stack = try await AndroidTestStack.start()
        let refusals = LockedValue<[ForegroundServiceError]>([])
        let phone = try await stack.phone(
            behaviour: .answer(after: 0.1), permissions: Self.all.subtracting([.recordAudio])
        ) {
            observation in
            if case .foregroundServiceRefused(_, let error) = observation { refusals.withLock { $0.append(error) } }
        }
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await eventually { phone.connectionService.connection(uuid(call))?.state == .disconnected })
        #expect(refusals.snapshot == [.securityException(.microphone)])
        #expect(phone.connectionService.connection(uuid(call))?.disconnectCause?.code == .error)
        #expect(!phone.foregroundService.isRunning)
        // The server was told: the answered call is over for the caller too.
        #expect(await waitFor { (try? await alice.call(id: call.callId).state) == .ended })
        #expect(try await alice.call(id: call.callId).acceptedDeviceId == "bob-android")
        #expect(phone.unacknowledgedHangUps.isEmpty)
        // The app did not crash: it still runs and the next call rings.
        #expect(phone.isProcessRunning)
        let next = try await alice.createCall(callee: "bob")
        #expect(await eventually { phone.connectionService.connection(uuid(next)) != nil })
        await stack.shutdown()
    }

    @Test func withoutManageOwnCallsTheCallIsNotShownAndNotAcknowledged() async throws {
        let stack = try await AndroidTestStack.start()
        let refused = LockedValue<[ConnectionServiceError]>([])
        let phone = try await stack.phone(permissions: Self.all.subtracting([.manageOwnCalls])) { observation in
            if case .incomingCallRefused(_, let error) = observation { refused.withLock { $0.append(error) } }
        }
        try await stack.companion()
        phone.setAppState(.background)
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await stack.registry.deliver(FCMTestMessage.ringing(call, to: phone)) == .silent)
        #expect(refused.snapshot == [.securityException])
        #expect(phone.connectionService.connections.isEmpty)
        // Nothing rang here, so nothing was declined: the caller still hears it ring (other devices may answer).
        #expect(try await alice.call(id: call.callId).state == .ringing)
        await stack.shutdown()
    }
}
