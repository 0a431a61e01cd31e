@preconcurrency import CallKit
import Foundation
import RingerKit
import RingerKitAppleMirrored
import RingerTestSupport
import RingerWire
import Testing

/// RingerKitApple's CallKit side, on the CallKit mirror: the user's actions reach the coordinator and
/// complete as CallKit expects, and the coordinator's decisions reach CallKit with the right reasons.
@Suite struct CallKitAdapterTests {
    @Test(arguments: [
        (CallEndReason.failed, CXCallEndedReason.failed),
        (.remoteEnded, .remoteEnded),
        (.unanswered, .unanswered),
        (.answeredElsewhere, .answeredElsewhere),
        (.declinedElsewhere, .declinedElsewhere),
        (CallEndReason(rawValue: "reason_from_a_newer_server"), .remoteEnded),
    ])
    func endReasonMapsToCallKit(_ reason: CallEndReason, _ expected: CXCallEndedReason) {
        #expect(CXCallEndedReason(reason) == expected)
    }

    @Test(arguments: [
        (EventType.callCancelled, CallState.cancelled, CXCallEndedReason.remoteEnded),
        (.callAnsweredElsewhere, .accepted, .answeredElsewhere),
        (.callDeclinedElsewhere, .ringing, .declinedElsewhere),
        (.callUnanswered, .unanswered, .unanswered),
    ])
    func remoteEndingReachesCallKitWithItsReason(
        _ type: EventType, _ state: CallState,
        _ expected: CXCallEndedReason
    ) async throws {
        let harness = PhoneHarness()
        let uuid = try #require(await harness.ring())
        let sockets = harness.sockets
        #expect(await eventually(within: 5) { sockets.connections == 1 })
        try harness.deliverEvent(type, callID: uuid.uuidString.lowercased(), state: state, seq: 1)
        let provider = harness.provider
        #expect(await eventually(within: 5) { provider.mirrorReports.contains(.ended(uuid, expected)) })
        #expect(provider.mirrorReports.filter { if case .ended = $0 { true } else { false } }.count == 1)
    }

    /// Two call groups of one call each: a second call offers "Hold & Accept" and a swap (decision 0008).
    @Test func theDefaultConfigurationHasTwoCallGroupsOfOneCall() {
        let configuration = CallKitAdapter.defaultConfiguration()
        #expect(configuration.maximumCallGroups == 2)
        #expect(configuration.maximumCallsPerCallGroup == 1)
    }

    @Test func backgroundPushClosesTheCall() async throws {
        let harness = PhoneHarness()
        let uuid = try #require(await harness.ring())
        let notice: [AnyHashable: Any] = [
            "aps": ["content-available": 1],
            "ringer": ["v": 1, "type": "call.answered_elsewhere", "call_id": uuid.uuidString.lowercased()],
        ]
        #expect(harness.phone.handleNotification(notice))
        #expect(harness.provider.mirrorReports.last == .ended(uuid, .answeredElsewhere))
        #expect(!harness.phone.handleNotification(["aps": ["alert": "hello"]]))
    }

    @Test func answerIsFulfilledOnlyAfterTheServerAccepted() async throws {
        let harness = PhoneHarness()
        let uuid = try #require(await harness.ring())
        let callID = uuid.uuidString.lowercased()
        let server = harness.server
        server.answerAccepts(.hold)
        let answer = CXAnswerCallAction(call: uuid)
        harness.provider.mirrorPerform(answer)
        #expect(await eventually(within: 5) { server.heldAccepts == 1 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(answer.mirrorOutcome == nil)

        server.releaseHeldAccepts()
        #expect(await eventually(within: 5) { answer.mirrorOutcome == .fulfilled })
        #expect(answer.mirrorCompletionCount == 1)
        #expect(server.count("POST /v1/calls/\(callID)/accept") == 1)
        #expect(harness.observed(.answered(callID: callID, media: server.media(callID))))
    }

    @Test func answerFailsWhenAnotherDeviceAnsweredFirst() async throws {
        let harness = PhoneHarness()
        let uuid = try #require(await harness.ring())
        harness.server.answerAccepts(.answeredElsewhere)
        let answer = CXAnswerCallAction(call: uuid)
        harness.provider.mirrorPerform(answer)
        #expect(await eventually(within: 5) { answer.mirrorOutcome == .failed })
        #expect(answer.mirrorCompletionCount == 1)
        #expect(harness.provider.mirrorReports.contains(.ended(uuid, .answeredElsewhere)))
    }

    @Test func mediaStartsOnlyOnceCallKitActivatedTheAudioSession() async throws {
        let harness = PhoneHarness()
        let uuid = try #require(await harness.ring())
        let callID = uuid.uuidString.lowercased()
        let media = harness.server.media(callID)
        let answer = CXAnswerCallAction(call: uuid)
        harness.provider.mirrorPerform(answer)
        #expect(await eventually(within: 5) { answer.mirrorOutcome == .fulfilled })
        #expect(harness.observed(.answered(callID: callID, media: media)))
        try await Task.sleep(for: .milliseconds(100))
        #expect(!harness.observed(.mediaCanStart(callID: callID, media: media)))

        harness.provider.mirrorActivateAudioSession()
        #expect(await eventually(within: 5) { harness.observed(.mediaCanStart(callID: callID, media: media)) })
    }

    @Test func audioActivatedBeforeTheServerConfirmedStartsMediaOnConfirmation() async throws {
        let harness = PhoneHarness()
        let uuid = try #require(await harness.ring())
        let callID = uuid.uuidString.lowercased()
        let server = harness.server
        server.answerAccepts(.hold)
        harness.provider.mirrorPerform(CXAnswerCallAction(call: uuid))
        #expect(await eventually(within: 5) { server.heldAccepts == 1 })
        harness.provider.mirrorActivateAudioSession()
        try await Task.sleep(for: .milliseconds(100))
        #expect(!harness.observations.all.contains { if case .mediaCanStart = $0 { true } else { false } })
        server.releaseHeldAccepts()
        #expect(
            await eventually(within: 5) {
                harness.observed(.mediaCanStart(callID: callID, media: server.media(callID)))
            })
    }

    @Test func endActionDeclinesOnTheServerAndIsFulfilled() async throws {
        let harness = PhoneHarness()
        let uuid = try #require(await harness.ring())
        let end = CXEndCallAction(call: uuid)
        harness.provider.mirrorPerform(end)
        #expect(await eventually(within: 5) { end.mirrorOutcome == .fulfilled })
        let server = harness.server
        #expect(
            await eventually(within: 5) { server.count("POST /v1/calls/\(uuid.uuidString.lowercased())/decline") == 1 })
        #expect(harness.observed(.ended(callID: uuid.uuidString.lowercased(), reason: nil)))
    }

    @Test func resetEndsEveryCall() async throws {
        let harness = PhoneHarness()
        let first = try #require(await harness.ring())
        let second = try #require(await harness.ring())
        harness.provider.mirrorReset()
        let server = harness.server
        #expect(
            await eventually(within: 5) {
                [first, second].allSatisfy { server.count("POST /v1/calls/\($0.uuidString.lowercased())/decline") == 1 }
            })
    }

    @Test func timedOutAnswerIsNeverCompletedAndTheCallIsClosed() async throws {
        let harness = PhoneHarness()
        let uuid = try #require(await harness.ring())
        let callID = uuid.uuidString.lowercased()
        let server = harness.server
        server.answerAccepts(.hold)
        let answer = CXAnswerCallAction(call: uuid)
        harness.provider.mirrorPerform(answer)
        #expect(await eventually(within: 5) { server.heldAccepts == 1 })

        harness.provider.mirrorTimeOut(answer)
        let provider = harness.provider
        #expect(await eventually(within: 5) { provider.mirrorReports.contains(.ended(uuid, .failed)) })
        #expect(await eventually(within: 5) { server.count("POST /v1/calls/\(callID)/decline") == 1 })
        server.releaseHeldAccepts()
        try await Task.sleep(for: .milliseconds(200))
        #expect(answer.mirrorCompletionCount == 0)
        #expect(!answer.mirrorCompletedAfterTimeout)
    }

    /// An answer action whose `timeoutDate` is `seconds` from its creation.
    final class ShortTimeoutAnswer: CXAnswerCallAction {
        let timeout: Date
        init(call: UUID, timeoutIn seconds: TimeInterval) {
            timeout = Date().addingTimeInterval(seconds)
            super.init(call: call)
        }
        override var timeoutDate: Date { timeout }
    }

    @Test func anAnswerTheServerHasNotConfirmedIsFulfilledJustBeforeCallKitsTimeoutAndKeepsBeingSent() async throws {
        let harness = PhoneHarness()
        let uuid = try #require(await harness.ring())
        let callID = uuid.uuidString.lowercased()
        let server = harness.server
        server.answerAccepts(.hold)
        let answer = ShortTimeoutAnswer(call: uuid, timeoutIn: 1.5)
        harness.provider.mirrorPerform(answer)
        // Fulfilled a second before the timeout, though the server has not answered.
        #expect(await eventually(within: 5) { answer.mirrorOutcome == .fulfilled })
        #expect(server.heldAccepts == 1)
        #expect(!harness.observed(.answered(callID: callID, media: server.media(callID))))
        // The held accept is answered: the call connects, with no second completion and nothing ended.
        server.releaseHeldAccepts()
        #expect(
            await eventually(within: 5) { harness.observed(.answered(callID: callID, media: server.media(callID))) })
        #expect(answer.mirrorCompletionCount == 1)
        #expect(!harness.provider.mirrorReports.contains { if case .ended = $0 { true } else { false } })
    }

    @Test func anAnswerFromTheAppsOwnScreenAnswersOnCallKitAtTheTapAndIsFulfilledOnceConfirmed() async throws {
        let harness = PhoneHarness()
        harness.phone.callKit.callController.mirrorProvider = harness.provider
        let uuid = try #require(await harness.ring())
        let server = harness.server
        server.answerAccepts(.hold)
        let answered = Recorder<Bool>()
        harness.phone.coordinator.answer(callID: uuid) { answered.append($0) }
        // CallKit is asked at the tap, before the server answered: it stops ringing and shows the call answered.
        let controller = harness.phone.callKit.callController
        #expect(await eventually(within: 5) { controller.mirrorTransactions.count == 1 })
        let requested = try #require(controller.mirrorTransactions.first?.actions.first as? CXAnswerCallAction)
        #expect(requested.callUUID == uuid)
        #expect(await eventually(within: 5) { server.heldAccepts == 1 })
        #expect(requested.mirrorOutcome == nil, "held until the server confirms")
        server.releaseHeldAccepts()
        #expect(await eventually(within: 5) { answered.all == [true] })
        #expect(await eventually(within: 5) { requested.mirrorOutcome == .fulfilled })
        #expect(controller.mirrorTransactions.count == 1, "no second request at the confirmation")
        #expect(server.count("POST /v1/calls/\(uuid.uuidString.lowercased())/accept") == 1)
    }

    @Test func anAnswerOnCallKitItselfRequestsNoSecondAnswerAction() async throws {
        let harness = PhoneHarness()
        harness.phone.callKit.callController.mirrorProvider = harness.provider
        let uuid = try #require(await harness.ring())
        let answer = CXAnswerCallAction(call: uuid)
        harness.provider.mirrorPerform(answer)
        #expect(await eventually(within: 5) { answer.mirrorOutcome == .fulfilled })
        try await Task.sleep(for: .milliseconds(100))
        #expect(harness.phone.callKit.callController.mirrorTransactions.isEmpty)
    }

    @Test func outgoingCallIsStartedOnCallKitWithTheServerCallID() async throws {
        let harness = PhoneHarness()
        harness.phone.callKit.callController.mirrorProvider = harness.provider
        let call = try await harness.phone.startCall(to: "alice", hasVideo: true)
        #expect(call.state == .ringing)
        let uuid = try #require(UUID(uuidString: call.callID))
        let transaction = try #require(harness.phone.callKit.callController.mirrorTransactions.first)
        let start = try #require(transaction.actions.first as? CXStartCallAction)
        #expect(start.callUUID == uuid)
        #expect(start.handle.value == "alice")
        #expect(start.isVideo)
        #expect(await eventually(within: 5) { start.mirrorOutcome == .fulfilled })
        let provider = harness.provider
        #expect(await eventually(within: 5) { provider.mirrorReports.contains(.outgoingStartedConnecting(uuid)) })
        // An outgoing call offers CallKit's Hold and keypad as an incoming one does.
        let update = try #require(provider.mirrorUpdate(for: uuid))
        #expect(update.supportsHolding && update.supportsDTMF && !update.supportsGrouping)

        let sockets = harness.sockets
        #expect(await eventually(within: 5) { sockets.connections == 1 })
        try harness.deliverEvent(.callAccepted, callID: call.callID, state: .accepted, seq: 1)
        #expect(await eventually(within: 5) { provider.mirrorReports.contains(.outgoingConnected(uuid)) })
        let media = harness.server.media(call.callID)
        #expect(await eventually(within: 5) { harness.observed(.outgoingAnswered(callID: call.callID, media: media)) })
    }

    @Test func outgoingCallRefusedByCallKitIsCancelledOnTheServer() async throws {
        let harness = PhoneHarness()
        let controller = harness.phone.callKit.callController
        controller.mirrorProvider = harness.provider
        controller.mirrorRefuseTransactions(with: MirrorCallKitError(code: "maximumCallGroupsReached"))
        await #expect(throws: MirrorCallKitError.self) { _ = try await harness.phone.startCall(to: "alice") }
        let server = harness.server
        let callID = try #require(server.createdCallIDs.first)
        #expect(await eventually(within: 5) { server.count("POST /v1/calls/\(callID)/cancel") == 1 })
    }

    /// A phone whose own call-controller transactions reach its provider, with a call ringing.
    func ringingWithCallController() async throws -> (PhoneHarness, CXCallController, UUID) {
        let harness = PhoneHarness()
        harness.phone.callKit.callController.mirrorProvider = harness.provider
        return (harness, harness.phone.callKit.callController, try #require(await harness.ring()))
    }

    @Test func anAnswerRequestedThroughTheCallControllerIsCallKitsOwnAnswer() async throws {
        let (harness, controller, uuid) = try await ringingWithCallController()
        try await harness.phone.callKit.requestAnswer(callID: uuid)
        let requested = try #require(controller.mirrorTransactions.first?.actions.first as? CXAnswerCallAction)
        #expect(requested.callUUID == uuid)
        #expect(await eventually(within: 5) { requested.mirrorOutcome == .fulfilled })
        let callID = uuid.uuidString.lowercased()
        #expect(harness.server.count("POST /v1/calls/\(callID)/accept") == 1)
        #expect(harness.observed(.answered(callID: callID, media: harness.server.media(callID))))
        // The coordinator's own report of the answer finds CallKit's action and asks for nothing more.
        #expect(controller.mirrorTransactions.count == 1)
    }

    @Test func anEndRequestedThroughTheCallControllerDeclinesAndAnUnknownCallIsRefused() async throws {
        let (harness, controller, uuid) = try await ringingWithCallController()
        try await harness.phone.callKit.requestEnd(callID: uuid)
        #expect(controller.mirrorTransactions.first?.actions.first is CXEndCallAction)
        let server = harness.server
        #expect(
            await eventually(within: 5) { server.count("POST /v1/calls/\(uuid.uuidString.lowercased())/decline") == 1 })
        await #expect(throws: MirrorCallKitError(code: "unknownCallUUID")) {
            try await harness.phone.callKit.requestEnd(callID: uuid)
        }
        await #expect(throws: MirrorCallKitError(code: "unknownCallUUID")) {
            try await harness.phone.callKit.requestAnswer(callID: UUID())
        }
    }

    /// A phone with a call answered on CallKit and confirmed, whose own call-controller requests reach its provider.
    func answeredWithCallController() async throws -> (PhoneHarness, CXCallController, UUID) {
        let (harness, controller, uuid) = try await ringingWithCallController()
        let answer = CXAnswerCallAction(call: uuid)
        harness.provider.mirrorPerform(answer)
        #expect(await eventually(within: 5) { answer.mirrorOutcome == .fulfilled })
        return (harness, controller, uuid)
    }

    @Test func aHoldFromCallKitIsFulfilledForAnAnsweredCallAndTheAppIsTold() async throws {
        let (harness, _, uuid) = try await answeredWithCallController()
        let callID = uuid.uuidString.lowercased()
        let hold = CXSetHeldCallAction(call: uuid, onHold: true)
        harness.provider.mirrorPerform(hold)
        #expect(await eventually(within: 5) { hold.mirrorOutcome == .fulfilled })
        #expect(harness.observed(.heldChanged(callID: callID, held: true)))
        let mute = CXSetMutedCallAction(call: uuid, muted: true)
        harness.provider.mirrorPerform(mute)
        #expect(await eventually(within: 5) { mute.mirrorOutcome == .fulfilled })
        #expect(harness.observed(.mutedChanged(callID: callID, muted: true)))
    }

    @Test func aHoldFromCallKitFailsForARingingCall() async throws {
        let (harness, _, uuid) = try await ringingWithCallController()
        let hold = CXSetHeldCallAction(call: uuid, onHold: true)
        harness.provider.mirrorPerform(hold)
        #expect(await eventually(within: 5) { hold.mirrorOutcome == .failed })
        #expect(!harness.observed(.heldChanged(callID: uuid.uuidString.lowercased(), held: true)))
    }

    @Test func theAppsHoldAndMuteAreCallKitTransactions() async throws {
        let (harness, controller, uuid) = try await answeredWithCallController()
        let callID = uuid.uuidString.lowercased()
        let before = controller.mirrorTransactions.count
        #expect(harness.phone.coordinator.setHeld(callID: callID, held: true))
        #expect(harness.phone.coordinator.setMuted(callID: callID, muted: true))
        let actions = controller.mirrorTransactions.dropFirst(before).flatMap(\.actions)
        let hold = try #require(actions.first as? CXSetHeldCallAction)
        let mute = try #require(actions.last as? CXSetMutedCallAction)
        #expect(hold.callUUID == uuid && hold.isOnHold && mute.callUUID == uuid && mute.isMuted)
        #expect(await eventually(within: 5) { hold.mirrorOutcome == .fulfilled && mute.mirrorOutcome == .fulfilled })
        #expect(harness.observed(.heldChanged(callID: callID, held: true)))
        #expect(harness.observed(.mutedChanged(callID: callID, muted: true)))
    }

    @Test func keypadTonesFromCallKitAndFromTheAppAreCXPlayDTMFCallActions() async throws {
        let (harness, controller, uuid) = try await answeredWithCallController()
        let callID = uuid.uuidString.lowercased()
        let key = CXPlayDTMFCallAction(call: uuid, digits: "7", type: .singleTone)
        harness.provider.mirrorPerform(key)
        #expect(await eventually(within: 5) { key.mirrorOutcome == .fulfilled })
        #expect(harness.observed(.dtmf(callID: callID, digits: "7")))
        let before = controller.mirrorTransactions.count
        #expect(harness.phone.coordinator.playDTMF(callID: callID, digits: "0#"))
        let actions = controller.mirrorTransactions.dropFirst(before).flatMap(\.actions)
        let requested = try #require(actions.first as? CXPlayDTMFCallAction)
        #expect(requested.callUUID == uuid && requested.digits == "0#" && requested.type == .singleTone)
        #expect(await eventually(within: 5) { requested.mirrorOutcome == .fulfilled })
        #expect(harness.observed(.dtmf(callID: callID, digits: "0#")))
        let notAKey = CXPlayDTMFCallAction(call: uuid, digits: "x", type: .singleTone)
        harness.provider.mirrorPerform(notAKey)
        #expect(await eventually(within: 5) { notAKey.mirrorOutcome == .failed })
    }

    @Test func keypadTonesFailForARingingCall() async throws {
        let (harness, _, uuid) = try await ringingWithCallController()
        let key = CXPlayDTMFCallAction(call: uuid, digits: "7", type: .singleTone)
        harness.provider.mirrorPerform(key)
        #expect(await eventually(within: 5) { key.mirrorOutcome == .failed })
        #expect(!harness.observed(.dtmf(callID: uuid.uuidString.lowercased(), digits: "7")))
    }

    @Test func startActionWithoutAServerCallFails() async throws {
        let harness = PhoneHarness()
        let start = CXStartCallAction(call: UUID(), handle: CXHandle(type: .generic, value: "alice"))
        harness.provider.mirrorPerform(start)
        #expect(await eventually(within: 5) { start.mirrorOutcome == .failed })
        #expect(harness.server.createdCallIDs.isEmpty)
    }
}
