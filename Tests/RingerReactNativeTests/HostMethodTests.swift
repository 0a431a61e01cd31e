@preconcurrency import CallKit
import Foundation
@preconcurrency import PushKit
import RingerKit
import RingerKitAppleMirrored
@testable import RingerReactNativeMirrored
import RingerTestSupport
import RingerWire
import Testing

/// The module's methods on a host as an app runs it: typed errors for bad input and wrong moments, never a crash,
/// and calls answered and ended through CallKit.
@Suite struct HostMethodTests {
    let callID = UUID().uuidString.lowercased()

    /// `configure` is left out: it starts the host itself (HostServerTests).
    @Test func beforeStartEveryMethodButConfigureTheReplayAndTheHistoryRejectsNotConfigured() async throws {
        let harness = HostHarness()
        let host = harness.host
        let token = HostHarness.token(for: "bob")
        #expect(await HostHarness.code { _ = try await host.login(userToken: token) } == "not_configured")
        #expect(await HostHarness.code { try await host.logout() } == "not_configured")
        #expect(
            await HostHarness.code { _ = try await host.startCall(callee: "alice", video: false) } == "not_configured")
        #expect(await HostHarness.code { try await host.answer(callID: callID) } == "not_configured")
        #expect(await HostHarness.code { try await host.decline(callID: callID) } == "not_configured")
        #expect(await HostHarness.code { try await host.hangUp(callID: callID) } == "not_configured")
        #expect(await HostHarness.code { _ = try host.calls() } == "not_configured")
        #expect(await HostHarness.code { _ = try await host.readiness() } == "not_configured")
        #expect(await HostHarness.code { _ = try host.setHeld(callID: callID, held: true) } == "not_configured")
        #expect(await HostHarness.code { _ = try host.setMuted(callID: callID, muted: true) } == "not_configured")
        #expect(await HostHarness.code { _ = try host.playDTMF(callID: callID, digits: "1") } == "not_configured")
        #expect(await HostHarness.code { _ = try host.audioRoutes() } == "not_configured")
        #expect(await HostHarness.code { _ = try host.setAudioRoute(outputID: "speaker") } == "not_configured")
        #expect(harness.attach().replay.isEmpty)
        #expect(try host.callHistory(limit: 10).isEmpty)
        #expect(harness.createdPhones.isEmpty)
    }

    @Test func withoutAServerConfigureRejectsUntilItIsGivenOneAndKeepsIt() async throws {
        let harness = HostHarness(infoServer: nil)
        let host = harness.host
        host.start()
        #expect(harness.createdPhones.isEmpty)
        #expect(
            await HostHarness.code { _ = try await host.login(userToken: HostHarness.token(for: "bob")) }
                == "not_configured")
        #expect(await HostHarness.code { _ = try await host.configure(server: nil) } == "not_configured")
        for bad in ["ftp://127.0.0.1", "not a url", "http://", ""] {
            #expect(
                await HostHarness.code { _ = try await host.configure(server: bad) } == "invalid_argument", "\(bad)")
        }
        let state = try await host.configure(server: "http://127.0.0.1:9")
        #expect(state.server == "http://127.0.0.1:9")
        #expect(state.deviceID == "bob-iphone")
        #expect(state.platform == "ios")
        #expect(state.userID == nil)
        #expect(state.calls.isEmpty)
        #expect(harness.createdPhones.count == 1)
        // Asked again, with another server: stored for the next launch; this process keeps its one phone.
        let again = try await host.configure(server: "https://ringer.example.com")
        #expect(again.server == "http://127.0.0.1:9")
        #expect(harness.createdPhones.count == 1)

        let nextLaunch = HostHarness(folder: harness.folder, infoServer: nil)
        nextLaunch.host.start()
        #expect(try nextLaunch.phone().server.absoluteString == "https://ringer.example.com")
    }

    @Test func aCallIDThatIsNotAUUIDIsAnInvalidArgumentAndAnUnknownOneAnUnknownCall() async throws {
        let harness = HostHarness()
        let host = harness.host
        host.start()
        for bad in [
            "", "not-a-uuid", "6f1d1c3e-3c55-4b1f-9d0a", "'; DROP TABLE calls; --",
            String(repeating: "x", count: 10_000),
        ] {
            #expect(await HostHarness.code { try await host.answer(callID: bad) } == "invalid_argument")
            #expect(await HostHarness.code { try await host.decline(callID: bad) } == "invalid_argument")
            #expect(await HostHarness.code { try await host.hangUp(callID: bad) } == "invalid_argument")
        }
        #expect(await HostHarness.code { try await host.answer(callID: callID) } == "unknown_call")
        #expect(await HostHarness.code { try await host.decline(callID: callID.uppercased()) } == "unknown_call")
        #expect(await HostHarness.code { try await host.hangUp(callID: callID) } == "unknown_call")
        for bad in [-1, 1.5, .infinity, .nan] {
            #expect(await HostHarness.code { _ = try host.callHistory(limit: bad) } == "invalid_argument", "\(bad)")
        }
        #expect(
            await HostHarness.code { _ = try await host.startCall(callee: "  ", video: false) } == "invalid_argument")
    }

    @Test func loginKeepsOneUserAtATime() async throws {
        let harness = HostHarness()
        let host = harness.host
        host.start()
        #expect(
            await HostHarness.code { _ = try await host.startCall(callee: "alice", video: false) } == "not_logged_in")
        #expect(await HostHarness.code { _ = try await host.login(userToken: "not-a-jwt") } == "invalid_argument")
        #expect(await HostHarness.code { _ = try await host.login(userToken: "") } == "invalid_argument")
        #expect(try await host.login(userToken: HostHarness.token(for: "bob")).userID == "bob")
        // The same user again refreshes the token.
        #expect(try await host.login(userToken: HostHarness.token(for: "bob", serial: 1)).userID == "bob")
        #expect(
            await HostHarness.code { _ = try await host.login(userToken: HostHarness.token(for: "alice")) }
                == "other_user_logged_in")
        #expect(try harness.phone().registrar.status.isLoggedIn)
        try await host.logout()
        #expect(try await host.login(userToken: HostHarness.token(for: "alice")).userID == "alice")
    }

    @Test func logoutDuringACallIsRefusedUntilItIsHungUp() async throws {
        let harness = try await HostHarness.loggedIn()
        let host = harness.host
        let callID = try await harness.ring()
        #expect(try host.calls().map(\.callID) == [callID])
        #expect(await HostHarness.code { try await host.logout() } == "call_in_progress")
        #expect(try harness.phone().registrar.status.isLoggedIn)

        try await host.hangUp(callID: callID.uppercased())
        let server = harness.server
        #expect(await eventually(within: 5) { server.count("POST /v1/calls/\(callID)/decline") == 1 })
        #expect(try host.calls().isEmpty)
        try await host.logout()
        #expect(try !harness.phone().registrar.status.isLoggedIn)
        #expect(await HostHarness.code { try await host.hangUp(callID: callID) } == "unknown_call")
    }

    @Test func answerGoesThroughCallKitAndDeclineOnlyRefusesARingingCall() async throws {
        let harness = try await HostHarness.loggedIn()
        let host = harness.host
        let controller = try harness.phone().callKit.callController
        let callID = try await harness.ring()

        try await host.answer(callID: callID)
        let answer = try #require(controller.mirrorTransactions.last?.actions.first as? CXAnswerCallAction)
        #expect(answer.callUUID == UUID(uuidString: callID))
        #expect(await eventually(within: 5) { answer.mirrorOutcome == .fulfilled })
        #expect(harness.server.count("POST /v1/calls/\(callID)/accept") == 1)
        try await host.answer(callID: callID)  // answered already: nothing more
        #expect(controller.mirrorTransactions.count == 1)
        #expect(try host.calls().first?.state == "active")
        #expect(await HostHarness.code { try await host.decline(callID: callID) } == "wrong_state")

        let other = try await harness.ring()
        try await host.decline(callID: other)
        #expect(controller.mirrorTransactions.last?.actions.first is CXEndCallAction)
        let server = harness.server
        #expect(await eventually(within: 5) { server.count("POST /v1/calls/\(other)/decline") == 1 })
    }

    @Test func holdMuteAndKeypadGoThroughCallKitAndTheAudioRouteIsReadAndChosen() async throws {
        let harness = try await HostHarness.loggedIn()
        let host = harness.host
        let controller = try harness.phone().callKit.callController
        let callID = try await harness.ring()
        #expect(try !host.setHeld(callID: callID, held: true), "a ringing call is not held")
        #expect(try !host.playDTMF(callID: callID, digits: "1"), "a ringing call plays no tones")
        #expect(await HostHarness.code { _ = try host.playDTMF(callID: callID, digits: "1,2") } == "invalid_argument")
        #expect(await HostHarness.code { _ = try host.setMuted(callID: "nope", muted: true) } == "invalid_argument")
        #expect(
            await HostHarness.code { _ = try host.setMuted(callID: UUID().uuidString, muted: true) } == "unknown_call")
        try await host.answer(callID: callID)
        let answer = try #require(controller.mirrorTransactions.last?.actions.first as? CXAnswerCallAction)
        #expect(await eventually(within: 5) { answer.mirrorOutcome == .fulfilled })
        #expect(try host.setHeld(callID: callID.uppercased(), held: true))
        #expect(try host.setMuted(callID: callID, muted: true))
        let actions = controller.mirrorTransactions.flatMap(\.actions)
        #expect(actions.contains { ($0 as? CXSetHeldCallAction)?.isOnHold == true })
        #expect(actions.contains { ($0 as? CXSetMutedCallAction)?.isMuted == true })
        let coordinator = try harness.phone().coordinator
        #expect(await eventually(within: 5) { coordinator.currentCalls().first?.held == true })
        #expect(try !host.playDTMF(callID: callID, digits: "5"), "a held call plays no tones")

        let routes = try host.audioRoutes()
        #expect(routes.outputs.map(\.id).contains("speaker"))
        #expect(try host.setAudioRoute(outputID: "speaker"))
        #expect(try !host.setAudioRoute(outputID: "a-headset-that-is-not-there"))
    }

    @Test func theServersHistoryIsReadAPageAtATimeAndCallWaitingIsChecked() async throws {
        let harness = try await HostHarness.loggedIn()
        let host = harness.host
        let page = try await host.recentCalls(limit: 20, before: nil)
        let object = BridgeJSON.foundationObject(page) as? [String: Any]
        let calls = try #require(object?["calls"] as? [[String: Any]])
        #expect(calls.first?["state"] as? String == "unanswered")
        #expect(calls.first?["waiting"] as? Bool == true)
        #expect(calls.first?["acceptedAt"] is NSNull, "every key present, null where absent")
        #expect(calls.first?["createdAt"] is NSNumber)
        #expect(object?["nextBefore"] as? String == "6f1d1c3e-3c55-4b1f-9d0a-1f6a3b1f7a01")
        #expect(
            await HostHarness.code { _ = try await host.recentCalls(limit: 101, before: nil) } == "invalid_argument")
        #expect(await HostHarness.code { _ = try await host.recentCalls(limit: 0, before: "x") } == "invalid_argument")
        #expect(
            await HostHarness.code { _ = try await host.startCall(callee: "alice", video: false, callWaiting: "maybe") }
                == "invalid_argument")
    }

    @Test func startCallTellsJavaScriptAndMapsCallKitsRefusal() async throws {
        let harness = try await HostHarness.loggedIn()
        let host = harness.host
        _ = harness.attach()
        let call = try await host.startCall(callee: "alice", video: false)
        #expect(call.state == "ringing")
        #expect(call.direction == "outgoing")
        #expect(call.peer.id == "alice")
        let emitted = harness.emitted
        let outgoing = BridgeEvent.outgoing(callID: call.callID, callee: Party(id: "alice"), hasVideo: false)
        #expect(await eventually(within: 5) { HostHarness.callEvents(emitted.all) == [outgoing] })
        #expect(try host.calls() == [call])
        #expect(await HostHarness.code { _ = try await host.answer(callID: call.callID) } == "wrong_state")
        #expect(await HostHarness.code { try await host.decline(callID: call.callID) } == "wrong_state")
        try await host.hangUp(callID: call.callID)
        let server = harness.server
        #expect(await eventually(within: 5) { server.count("POST /v1/calls/\(call.callID)/cancel") == 1 })
        #expect(
            await eventually(within: 5) {
                HostHarness.callEvents(emitted.all).last
                    == .ended(callID: call.callID, reason: "local", serverReason: nil)
            })

        try harness.phone().callKit.callController.mirrorRefuseTransactions(
            with: MirrorCallKitError(code: "maximumCallGroupsReached"))
        #expect(
            await HostHarness.code { _ = try await host.startCall(callee: "alice", video: true) } == "call_ui_refused")
    }

    /// Group calls from JavaScript: the list is checked natively too, the answer carries the participants, `getCalls`
    /// keeps them, and a ring-more answers them grown (decision 0007 §8).
    @Test func startGroupCallAnswersTheParticipantsAndRingMoreAddsToThem() async throws {
        let harness = try await HostHarness.loggedIn()
        let host = harness.host
        _ = harness.attach()
        #expect(
            await HostHarness.code {
                _ = try await host.startGroupCall(callees: [], video: false, answerPolicy: "first_answer")
            } == "invalid_argument")
        #expect(
            await HostHarness.code {
                _ = try await host.startGroupCall(callees: ["bob"], video: false, answerPolicy: "ring_in_turn")
            } == "invalid_argument")
        let call = try await host.startGroupCall(callees: ["bob", "carol"], video: false, answerPolicy: "all_may_join")
        #expect(call.state == "ringing" && call.peer.id == "bob")
        #expect(call.participants?.map(\.user.party.id) == ["bob", "carol"])
        #expect(call.participants?.map(\.state) == ["ringing", "ringing"])
        #expect(try host.calls().first?.participants == call.participants)
        let participants = try await host.ringMore(callID: call.callID.uppercased(), callees: ["dave"])
        #expect(participants.map(\.user.party.id) == ["bob", "carol", "dave"])
        #expect(
            await HostHarness.code { _ = try await host.ringMore(callID: call.callID, callees: [""]) }
                == "invalid_argument")
        #expect(
            await HostHarness.code {
                _ = try await host.ringMore(callID: "6f1d1c3e-3c55-4b1f-9d0a-000000000000", callees: ["dave"])
            } == "unknown_call")
        // A 1:1 call has no participants.
        let single = try await host.startCall(callee: "alice", video: false)
        #expect(single.participants == nil)
    }

    @Test func readinessNamesTheMissingVoIPTokenUntilPushKitGivesOne() async throws {
        let harness = HostHarness(problems: [.notificationsDisabled])
        let host = harness.host
        host.start()
        _ = harness.attach()
        #expect(try await host.readiness() == ["notifications_disabled", "no_push_token"])
        try harness.phone().pushKit.registry.mirrorUpdateCredentials(token: Data([0xab]))
        let registrar = try harness.phone().registrar
        #expect(await eventually(within: 5) { registrar.status.tokens.voip == "ab" })
        #expect(try await host.readiness() == ["notifications_disabled"])
        #expect(harness.emitted.all.contains(.readinessChanged(problems: ["notifications_disabled"])))
        #expect(try await host.openReadinessSettings(problem: "notifications_disabled"))
        #expect(!(try await host.openReadinessSettings(problem: "battery_optimized")))
    }

    @Test func anInvalidatedModuleOnlyDetachesItsOwnAttachment() async throws {
        let harness = HostHarness()
        let host = harness.host
        let old = harness.attach().attachment
        let current = harness.attach().attachment
        host.detach(attachment: old)
        host.observe(.streamStatus(.connected))
        #expect(harness.emitted.all == [.connectionChanged(status: "connected")])
        host.detach(attachment: current)
        host.observe(.streamStatus(.restored))
        #expect(harness.emitted.all.count == 1)
        #expect(harness.attach().replay == [.connectionChanged(status: "restored")])
    }

    /// A JavaScript instance that attaches during a call (a reload, expo-updates' `reloadAsync`) finds the media of
    /// the call's `accepted` in `getCalls` and `configure`, so it can join the call again; the media goes with the
    /// call.
    @Test func getCallsCarriesTheMediaOfAnAcceptedCallUntilItEnds() async throws {
        let harness = try await HostHarness.loggedIn()
        let host = harness.host
        let callID = try await harness.ring()
        let ringing = try #require(BridgeJSON.foundationObject(try host.calls()) as? [[String: Any]])
        #expect(ringing.first?["media"] is NSNull)

        try await host.answer(callID: callID)
        #expect(await eventually(within: 5) { (try? host.calls().first?.state) == "active" })
        try harness.phone().callKit.provider.mirrorActivateAudioSession()
        let media = harness.server.media(callID)
        #expect(await eventually(within: 5) { (try? host.calls().first?.media) == media })
        #expect(try await host.configure(server: nil).calls.first?.media == media)
        let active = try #require(BridgeJSON.foundationObject(try host.calls()) as? [[String: Any]])
        #expect(active.first?["media"] as? [String: String] == ["url": media.url, "token": media.token])

        try await host.hangUp(callID: callID)
        #expect(await eventually(within: 5) { host.withState { $0.media.isEmpty } })
        #expect(try host.calls().isEmpty)
    }

    /// The app's screen may ask again while the server has not confirmed the answer: nothing more is sent.
    @Test func answeringACallThatIsBeingAnsweredResolvesWithNothingMoreToDo() async throws {
        let harness = try await HostHarness.loggedIn()
        let host = harness.host
        let controller = try harness.phone().callKit.callController
        let server = harness.server
        server.answerAccepts(.hold)
        let callID = try await harness.ring()

        try await host.answer(callID: callID)
        #expect(await eventually(within: 5) { server.heldAccepts == 1 })
        #expect(try host.calls().first?.state == "answering")
        try await host.answer(callID: callID)
        #expect(controller.mirrorTransactions.count == 1)
        #expect(await HostHarness.code { try await host.decline(callID: callID) } == "wrong_state")
        server.releaseHeldAccepts()
        #expect(await eventually(within: 5) { (try? host.calls().first?.state) == "active" })
        #expect(server.count("POST /v1/calls/\(callID)/accept") == 1)
    }

    /// A 2xx whose body is no call (a proxy's page) is not a network failure: retrying will not help.
    @Test func startCallRejectsNativeWhenTheServersAnswerCannotBeRead() async throws {
        let harness = try await HostHarness.loggedIn()
        let host = harness.host
        harness.server.answerCreatesUnreadably()
        #expect(await HostHarness.code { _ = try await host.startCall(callee: "alice", video: false) } == "native")
        #expect(harness.server.count("POST /v1/calls") == 1)
        #expect(try host.calls().isEmpty)
    }

    /// The callee declines at once, while CallKit is still taking the call: until `startCall` returns, the call is
    /// named by the callee's id alone; JavaScript hears of it and of its end, and once `startCall` returned the host
    /// keeps nothing of it.
    @Test func anOutgoingCallThatEndsBeforeStartCallReturnsLeavesNothingBehind() async throws {
        let harness = try await HostHarness.loggedIn()
        let host = harness.host
        _ = harness.attach()
        let sockets = harness.sockets
        #expect(await eventually(within: 5) { sockets.connections == 1 })
        let controller = try harness.phone().callKit.callController
        controller.mirrorHoldCompletions()
        let placing = Task { try await host.startCall(callee: "alice", video: false) }
        #expect(await eventually(within: 5) { controller.mirrorTransactions.count == 1 })
        let callID = try #require(harness.server.createdCallIDs.first)
        #expect(try host.calls().map(\.peer) == [Party(id: "alice", name: nil)])

        // The stream keeps bob's resume point across test runs: a sequence number from the clock is always newer.
        let seq = Int64(Date().timeIntervalSince1970 * 1000)
        let declined = harness.server.call(callID, .declined, caller: "bob", callee: "alice")
        try sockets.deliver(CallEvent(seq: seq, type: .callDeclined, call: declined))
        #expect(await eventually(within: 5) { (try? host.calls().isEmpty) == true })
        controller.mirrorReleaseCompletions()
        #expect(try await placing.value.callID == callID)
        #expect(host.withState { $0.outgoing.isEmpty && $0.media.isEmpty })
        #expect(
            HostHarness.callEvents(harness.emitted.all) == [
                .outgoing(callID: callID, callee: Party(id: "alice", name: nil), hasVideo: false),
                .ended(callID: callID, reason: "remote_ended", serverReason: "declined"),
            ])
    }
}
