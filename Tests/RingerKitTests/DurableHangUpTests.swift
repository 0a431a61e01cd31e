import Foundation
import RingerKit
import RingerWire
import Testing

/// A decline or hang-up reaches the server even when the app is suspended or relaunched first.
@Suite struct DurableHangUpTests {
    func push(_ callID: String) -> Data {
        let now = Date()
        return try! RingerJSON.encode(
            VoIPPush(
                ringer: .init(
                    callID: callID, caller: Party(id: "alice"), hasVideo: false,
                    sentAt: now.unixMilliseconds,
                    expiresAt: now.addingTimeInterval(30).unixMilliseconds)))
    }

    func api(_ transport: any HTTPTransport) -> RingerAPIClient {
        RingerAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t", transport: transport)
    }

    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<200 where !condition() { try? await Task.sleep(for: .milliseconds(10)) }
        return condition()
    }

    @Test func declineMadeBeforeTheAppReachedTheServerIsSentAfterARelaunch() async throws {
        let store = InMemoryPendingActionStore()
        let callID = UUID().uuidString.lowercased()
        // First launch: woken by the push, the user declines on the lock screen, the app is suspended
        // before it ever connected.
        let first = CallCoordinator(deviceID: "bob-iphone", ui: RecordingCallUI(), pendingActions: store)
        #expect(first.handleVoIPPush(push(callID)) == .ringing)
        first.end(callID: UUID(uuidString: callID)!) { _ in }
        #expect(store.load().map(\.kind) == [.decline])
        #expect(store.load().first?.callID == callID)

        // Relaunch: a new process with the same store; the decline goes out once the API is there.
        let transport = RecordingTransport(acceptingCallID: callID)
        let second = CallCoordinator(deviceID: "bob-iphone", ui: RecordingCallUI(), pendingActions: store)
        second.connect(api: api(transport))
        #expect(await Self.eventually { store.load().isEmpty })
        #expect(transport.requests.filter { $0 == "POST /v1/calls/\(callID)/decline" }.count == 1)
    }

    @Test func acknowledgedHangUpLeavesTheStoreAndIsNotSentTwice() async throws {
        let store = InMemoryPendingActionStore()
        let callID = UUID().uuidString.lowercased()
        let transport = RecordingTransport(acceptingCallID: callID)
        let coordinator = CallCoordinator(deviceID: "bob-iphone", ui: RecordingCallUI(), pendingActions: store)
        coordinator.connect(api: api(transport))
        #expect(coordinator.handleVoIPPush(push(callID)) == .ringing)
        coordinator.end(callID: UUID(uuidString: callID)!) { _ in }
        #expect(await Self.eventually { store.load().isEmpty })
        coordinator.connect(api: api(transport))  // a reconnect must not resend it
        try await Task.sleep(for: .milliseconds(100))
        #expect(transport.requests.filter { $0.hasSuffix("/decline") }.count == 1)
    }

    @Test func fileStoreKeepsActionsAcrossInstances() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-actions-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let action = PendingCallAction(
            kind: .end, callID: "c1", deviceID: "d1", createdAt: Date(timeIntervalSince1970: 1))
        FilePendingActionStore(url: url).save([action])
        #expect(FilePendingActionStore(url: url).load() == [action])
    }

    /// A store written by an earlier version of the SDK (keys `callId`, `deviceId`) is read after the app's update.
    @Test func aStoreWrittenBeforeTheIDRenameIsStillRead() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-actions-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(#"[{"kind":"decline","callId":"c1","deviceId":"d1","createdAt":1}]"#.utf8).write(to: url)
        #expect(
            FilePendingActionStore(url: url).load() == [
                PendingCallAction(
                    kind: .decline, callID: "c1", deviceID: "d1", createdAt: Date(timeIntervalSinceReferenceDate: 1))
            ])
    }
}

/// Media starts only once the call is answered and the system activated the audio session.
@Suite struct AudioActivationTests {
    @Test func mediaCanStartOnlyAfterTheAudioSessionIsActivated() async throws {
        let callID = UUID().uuidString.lowercased()
        let observations = LockedObservations()
        let coordinator = CallCoordinator(
            deviceID: "bob-iphone", ui: RecordingCallUI(),
            observer: { observations.append($0) })
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t",
                transport: RecordingTransport(acceptingCallID: callID)))
        let now = Date()
        let push = VoIPPush(
            ringer: .init(
                callID: callID, caller: Party(id: "alice"), hasVideo: false,
                sentAt: now.unixMilliseconds, expiresAt: now.addingTimeInterval(30).unixMilliseconds))
        #expect(coordinator.handleVoIPPush(try RingerJSON.encode(push)) == .ringing)
        let answered = await withCheckedContinuation { continuation in
            coordinator.answer(callID: UUID(uuidString: callID)!) { continuation.resume(returning: $0) }
        }
        #expect(answered)
        try await Task.sleep(for: .milliseconds(50))
        #expect(!observations.contains { if case .mediaCanStart = $0 { true } else { false } })
        coordinator.audioSessionActivated()
        #expect(observations.contains { if case .mediaCanStart(let id, _) = $0 { id == callID } else { false } })
    }
}

/// Observations collected from any thread.
final class LockedObservations: @unchecked Sendable {
    // @unchecked: `items` is guarded by `lock`.
    private let lock = NSLock()
    private var items: [CallCoordinator.Observation] = []
    func append(_ observation: CallCoordinator.Observation) { lock.withLock { items.append(observation) } }
    func contains(where predicate: (CallCoordinator.Observation) -> Bool) -> Bool {
        lock.withLock { items.contains(where: predicate) }
    }
}

/// A hang-up the server answers with 5xx problems is not acknowledged: it keeps being sent, past the eight
/// attempts that once ended the retries, until the server acknowledges it.
@Suite struct ServerErrorHangUpTests {
    /// Answers `ringing`, and refuses everything else with a 503 problem (the server's database is down) until
    /// `failures` requests were refused.
    final class FailingTransport: HTTPTransport, @unchecked Sendable {
        // @unchecked: `log` and `refused` are guarded by `lock`.
        private let lock = NSLock()
        private var log: [String] = []
        private var refused = 0
        let failures: Int
        var requests: [String] { lock.withLock { log } }

        init(failures: Int) { self.failures = failures }

        func send(
            method: String, url: URL, headers: [String: String], body: Data?
        ) async throws -> (status: Int, body: Data) {
            let fail = lock.withLock { () -> Bool in
                log.append("\(method) \(url.path)")
                guard !url.path.hasSuffix("/ringing"), refused < failures else { return false }
                refused += 1
                return true
            }
            if fail {
                return (
                    503, try RingerJSON.encode(Problem(type: "about:blank", title: "Service Unavailable", status: 503))
                )
            }
            let now = Date()
            let call = Call(
                callID: url.pathComponents[3], state: .ringing, caller: Party(id: "alice"),
                callee: Party(id: "bob"), hasVideo: false, createdAt: now, expiresAt: now.addingTimeInterval(30))
            return (200, try RingerJSON.encode(call))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aDeclineAnsweredWithServerErrorsKeepsBeingSentUntilTheServerAcknowledgesIt() async throws {
        let store = InMemoryPendingActionStore()
        let callID = UUID().uuidString.lowercased()
        let transport = FailingTransport(failures: 10)
        let clock = NeverLostAnswerTests.FastClock()
        let coordinator = CallCoordinator(
            deviceID: "bob-iphone", ui: RecordingCallUI(), now: { clock.now() },
            sleepUntil: { try await clock.sleep(until: $0) }, pendingActions: store)
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t",
                transport: transport))
        #expect(coordinator.handleVoIPPush(DurableHangUpTests().push(callID)) == .ringing)
        coordinator.end(callID: UUID(uuidString: callID)!) { _ in }
        let declines = { transport.requests.filter { $0.hasSuffix("/decline") }.count }
        for _ in 0..<500 where !store.load().isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        #expect(declines() == 11, "ten 503s, then the acknowledgement")
        #expect(store.load().isEmpty)
    }
}
