import Foundation
import HTTP2Client
import RingerSandbox
import RingerTestSupport
import Testing

/// Messages sent over the sandbox's socket reach in-process phones by FCM's rules for online, dozing and
/// offline phones, `ttl`, and demotion of high-priority misuse.
@Suite(.serialized) struct FCMSandboxDeliveryTests {
    /// Sends one message per name and returns the names FCM answered, in order.
    @discardableResult
    private func send(
        _ fixture: FCMSandboxFixture, to token: String, _ names: [String], priority: String = "HIGH",
        ttl: String = "60s", accessToken: String
    ) async throws -> [String] {
        var answered: [String] = []
        for name in names {
            let response = try await fixture.send(
                FCMSandboxFixture.message(to: token, name: name, priority: priority, ttl: ttl),
                accessToken: accessToken)
            #expect(response.status == 200, "\(name)")
            answered.append(try #require(FCMSandboxFixture.object(response.body)["name"] as? String))
        }
        return answered
    }

    @Test func anOnlinePhoneGetsMessagesAtOnceAndItsReceiptIsRecorded() async throws {
        try await FCMSandboxFixture.with { fixture in
            let phone = ReceivingPhone(answering: .userVisible)
            fixture.sandbox.register(
                FCMSandboxDevice(token: "p", projectID: FCMSandboxFixture.project, deliver: phone.deliver))
            let names = try await send(
                fixture, to: "p", ["a", "b"], priority: "NORMAL", accessToken: try await fixture.accessToken())
            #expect(await eventually { phone.names == ["a", "b"] && fixture.sandbox.deliveriesUnderway == 0 })
            #expect(names.allSatisfy { fixture.sandbox.deliveryState(ofMessage: $0) == .delivered(.userVisible) })
            #expect(phone.messages.first?.priority == .normal)
        }
    }

    @Test func aDozingPhoneGetsHighAtOnceAndNormalOnlyInAMaintenanceWindow() async throws {
        try await FCMSandboxFixture.with { fixture in
            let phone = ReceivingPhone()
            fixture.sandbox.register(
                FCMSandboxDevice(
                    token: "p", projectID: FCMSandboxFixture.project, reachability: .dozing,
                    deliver: phone.deliver))
            let accessToken = try await fixture.accessToken()
            let normal = try await send(fixture, to: "p", ["normal"], priority: "NORMAL", accessToken: accessToken)
            try await send(fixture, to: "p", ["high"], accessToken: accessToken)
            #expect(await eventually { phone.names == ["high"] })
            #expect(fixture.sandbox.deliveryState(ofMessage: normal[0]) == .stored)
            #expect(fixture.sandbox.storedMessages(token: "p").count == 1)
            let window = try await fixture.control("POST", "/sandbox/maintenance", json: "{}")
            #expect(window.status == 200 && FCMSandboxFixture.object(Array(window.body.utf8))["delivered"] as? Int == 1)
            #expect(await eventually { phone.names == ["high", "normal"] })
            #expect(fixture.sandbox.runMaintenanceWindow() == 0)
        }
    }

    @Test func leavingDozeDeliversWhatWaited() async throws {
        try await FCMSandboxFixture.with { fixture in
            let phone = ReceivingPhone()
            fixture.sandbox.register(
                FCMSandboxDevice(
                    token: "p", projectID: FCMSandboxFixture.project, reachability: .dozing,
                    deliver: phone.deliver))
            try await send(
                fixture, to: "p", ["n1", "n2"], priority: "NORMAL", accessToken: try await fixture.accessToken())
            try await Task.sleep(for: .milliseconds(200))
            #expect(phone.names.isEmpty)
            fixture.sandbox.setReachability(token: "p", .online)
            #expect(await eventually { phone.names == ["n1", "n2"] })
        }
    }

    @Test func anOfflinePhoneGetsWhatIsStoredWhenBackUnlessItsTTLRanOut() async throws {
        try await FCMSandboxFixture.with { fixture in
            let phone = ReceivingPhone()
            fixture.sandbox.register(
                FCMSandboxDevice(
                    token: "p", projectID: FCMSandboxFixture.project, reachability: .offline,
                    deliver: phone.deliver))
            let accessToken = try await fixture.accessToken()
            let short = try await send(fixture, to: "p", ["short"], ttl: "30s", accessToken: accessToken)
            try await send(fixture, to: "p", ["long1", "long2"], ttl: "300s", accessToken: accessToken)
            fixture.advance(31)
            #expect(fixture.sandbox.deliveryState(ofMessage: short[0]) == .expired)
            // Back online, but in Doze: the HIGH messages come through at once.
            fixture.sandbox.setReachability(token: "p", .dozing)
            #expect(await eventually { phone.names == ["long1", "long2"] })
            #expect(fixture.sandbox.statistics.expiredMessages == 1)
        }
    }

    @Test func ttlZeroReachesOnlyAPhoneThatTakesItAtOnce() async throws {
        try await FCMSandboxFixture.with { fixture in
            let phone = ReceivingPhone()
            fixture.sandbox.register(
                FCMSandboxDevice(
                    token: "p", projectID: FCMSandboxFixture.project, reachability: .offline,
                    deliver: phone.deliver))
            let accessToken = try await fixture.accessToken()
            let lost = try await send(fixture, to: "p", ["while-offline"], ttl: "0s", accessToken: accessToken)
            #expect(fixture.sandbox.deliveryState(ofMessage: lost[0]) == .expired)
            fixture.sandbox.setReachability(token: "p", .online)
            try await send(fixture, to: "p", ["while-online"], ttl: "0s", accessToken: accessToken)
            #expect(await eventually { phone.names == ["while-online"] })
        }
    }

    @Test func repeatedHighMessagesThatShowNothingDemoteTheAppUntilAWindowPasses() async throws {
        try await FCMSandboxFixture.with(configure: {
            $0.demotionThreshold = 2
            $0.demotionWindow = 600
        }) { fixture in
            let phone = ReceivingPhone(answering: .silent)
            fixture.sandbox.register(
                FCMSandboxDevice(
                    token: "p", projectID: FCMSandboxFixture.project, reachability: .dozing,
                    deliver: phone.deliver))
            let accessToken = try await fixture.accessToken()
            try await send(fixture, to: "p", ["silent1", "silent2"], accessToken: accessToken)
            #expect(await eventually { phone.names.count == 2 && fixture.sandbox.deliveriesUnderway == 0 })
            #expect(fixture.sandbox.isDemoted(projectID: FCMSandboxFixture.project, packageName: "dev.ringer.demo"))
            // Demoted: a HIGH message arrives as NORMAL, so the dozing phone gets it only in a maintenance window.
            let demoted = try await send(fixture, to: "p", ["demoted"], accessToken: accessToken)
            let record = try #require(fixture.sandbox.acceptedMessages.last)
            #expect(record.requestedPriority == .high && record.priority == .normal)
            #expect(fixture.sandbox.deliveryState(ofMessage: demoted[0]) == .stored)
            #expect(fixture.sandbox.statistics.demotedMessages == 1)
            fixture.sandbox.runMaintenanceWindow(token: "p")
            #expect(await eventually { phone.names.last == "demoted" })
            // A window later the app's HIGH messages are HIGH again.
            fixture.advance(601)
            phone.answer(with: .userVisible)
            try await send(fixture, to: "p", ["restored"], accessToken: accessToken)
            #expect(await eventually { phone.names.last == "restored" })
            #expect(phone.messages.last?.priority == .high)
        }
    }

    @Test func aDeletedTokensStoredMessagesAreNeverDelivered() async throws {
        try await FCMSandboxFixture.with { fixture in
            let phone = ReceivingPhone()
            fixture.sandbox.register(
                FCMSandboxDevice(
                    token: "p", projectID: FCMSandboxFixture.project, reachability: .offline,
                    deliver: phone.deliver))
            let stored = try await send(fixture, to: "p", ["m"], accessToken: try await fixture.accessToken())
            fixture.sandbox.unregister(token: "p", at: Date())
            fixture.sandbox.setReachability(token: "p", .online)
            #expect(fixture.sandbox.deliveryState(ofMessage: stored[0]) == .discarded)
            try await Task.sleep(for: .milliseconds(200))
            #expect(phone.names.isEmpty)
        }
    }

    @Test func aNewerMessageWithTheSameCollapseKeyReplacesAStoredOne() async throws {
        try await FCMSandboxFixture.with { fixture in
            let phone = ReceivingPhone()
            fixture.sandbox.register(
                FCMSandboxDevice(
                    token: "p", projectID: FCMSandboxFixture.project, reachability: .offline,
                    deliver: phone.deliver))
            let accessToken = try await fixture.accessToken()
            for name in ["ring-1", "ring-2"] {
                let body = FCMSandboxFixture.message(to: "p", name: name, collapseKey: "call-42")
                #expect(try await fixture.send(body, accessToken: accessToken).status == 200)
            }
            fixture.sandbox.setReachability(token: "p", .online)
            #expect(await eventually { phone.names == ["ring-2"] })
            #expect(fixture.sandbox.statistics.collapsedMessages == 1)
        }
    }
}
