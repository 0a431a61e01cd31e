@preconcurrency import CallKit
import Foundation
@preconcurrency import PushKit
import RingerKit
import RingerKitAppleMirrored
import RingerTestSupport
import RingerWire
import Testing

/// RingerKitApple's PushKit side, on the PushKit/CallKit mirrors: registration order, PushKit's
/// report-before-completion rule, and the VoIP token's way to the server.
@Suite struct PushKitAdapterTests {
    @Test func registryHasItsDelegateBeforeItRegistersForVoIP() {
        let harness = PhoneHarness()
        #expect(harness.registry.desiredPushTypes == [.voIP])
        #expect(harness.registry.delegate != nil)
        #expect(!harness.registry.mirrorRegisteredWithoutDelegate)
    }

    @Test func pushIsReportedToCallKitBeforeThePushKitCompletion() async throws {
        let harness = PhoneHarness()
        let callID = UUID().uuidString.lowercased()
        let uuid = try #require(UUID(uuidString: callID))
        let reportedAtCompletion = await harness.deliverVoIPPush(PhoneHarness.voipPush(callID: callID, hasVideo: true))
        #expect(reportedAtCompletion == [.incoming(uuid, accepted: true)])
        let update = try #require(harness.provider.mirrorUpdate(for: uuid))
        #expect(update.remoteHandle?.type == .generic)
        #expect(update.remoteHandle?.value == "alice")
        #expect(update.localizedCallerName == "Alice")
        #expect(update.hasVideo)
        #expect(update.supportsHolding && !update.supportsGrouping && update.supportsDTMF)
        let server = harness.server
        #expect(await eventually(within: 5) { server.count("POST /v1/calls/\(callID)/ringing") == 1 })
        #expect(harness.observed(.ringing(callID: callID)))
    }

    /// A group call's push shows the caller and the count on CallKit's screen; the handle stays the caller's id, so
    /// Recents calls the caller back (decision 0007 §6).
    @Test func aGroupCallsPushShowsTheCallerAndTheOthersCount() async throws {
        let harness = PhoneHarness()
        let callID = UUID().uuidString.lowercased()
        let uuid = try #require(UUID(uuidString: callID))
        let group = VoIPPush.Group(count: 3, others: [Party(id: "carol"), Party(id: "dave")])
        _ = await harness.deliverVoIPPush(PhoneHarness.voipPush(callID: callID, group: group))
        let update = try #require(harness.provider.mirrorUpdate(for: uuid))
        #expect(update.localizedCallerName == "Alice and 2 others")
        #expect(update.remoteHandle?.value == "alice")
        #expect(IncomingCallReport.defaultGroupName(caller: "Alice", others: 1) == "Alice and 1 other")
        #expect(IncomingCallReport.defaultGroupName(caller: "Alice", others: 0) == "Alice")
    }

    @Test func unreadablePushIsReportedAndEndedBeforeTheCompletion() async throws {
        let harness = PhoneHarness()
        let reported = await harness.deliverVoIPPush(["aps": ["content-available": 1], "ringer": ["v": 1]])
        try #require(reported.count == 2)
        guard case .incoming(let uuid, accepted: true) = reported[0] else {
            Issue.record("first report was \(reported[0])")
            return
        }
        #expect(reported[1] == .ended(uuid, .failed))
    }

    @Test func pushForALoggedOutPhoneIsReportedAndEndedBeforeTheCompletion() async throws {
        let harness = PhoneHarness(loggedIn: false)
        harness.phone.logOut()
        let uuid = UUID()
        let reported = await harness.deliverVoIPPush(PhoneHarness.voipPush(callID: uuid.uuidString.lowercased()))
        #expect(reported == [.incoming(uuid, accepted: true), .ended(uuid, .failed)])
    }

    @Test func pushThatWakesTheAppBeforeLoginStillRingsAndWaitsForTheServer() async throws {
        let harness = PhoneHarness(loggedIn: false)
        let callID = UUID().uuidString.lowercased()
        let uuid = try #require(UUID(uuidString: callID))
        let reported = await harness.deliverVoIPPush(PhoneHarness.voipPush(callID: callID))
        #expect(reported == [.incoming(uuid, accepted: true)])
        #expect(harness.server.count("POST /v1/calls/\(callID)/ringing") == 0)
        harness.phone.logIn(userToken: "bob")
        let server = harness.server
        #expect(await eventually(within: 5) { server.count("POST /v1/calls/\(callID)/ringing") == 1 })
    }

    @Test func sameCallPushedTwiceIsReportedTwiceButRingsOnce() async throws {
        let harness = PhoneHarness()
        let callID = UUID().uuidString.lowercased()
        let uuid = try #require(UUID(uuidString: callID))
        _ = await harness.deliverVoIPPush(PhoneHarness.voipPush(callID: callID))
        let reported = await harness.deliverVoIPPush(PhoneHarness.voipPush(callID: callID))
        #expect(reported == [.incoming(uuid, accepted: true), .incoming(uuid, accepted: false)])
        #expect(harness.provider.mirrorActiveCalls == [uuid])
    }

    @Test func voipTokenIsRegisteredAsHexAndRemovedWhenPushKitInvalidatesIt() async throws {
        let harness = PhoneHarness()
        let server = harness.server
        harness.registry.mirrorUpdateCredentials(token: Data([0xab, 0x01, 0xff, 0x10]))
        #expect(await eventually(within: 5) { server.registration(device: "bob-iphone")?.voipToken == "ab01ff10" })
        let registration = try #require(server.registration(device: "bob-iphone"))
        #expect(registration.platform == .ios)
        #expect(registration.bundleID == "dev.ringer.demo")
        #expect(registration.apnsEnvironment == .sandbox)

        harness.phone.setAPNsToken(Data([0x01, 0x02]))
        #expect(await eventually(within: 5) { server.registration(device: "bob-iphone")?.apnsToken == "0102" })

        harness.registry.mirrorInvalidateToken()
        #expect(
            await eventually(within: 5) {
                server.registration(device: "bob-iphone").map { $0.voipToken == nil && $0.apnsToken == "0102" } ?? false
            })
    }

    @Test func logoutUnregistersTheDevice() async throws {
        let harness = PhoneHarness()
        let server = harness.server
        harness.registry.mirrorUpdateCredentials(token: Data([0x0a]))
        #expect(await eventually(within: 5) { server.registration(device: "bob-iphone") != nil })
        harness.phone.logOut()
        #expect(await eventually(within: 5) { server.count("DELETE /v1/devices/bob-iphone") == 1 })
        #expect(server.registration(device: "bob-iphone") == nil)
    }
}
