import Foundation
import RingerKit
import RingerWire
import Testing

/// Races the race explorer (`ringer-lab explore`) found, each pinned down without the network: what a
/// device does when its answer or decline loses to something that happened elsewhere first, and what a
/// late push for a finished call shows.
@Suite struct LostRaceTests {
    /// One ordered log for the call UI's reports and endings and the answer action's completion, so a
    /// test sees which came first (CallKit ends a call whose answer action fails, then ignores its report).
    final class OrderedCallUI: CallUI, @unchecked Sendable {
        // @unchecked: `entries` is guarded by `lock`.
        private let lock = NSLock()
        private var entries: [String] = []

        var log: [String] { lock.withLock { entries } }
        func append(_ entry: String) { lock.withLock { entries.append(entry) } }

        func reportIncomingCall(_ report: IncomingCallReport, completion: @escaping @Sendable ((any Error)?) -> Void) {
            append("report")
            completion(nil)
        }

        func reportCallEnded(id: UUID, at date: Date, reason: CallEndReason) {
            append("ended \(reason.rawValue)")
        }

        func reportOutgoingCallConnected(id: UUID, at date: Date) {}
        func reportCallAnswered(id: UUID, at date: Date) {}
        func reportCallAnswering(id: UUID, at date: Date) {}
        func requestHeld(id: UUID, held: Bool) {}
        func requestMuted(id: UUID, muted: Bool) {}
        func requestDTMF(id: UUID, digits: String) {}
        func applyAudioOutput(_ output: AudioOutput?) {}
    }

    /// Answers every request 200 with the call ringing, except the ones given a problem or a body.
    final class ScriptedServer: HTTPTransport, @unchecked Sendable {
        // @unchecked: `log` and `bodies` are guarded by `lock`; the other fields are constants.
        let callID: String
        let problems: [String: Problem]
        private let lock = NSLock()
        private var log: [String] = []
        private var bodies: [String: Data] = [:]

        var requests: [String] { lock.withLock { log } }

        init(callID: String, problems: [String: Problem]) {
            self.callID = callID
            self.problems = problems
        }

        /// Answers `request` (`"GET /v1/calls/…"`) 200 with `body` from now on.
        func answer(_ request: String, with body: some Encodable) throws {
            let data = try RingerJSON.encode(body)
            lock.withLock { bodies[request] = data }
        }

        func send(
            method: String, url: URL, headers: [String: String], body: Data?
        ) async throws -> (status: Int, body: Data) {
            let request = "\(method) \(url.path)"
            let scripted = lock.withLock { () -> Data? in
                log.append(request)
                return bodies[request]
            }
            if let problem = problems[request] { return (problem.status, try RingerJSON.encode(problem)) }
            if let scripted { return (200, scripted) }
            let now = Date()
            let call = Call(
                callID: callID, state: .ringing, caller: Party(id: "alice"), callee: Party(id: "bob"),
                hasVideo: false, createdAt: now, expiresAt: now.addingTimeInterval(30))
            return (200, try RingerJSON.encode(call))
        }
    }

    static func conflict(_ type: ProblemType, _ state: CallState) -> Problem {
        Problem(type: type.rawValue, title: "Conflict", status: 409, detail: "refused", callState: state)
    }

    let callID = UUID().uuidString.lowercased()
    var uuid: UUID { UUID(uuidString: callID)! }

    func coordinator(
        _ ui: any CallUI, _ server: ScriptedServer, store: any PendingActionStore = InMemoryPendingActionStore()
    )
        -> CallCoordinator
    {
        let coordinator = CallCoordinator(deviceID: "bob-ipad", ui: ui, pendingActions: store)
        coordinator.connect(
            api: RingerAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t", transport: server))
        return coordinator
    }

    func push(expiresIn seconds: TimeInterval = 30) -> Data {
        let now = Date()
        return try! RingerJSON.encode(
            VoIPPush(
                ringer: .init(
                    callID: callID, caller: Party(id: "alice"), hasVideo: false,
                    sentAt: now.unixMilliseconds,
                    expiresAt: now.addingTimeInterval(seconds).unixMilliseconds)))
    }

    func event(_ type: EventType, _ state: CallState, seq: Int64) -> CallEvent {
        let now = Date()
        return CallEvent(
            seq: seq, type: type,
            call: Call(
                callID: callID, state: state, caller: Party(id: "alice"),
                callee: Party(id: "bob"), hasVideo: false, createdAt: now,
                expiresAt: now.addingTimeInterval(30)))
    }

    @Test func anAnswerThatLostIsReportedEndedWithItsReasonBeforeTheAnswerActionFails() async {
        let ui = OrderedCallUI()
        let server = ScriptedServer(
            callID: callID,
            problems: ["POST /v1/calls/\(callID)/accept": Self.conflict(.answeredElsewhere, .accepted)])
        let coordinator = coordinator(ui, server)
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        let fulfilled = await withCheckedContinuation { continuation in
            coordinator.answer(callID: uuid) { fulfilled in
                ui.append("answer \(fulfilled)")
                continuation.resume(returning: fulfilled)
            }
        }
        #expect(fulfilled == false)
        // Failing the answer first would end the native call as a failed call and CallKit would drop the reason.
        #expect(ui.log == ["report", "ended answered_elsewhere", "answer false"])
    }

    /// An answer given in time that reached the server after its deadline (`unanswered`) was lost to the network,
    /// not missed: it ends `answer_not_delivered`.
    @Test(arguments: [
        (CallState.declined, CallEndReason.declinedElsewhere), (.cancelled, .remoteEnded),
        (.unanswered, .answerNotDelivered),
    ])
    func anAnswerRefusedBecauseTheCallIsOverEndsAsTheCallEnded(_ state: CallState, _ reason: CallEndReason) async {
        let ui = OrderedCallUI()
        let server = ScriptedServer(
            callID: callID,
            problems: ["POST /v1/calls/\(callID)/accept": Self.conflict(.callStateConflict, state)])
        let coordinator = coordinator(ui, server)
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        let fulfilled = await withCheckedContinuation { continuation in
            coordinator.answer(callID: uuid) { continuation.resume(returning: $0) }
        }
        #expect(fulfilled == false)
        #expect(ui.log == ["report", "ended \(reason.rawValue)"])
    }

    @Test(arguments: [
        (CallState.ended, CallEndReason.answeredElsewhere), (.accepted, .answeredElsewhere),
        (.declined, .declinedElsewhere), (.cancelled, .remoteEnded), (.unanswered, .unanswered),
    ])
    func aLatePushForACallThatEndedMeanwhileStopsWithHowItEnded(_ state: CallState, _ reason: CallEndReason) async {
        let ui = OrderedCallUI()
        let server = ScriptedServer(
            callID: callID,
            problems: ["POST /v1/calls/\(callID)/ringing": Self.conflict(.callStateConflict, state)])
        // The push was slow: another device answered and the call was hung up before it arrived.
        let coordinator = coordinator(ui, server)
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        #expect(await DurableHangUpTests.eventually { ui.log.count == 2 })
        #expect(ui.log == ["report", "ended \(reason.rawValue)"])
    }

    @Test(arguments: [("bob-iphone", CallEndReason.answeredElsewhere), ("bob-ipad", .remoteEnded)])
    func callEndedClosesACalleeDeviceByWhoAnswered(_ answeredOn: String, _ reason: CallEndReason) {
        let ui = OrderedCallUI()
        let coordinator = coordinator(ui, ScriptedServer(callID: callID, problems: [:]))  // this is bob-ipad
        coordinator.handle(event(.callIncoming, .ringing, seq: 1))
        // call.answered_elsewhere was missed (the socket came up after it): call.ended is the first news.
        var ended = event(.callEnded, .ended, seq: 3)
        ended.call.acceptedDeviceID = answeredOn
        coordinator.handle(ended)
        #expect(ui.log == ["report", "ended \(reason.rawValue)"])
    }

    @Test func callEndedClosesTheCallersCallAsRemoteEnded() async throws {
        let ui = OrderedCallUI()
        let coordinator = coordinator(ui, ScriptedServer(callID: callID, problems: [:]))
        _ = try await coordinator.startCall(to: "bob")
        var ended = event(.callEnded, .ended, seq: 3)
        ended.call.acceptedDeviceID = "bob-iphone"
        coordinator.handle(ended)
        let observed = await DurableHangUpTests.eventually { ui.log == ["ended remote_ended"] }
        #expect(observed, "\(ui.log)")
    }

    @Test func anAnsweredCallThatEndedBeforeTheSocketCameUpClosesWhenTheCallsAreRefreshed() async throws {
        let ui = OrderedCallUI()
        let server = ScriptedServer(callID: callID, problems: [:])
        var call = event(.callAccepted, .accepted, seq: 2).call
        call.acceptedDeviceID = "bob-ipad"
        try server.answer(
            "POST /v1/calls/\(callID)/accept",
            with: AcceptResponse(call: call, media: MediaSession(url: "ws://media", token: "m")))
        let coordinator = coordinator(ui, server)
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        let answered = await withCheckedContinuation { continuation in
            coordinator.answer(callID: uuid) { continuation.resume(returning: $0) }
        }
        #expect(answered)
        // Still up on the server: a refresh changes nothing.
        try server.answer("GET /v1/calls/\(callID)", with: call)
        coordinator.refreshCalls()
        try await Task.sleep(for: .milliseconds(50))
        #expect(ui.log == ["report"])
        // The caller hung up before this woken app's socket connected: no event will ever say so.
        call.state = .ended
        try server.answer("GET /v1/calls/\(callID)", with: call)
        coordinator.refreshCalls()
        #expect(await DurableHangUpTests.eventually { ui.log == ["report", "ended remote_ended"] }, "\(ui.log)")
    }

    @Test(arguments: [
        (CallState.ended, String?.some("bob-iphone"), CallEndReason?.some(.answeredElsewhere)),
        (.accepted, "bob-iphone", .answeredElsewhere), (.cancelled, nil, .remoteEnded),
        (.declined, nil, .declinedElsewhere), (.unanswered, nil, .unanswered), (.ringing, nil, nil),
    ])
    func refreshingARingingCallClosesItAsTheServerSays(
        _ state: CallState, _ answeredOn: String?,
        _ reason: CallEndReason?
    ) async throws {
        let ui = OrderedCallUI()
        let server = ScriptedServer(callID: callID, problems: [:])
        let coordinator = coordinator(ui, server)
        coordinator.handle(event(.callIncoming, .ringing, seq: 1))
        var call = event(.callIncoming, state, seq: 1).call
        call.acceptedDeviceID = answeredOn
        try server.answer("GET /v1/calls/\(callID)", with: call)
        coordinator.refreshCalls()
        let expected = ["report"] + (reason.map { ["ended \($0.rawValue)"] } ?? [])
        #expect(await DurableHangUpTests.eventually { server.requests.contains("GET /v1/calls/\(callID)") })
        try await Task.sleep(for: .milliseconds(50))
        #expect(ui.log == expected)
    }

    @Test func aDeclineThatArrivesAfterAnotherDeviceAnsweredLeavesThatCallUp() async throws {
        let store = InMemoryPendingActionStore()
        let server = ScriptedServer(
            callID: callID,
            problems: ["POST /v1/calls/\(callID)/decline": Self.conflict(.answeredElsewhere, .accepted)])
        let coordinator = coordinator(OrderedCallUI(), server, store: store)
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        coordinator.end(callID: uuid) { _ in }
        #expect(await DurableHangUpTests.eventually { store.load().isEmpty })
        try await Task.sleep(for: .milliseconds(50))
        let requests = server.requests
        #expect(requests.contains("POST /v1/calls/\(callID)/decline"))
        #expect(
            !requests.contains("POST /v1/calls/\(callID)/end"),
            "the call answered on another device was hung up: \(requests)")
    }

    @Test func aDeclineAfterThisDevicesOwnAnswerReachedTheServerEndsTheCall() async {
        let store = InMemoryPendingActionStore()
        let server = ScriptedServer(
            callID: callID,
            problems: ["POST /v1/calls/\(callID)/decline": Self.conflict(.callStateConflict, .accepted)])
        let coordinator = coordinator(OrderedCallUI(), server, store: store)
        #expect(coordinator.handleVoIPPush(push()) == .ringing)
        coordinator.end(callID: uuid) { _ in }
        #expect(await DurableHangUpTests.eventually { server.requests.contains("POST /v1/calls/\(callID)/end") })
        #expect(await DurableHangUpTests.eventually { store.load().isEmpty })
    }

    @Test(arguments: [
        (EventType.callUnanswered, CallState.unanswered, CallEndReason.unanswered),
        (.callAnsweredElsewhere, .accepted, .answeredElsewhere),
        (.callDeclinedElsewhere, .declined, .declinedElsewhere),
    ])
    func aLatePushForAFinishedCallIsReportedAndEndedWithTheSameReason(
        _ type: EventType, _ state: CallState,
        _ reason: CallEndReason
    ) {
        let ui = OrderedCallUI()
        let coordinator = coordinator(ui, ScriptedServer(callID: callID, problems: [:]))
        coordinator.handle(event(.callIncoming, .ringing, seq: 1))
        coordinator.handle(event(type, state, seq: 2))
        // The push was slow: it comes after the call ended here, and Apple still requires a report.
        #expect(coordinator.handleVoIPPush(push()) == .alreadyEnded)
        #expect(ui.log == ["report", "ended \(reason.rawValue)", "report", "ended \(reason.rawValue)"])
    }
}
