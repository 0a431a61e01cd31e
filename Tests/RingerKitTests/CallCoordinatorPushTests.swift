import Foundation
import RingerKit
import RingerSupport
import RingerWire
import Testing

/// A CallUI that records what it was asked, refusing a UUID reported twice as CallKit does.
final class RecordingCallUI: CallUI, @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private var _reports: [IncomingCallReport] = []
    private var _ended: [(UUID, CallEndReason)] = []
    private var known: Set<UUID> = []

    private var _connected: [UUID] = []
    private var _answered: [UUID] = []
    private var _answering: [UUID] = []
    private var _requests: [String] = []
    /// Hold and mute requests (``CallUI/requestHeld(id:held:)``, ``CallUI/requestMuted(id:muted:)``), in order, as
    /// "hold <uuid>", "resume <uuid>", "mute <uuid>", "unmute <uuid>" with lowercase ids.
    var controlRequests: [String] { lock.withLock { _requests } }
    /// Calls reported answering (``CallUI/reportCallAnswering(id:at:)``), in order.
    var answering: [UUID] { lock.withLock { _answering } }

    var reports: [IncomingCallReport] { lock.withLock { _reports } }
    /// Calls reported answered (``CallUI/reportCallAnswered(id:at:)``), in order.
    var answered: [UUID] { lock.withLock { _answered } }
    var ended: [(UUID, CallEndReason)] { lock.withLock { _ended } }
    var connected: [UUID] { lock.withLock { _connected } }

    func reportIncomingCall(_ report: IncomingCallReport, completion: @escaping @Sendable ((any Error)?) -> Void) {
        let isNew = lock.withLock {
            _reports.append(report)
            return known.insert(report.id).inserted
        }
        completion(isNew ? nil : CocoaError(.featureUnsupported))
    }

    func reportCallEnded(id: UUID, at date: Date, reason: CallEndReason) {
        lock.withLock { _ended.append((id, reason)) }
    }

    func reportOutgoingCallConnected(id: UUID, at date: Date) {
        lock.withLock { _connected.append(id) }
    }

    func reportCallAnswered(id: UUID, at date: Date) {
        lock.withLock { _answered.append(id) }
    }

    func reportCallAnswering(id: UUID, at date: Date) {
        lock.withLock { _answering.append(id) }
    }

    func requestHeld(id: UUID, held: Bool) {
        lock.withLock { _requests.append("\(held ? "hold" : "resume") \(id.uuidString.lowercased())") }
    }

    func requestMuted(id: UUID, muted: Bool) {
        lock.withLock { _requests.append("\(muted ? "mute" : "unmute") \(id.uuidString.lowercased())") }
    }

    func requestDTMF(id: UUID, digits: String) {
        lock.withLock { _requests.append("dtmf \(digits) \(id.uuidString.lowercased())") }
    }

    func applyAudioOutput(_ output: AudioOutput?) {
        lock.withLock { _requests.append("route \(output?.id ?? "released")") }
    }
}

/// An HTTP transport that answers accept/ringing for one call id and 404s everything else.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    // @unchecked: `log` is guarded by `lock`.
    private let lock = NSLock()
    private var log: [String] = []
    let callID: String

    init(acceptingCallID: String) { callID = acceptingCallID }

    var requests: [String] { lock.withLock { log } }

    func send(
        method: String, url: URL, headers: [String: String], body: Data?
    ) async throws -> (status: Int, body: Data) {
        lock.withLock { log.append("\(method) \(url.path)") }
        let now = Date()
        let call = Call(
            callID: callID, state: .accepted, caller: Party(id: "alice"), callee: Party(id: "bob"),
            hasVideo: false, createdAt: now, expiresAt: now.addingTimeInterval(30))
        if url.path == "/v1/calls/\(callID)/accept" {
            let response = AcceptResponse(call: call, media: MediaSession(url: "ws://media", token: "m"))
            return (200, try RingerJSON.encode(response))
        }
        if url.path == "/v1/calls/\(callID)/ringing" { return (200, try RingerJSON.encode(call)) }
        let problem = Problem(type: ProblemType.callNotFound.rawValue, title: "Call not found", status: 404)
        return (404, try RingerJSON.encode(problem))
    }
}

/// An HTTP transport that never answers (the API is "not reachable"); pushes must not depend on it.
struct UnreachableTransport: HTTPTransport {
    func send(
        method: String, url: URL, headers: [String: String], body: Data?
    ) async throws -> (status: Int, body: Data) {
        throw URLError(.notConnectedToInternet)
    }
}

@Suite struct CallCoordinatorPushTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func push(callID: String, expiresIn seconds: TimeInterval) -> Data {
        let body = VoIPPush(
            ringer: .init(
                callID: callID, caller: Party(id: "alice", name: "Alice"), hasVideo: false,
                sentAt: now.unixMilliseconds,
                expiresAt: now.addingTimeInterval(seconds).unixMilliseconds))
        return try! RingerJSON.encode(body)
    }

    /// A coordinator whose app is logged in (`true`), logged out (`false`) or still launching (`nil`), and whose
    /// clock agrees with the server's (an offset of 0 learned on an earlier launch) unless `clockOffset` says
    /// otherwise (nil: never learned).
    func coordinator(
        _ ui: RecordingCallUI, loggedIn: Bool? = true, clockOffset: TimeInterval? = 0,
        transport: any HTTPTransport = UnreachableTransport()
    ) -> CallCoordinator {
        let fixed = now
        let coordinator = CallCoordinator(
            deviceID: "bob-iphone", ui: ui, now: { fixed },
            clockOffsets: InMemoryClockOffsetStore(offset: clockOffset))
        switch loggedIn {
        case true?:
            coordinator.connect(
                api: RingerAPIClient(
                    baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t",
                    transport: transport))
        case false?:
            coordinator.connect(api: nil)
        case nil:
            break
        }
        return coordinator
    }

    @Test func validPushRingsWithTheCallIDAsCallKitUUID() {
        let ui = RecordingCallUI()
        let callID = UUID().uuidString.lowercased()
        #expect(coordinator(ui).handleVoIPPush(push(callID: callID, expiresIn: 30)) == .ringing)
        #expect(ui.reports.map(\.id) == [UUID(uuidString: callID)!])
        #expect(ui.reports.first?.caller.name == "Alice")
        #expect(ui.ended.isEmpty)
    }

    @Test func unreadablePushIsReportedAndEndedAsFailed() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui)
        for payload in [Data("garbage".utf8), Data("{}".utf8), Data(#"{"ringer":{"v":1}}"#.utf8)] {
            #expect(coordinator.handleVoIPPush(payload) == .unreadable)
        }
        #expect(ui.reports.count == 3)
        #expect(ui.ended.map(\.1) == [.failed, .failed, .failed])
    }

    @Test func aPushPastItsDeadlineOnTheServersClockIsReportedAndEndedAsUnanswered() {
        let ui = RecordingCallUI()
        #expect(coordinator(ui).handleVoIPPush(push(callID: UUID().uuidString, expiresIn: -1)) == .expired)
        #expect(ui.reports.count == 1)
        #expect(ui.ended.map(\.1) == [.unanswered])
    }

    @Test func pushForLoggedOutDeviceIsReportedAndEnded() {
        let ui = RecordingCallUI()
        #expect(
            coordinator(ui, loggedIn: false).handleVoIPPush(push(callID: UUID().uuidString, expiresIn: 30))
                == .loggedOut)
        #expect(ui.reports.count == 1)
        #expect(ui.ended.map(\.1) == [.failed])
    }

    @Test func sameCallTwiceIsOneCallOnScreenButEveryPushIsReported() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui)
        let callID = UUID().uuidString.lowercased()
        #expect(coordinator.handleVoIPPush(push(callID: callID, expiresIn: 30)) == .ringing)
        #expect(coordinator.handleVoIPPush(push(callID: callID, expiresIn: 30)) == .duplicate)
        #expect(ui.reports.count == 2)
        #expect(Set(ui.reports.map(\.id)).count == 1)
        #expect(ui.ended.isEmpty)
    }

    @Test func callArrivingByWebSocketThenPushRingsOnce() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui)
        let callID = UUID().uuidString.lowercased()
        let call = Call(
            callID: callID, state: .ringing, caller: Party(id: "alice"), callee: Party(id: "bob"),
            hasVideo: false, createdAt: now, expiresAt: now.addingTimeInterval(30))
        coordinator.handle(CallEvent(seq: 1, type: .callIncoming, call: call))
        #expect(coordinator.handleVoIPPush(push(callID: callID, expiresIn: 30)) == .duplicate)
        #expect(Set(ui.reports.map(\.id)) == [UUID(uuidString: callID)!])
    }

    @Test func remoteCancelEndsTheNativeCallOnceWithRemoteEnded() {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui)
        let callID = UUID().uuidString.lowercased()
        coordinator.handleVoIPPush(push(callID: callID, expiresIn: 30))
        var call = Call(
            callID: callID, state: .cancelled, caller: Party(id: "alice"), callee: Party(id: "bob"),
            hasVideo: false, createdAt: now, expiresAt: now.addingTimeInterval(30))
        coordinator.handle(CallEvent(seq: 2, type: .callCancelled, call: call))
        call.state = .ended
        coordinator.handle(CallEvent(seq: 3, type: .callEnded, call: call))
        #expect(ui.ended.map(\.1) == [.remoteEnded])
        // A late push for the finished call is reported and ended, never rung again.
        #expect(coordinator.handleVoIPPush(push(callID: callID, expiresIn: 30)) == .alreadyEnded)
        #expect(ui.ended.count == 2)
    }

    /// The server's own ends of an answered call close it natively with their documented reason.
    @Test(arguments: [
        (SystemEndReason.connectionLost, CallEndReason.failed),
        (SystemEndReason.maximumDuration, CallEndReason.remoteEnded),
    ])
    func aCallTheServerEndedClosesWithItsReason(_ serverReason: SystemEndReason, _ expected: CallEndReason) async throws
    {
        let ui = RecordingCallUI()
        let callID = UUID().uuidString.lowercased()
        let coordinator = coordinator(ui, transport: RecordingTransport(acceptingCallID: callID))
        coordinator.handleVoIPPush(push(callID: callID, expiresIn: 30))
        let confirmed = LockedValue<Bool?>(nil)
        coordinator.answer(callID: UUID(uuidString: callID)!) { ok in confirmed.withLock { $0 = ok } }
        for _ in 0..<200 where confirmed.snapshot == nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(confirmed.snapshot == true)
        let call = Call(
            callID: callID, state: .ended, caller: Party(id: "alice"), callee: Party(id: "bob"),
            hasVideo: false, createdAt: now, expiresAt: now.addingTimeInterval(30),
            acceptedAt: now, acceptedDeviceID: "bob-iphone", endedAt: now, endReason: serverReason)
        coordinator.handle(CallEvent(seq: 4, type: .callEnded, call: call))
        #expect(ui.ended.map(\.1) == [expected])
    }

    @Test func pushWhileTheAppIsStillLaunchingRingsAndTheAnswerIsSentOnceConnected() async throws {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui, loggedIn: nil)
        let callID = UUID().uuidString.lowercased()
        #expect(coordinator.handleVoIPPush(push(callID: callID, expiresIn: 30)) == .ringing)
        let accepted = RecordingTransport(acceptingCallID: callID)
        let answered = Task {
            await withCheckedContinuation { continuation in
                coordinator.answer(callID: UUID(uuidString: callID)!) { continuation.resume(returning: $0) }
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(accepted.requests.isEmpty)
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t",
                transport: accepted))
        #expect(await answered.value == true)
        #expect(accepted.requests.contains("POST /v1/calls/\(callID)/accept"))
        #expect(ui.ended.isEmpty)
    }

    @Test func ringingAckRefusedAsNotThisUsersCallEndsTheNativeCall() async throws {
        let ui = RecordingCallUI()
        let callID = UUID().uuidString.lowercased()
        let coordinator = coordinator(ui, transport: RecordingTransport(acceptingCallID: "other"))
        #expect(coordinator.handleVoIPPush(push(callID: callID, expiresIn: 30)) == .ringing)
        for _ in 0..<100 where ui.ended.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(ui.ended.map(\.1) == [.failed])
    }

    @Test func ringingCallEndsOnItsOwnShortlyAfterTheDeadlineWhenNoEventArrives() async throws {
        let ui = RecordingCallUI()
        let coordinator = CallCoordinator(deviceID: "bob-iphone", ui: ui)
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t",
                transport: UnreachableTransport()))
        let callID = UUID().uuidString.lowercased()
        let body = VoIPPush(
            ringer: .init(
                callID: callID, caller: Party(id: "alice"), hasVideo: false,
                sentAt: Date().unixMilliseconds,
                expiresAt: Date().addingTimeInterval(0.3).unixMilliseconds))
        #expect(coordinator.handleVoIPPush(try RingerJSON.encode(body)) == .ringing)
        #expect(ui.ended.isEmpty)
        for _ in 0..<100 where ui.ended.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
        #expect(ui.ended.map(\.1) == [.unanswered])
    }

    @Test func answerForACallThatWasEndedOnArrivalFailsAtOnce() async {
        let ui = RecordingCallUI()
        let coordinator = coordinator(ui, loggedIn: false)
        let callID = UUID().uuidString.lowercased()
        // Logged out: the push is reported and ended, and an answer for it fails at once.
        #expect(coordinator.handleVoIPPush(push(callID: callID, expiresIn: 30)) == .loggedOut)
        let answered = await withCheckedContinuation { continuation in
            coordinator.answer(callID: UUID(uuidString: callID)!) { continuation.resume(returning: $0) }
        }
        #expect(answered == false)
    }
}
