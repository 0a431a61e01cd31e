import Foundation
import RingerKit
import RingerSandbox
import RingerSupport
import RingerTestSupport
import RingerWire
import Testing

/// The simulated Android phone obeys Android's app-state, message and Doze rules, against a real Ringer
/// server on loopback; FCM messages are handed to it as the FCM sandbox would.
@Suite(.serialized) struct SimulatedAndroidPhoneTests {
    func uuid(_ call: Call) -> UUID { UUID(uuidString: call.callId)! }

    @Test func appNeverOpenedIsInTheStoppedStateAndGetsNothing() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = SimulatedAndroidPhone(
            identity: .init(userID: "bob", deviceID: "bob-android"), server: stack.url,
            userToken: try await stack.token("bob"), webSockets: LWSWebSocketTransport(),
            behaviour: .ignore)
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(phone.appState == .forceStopped)
        guard case .notDelivered = await phone.receive(FCMTestMessage.ringing(call, to: phone)) else {
            Issue.record("a never-opened app got a message")
            return await stack.shutdown()
        }
        #expect(phone.connectionService.connections.isEmpty)
        #expect(!phone.isProcessRunning)
        await stack.shutdown()
    }

    @Test func foregroundAppHoldsItsSocketAndABackgroundedOneIsFrozen() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone()
        #expect(await stack.holdsStream(phone, true))
        phone.setAppState(.background)
        #expect(phone.isProcessRunning)
        #expect(!phone.holdsEventStream)
        #expect(await stack.holdsStream(phone, false))
        phone.setAppState(.foreground)
        #expect(await stack.holdsStream(phone, true))
        await stack.shutdown()
    }

    @Test func swipedAwayAppIsStartedByAHighPriorityMessageAndRings() async throws {
        let stack = try await AndroidTestStack.start()
        let started = LockedValue(0)
        let phone = try await stack.phone { observation in
            if case .startedByMessage = observation { started.withLock { $0 += 1 } }
        }
        try await stack.companion()
        phone.setAppState(.swipedAway)
        #expect(!phone.isProcessRunning)
        #expect(await stack.holdsStream(phone, false))
        phone.setLocked(true)
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        let receipt = await stack.registry.deliver(FCMTestMessage.ringing(call, to: phone))
        #expect(receipt == .userVisible)
        #expect(started.snapshot == 1)
        #expect(phone.isProcessRunning)
        #expect(phone.appState == .background)
        #expect(phone.connectionService.connection(uuid(call))?.state == .ringing)
        #expect(phone.connectionService.connection(uuid(call))?.presentation == .fullScreen)
        #expect(phone.connectionService.isRinging)
        // Started for the message, the app is frozen again: no socket while it only rings.
        #expect(!phone.holdsEventStream)
        await stack.shutdown()
    }

    @Test func forceStoppedAppReceivesNothingUntilOpened() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone()
        try await stack.companion()
        phone.setAppState(.forceStopped)
        #expect(!phone.isProcessRunning)
        let alice = try await stack.api("alice", name: "Alice")
        let first = try await alice.createCall(callee: "bob")
        let refused = await stack.registry.deliver(FCMTestMessage.ringing(first, to: phone))
        guard case .notDelivered = refused else {
            Issue.record("a force-stopped app got \(String(describing: refused))")
            return await stack.shutdown()
        }
        #expect(phone.connectionService.connections.isEmpty)
        #expect(!phone.isProcessRunning)
        // Swiping or backgrounding does not leave the stopped state; only opening the app does.
        phone.setAppState(.swipedAway)
        #expect(phone.appState == .forceStopped)
        phone.setAppState(.foreground)
        let second = try await alice.createCall(callee: "bob")
        #expect(await stack.registry.deliver(FCMTestMessage.ringing(second, to: phone)) == .userVisible)
        #expect(phone.connectionService.connection(uuid(second))?.state == .ringing)
        await stack.shutdown()
    }

    @Test func forceStopEndsTheCallsOfTheAppWithoutTellingTheServer() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone()
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await eventually { phone.connectionService.connection(uuid(call))?.state == .ringing })
        phone.setAppState(.forceStopped)
        #expect(phone.connectionService.changes.contains(.endedBySystem(uuid(call))))
        #expect(!phone.connectionService.isRinging)
        #expect(try await alice.call(id: call.callId).state == .ringing)
        await stack.shutdown()
    }

    @Test func demotedMessageStillRingsButOnlyAsAHeadsUpNotification() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone()
        try await stack.companion()
        phone.setAppState(.swipedAway)
        phone.setLocked(true)
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        let message = FCMTestMessage.ringing(call, to: phone, requested: .high, delivered: .normal)
        #expect(await stack.registry.deliver(message) == .userVisible)
        #expect(phone.connectionService.connection(uuid(call))?.state == .ringing)
        #expect(phone.connectionService.connection(uuid(call))?.presentation == .headsUp)
        await stack.shutdown()
    }

    @Test func cancelMessageStopsTheRingingAndCountsAsVisibleOnlyWhenACallWasRinging() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone()
        try await stack.companion()
        phone.setAppState(.background)
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await stack.registry.deliver(FCMTestMessage.ringing(call, to: phone)) == .userVisible)
        _ = try await alice.cancel(callID: call.callId)
        // The call screen goes away: the user sees that, so FCM does not count it as misuse. (The app, started
        // by the ringing message, may have heard of the cancel on its socket first: then the stop shows nothing.)
        // The socket's cancel may also land between this read and the message: a call still ringing here may have
        // stopped by then (either receipt), but one already stopped never counts as visible.
        let wasRinging = phone.connectionService.connection(uuid(call))?.isRinging == true
        let receipt = await stack.registry.deliver(FCMTestMessage.update(.callCancelled, call, to: phone))
        #expect(wasRinging || receipt == .silent, "ringing before: \(wasRinging), receipt \(receipt)")
        #expect(phone.connectionService.connection(uuid(call))?.disconnectCause == DisconnectCause(.remote))
        #expect(!phone.connectionService.isRinging)
        // A second stop for the same call changes nothing on screen.
        #expect(await stack.registry.deliver(FCMTestMessage.update(.callCancelled, call, to: phone)) == .silent)
        // The same ringing message again (a retry that crossed the cancel) rings nothing.
        #expect(await stack.registry.deliver(FCMTestMessage.ringing(call, to: phone)) == .silent)
        #expect(phone.connectionService.connections.count == 1)
        await stack.shutdown()
    }

    @Test func missedCallNotificationIsShownByTheSystemEvenIfTheAppNeverRuns() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone()
        try await stack.companion()
        phone.setAppState(.swipedAway)
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await stack.registry.deliver(FCMTestMessage.missedCall(call, to: phone)) == .userVisible)
        #expect(phone.notifications == [.init(title: "Missed call", body: "Alice", postedBy: .system)])
        #expect(!phone.isProcessRunning)
        await stack.shutdown()
    }

    @Test func missedCallInTheForegroundReachesTheAppWhichEndsTheCallAndPostsTheNotification() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone()
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await eventually { phone.connectionService.connection(uuid(call))?.state == .ringing })
        #expect(await stack.registry.deliver(FCMTestMessage.missedCall(call, to: phone)) == .userVisible)
        #expect(phone.notifications == [.init(title: "Missed call", body: "Alice", postedBy: .app)])
        #expect(phone.connectionService.connection(uuid(call))?.disconnectCause == DisconnectCause(.missed))
        await stack.shutdown()
    }

    @Test func ringerStopsWhenEveryRingingCallIsDeclinedInEitherOrder() async throws {
        for reversed in [false, true] {
            let stack = try await AndroidTestStack.start()
            let phone = try await stack.phone()
            try await stack.companion()
            phone.setAppState(.background)
            let alice = try await stack.api("alice", name: "Alice")
            let carol = try await stack.api("carol", name: "Carol")
            let calls = [try await alice.createCall(callee: "bob"), try await carol.createCall(callee: "bob")]
            for call in calls {
                #expect(await stack.registry.deliver(FCMTestMessage.ringing(call, to: phone)) == .userVisible)
            }
            #expect(phone.connectionService.isRinging)
            let order = reversed ? calls.reversed() : calls
            phone.decline(callID: order[0].callId)
            #expect(phone.connectionService.isRinging, "the other call still rings")
            phone.decline(callID: order[1].callId)
            #expect(!phone.connectionService.isRinging)
            for (call, caller) in zip(calls, [alice, carol]) {
                #expect(phone.connectionService.connection(uuid(call))?.disconnectCause == DisconnectCause(.rejected))
                #expect(await waitFor { (try? await caller.call(id: call.callId).state) == .declined })
            }
            #expect(phone.connectionService.changes.filter { $0 == .ringerStopped }.count == 1)
            await stack.shutdown()
        }
    }

    @Test func dozingAndNetworkChangesAreReportedToTheRegistry() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone()
        phone.setDozing(true)
        phone.setOnline(false)
        phone.setOnline(true)
        phone.setDozing(false)
        #expect(stack.registry.reachabilityChanges == [.dozing, .offline, .dozing, .online])
        #expect(stack.registry.device(phone.identity.fcmToken)?.reachability == .online)
        await stack.shutdown()
    }

    @Test func offlinePhoneDropsItsSocketAndGetsNoMessageUntilBackOnline() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone()
        try await stack.companion()
        phone.setOnline(false)
        #expect(await stack.holdsStream(phone, false))
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        guard case .notDelivered = await phone.receive(FCMTestMessage.ringing(call, to: phone)) else {
            Issue.record("an offline phone got a message")
            return await stack.shutdown()
        }
        phone.setOnline(true)
        #expect(await stack.holdsStream(phone, true))
        // Back online in the foreground, the socket's replay and the refresh bring the call.
        #expect(await eventually { phone.connectionService.connection(uuid(call))?.state == .ringing })
        await stack.shutdown()
    }

    @Test func dozingPhoneTakesWhatArrivesAndDropsItsIdleSocket() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone()
        try await stack.companion()
        phone.setAppState(.background)
        phone.setDozing(true)
        let alice = try await stack.api("alice", name: "Alice")
        let call = try await alice.createCall(callee: "bob")
        #expect(await stack.registry.deliver(FCMTestMessage.ringing(call, to: phone)) == .userVisible)
        #expect(!phone.holdsEventStream)
        await stack.shutdown()
    }

    @Test func uninstallDeletesTheToken() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone()
        phone.uninstall()
        #expect(stack.registry.unregistered == [phone.identity.fcmToken])
        #expect(stack.registry.device(phone.identity.fcmToken)?.unregisteredAt != nil)
        #expect(!phone.isProcessRunning)
        await stack.shutdown()
    }

    @Test func messageThatIsNotRingersIsSilent() async throws {
        let stack = try await AndroidTestStack.start()
        let phone = try await stack.phone()
        let message = FCMSandboxMessage(
            name: "projects/p/messages/1", projectID: "p", token: phone.identity.fcmToken,
            data: ["chat": "hello"], requestedPriority: .high, priority: .high, ttl: 60,
            acceptedAt: Date())
        #expect(await phone.receive(message) == .silent)
        #expect(phone.connectionService.connections.isEmpty)
        await stack.shutdown()
    }
}
