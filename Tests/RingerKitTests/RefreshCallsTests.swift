import Foundation
import RingerKit
import RingerSupport
import RingerWire
import Testing

/// `refreshCalls()` re-reads calls still up when the event stream (re)connects, for what no event replays.
@Suite struct RefreshCallsTests {
    /// A server where alice's call to bob is created ringing and, when read back, already accepted.
    final class AnsweredWhileAwayServer: HTTPTransport, @unchecked Sendable {
        // @unchecked: `paths` is guarded by `lock`.
        private let lock = NSLock()
        private var paths: [String] = []
        let callID = UUID().uuidString.lowercased()
        var requests: [String] { lock.withLock { paths } }

        func send(
            method: String, url: URL, headers: [String: String], body: Data?
        ) async throws -> (status: Int, body: Data) {
            lock.withLock { paths.append("\(method) \(url.path)") }
            let now = Date()
            var call = Call(
                callID: callID, state: .ringing, caller: Party(id: "alice"), callee: Party(id: "bob"),
                hasVideo: false, createdAt: now, expiresAt: now.addingTimeInterval(30))
            switch (method, url.path) {
            case ("POST", "/v1/calls"):
                return (201, try RingerJSON.encode(call))
            case ("GET", "/v1/calls/\(callID)"):
                call.state = .accepted
                call.acceptedDeviceID = "bob-iphone"
                return (200, try RingerJSON.encode(call))
            case ("GET", "/v1/calls/\(callID)/media"):
                return (200, try RingerJSON.encode(MediaSession(url: "ws://media", token: "alice-media")))
            default:
                return (
                    404,
                    try RingerJSON.encode(Problem(type: ProblemType.notFound.rawValue, title: "Not found", status: 404))
                )
            }
        }
    }

    /// Found by review: a caller whose app missed `call.accepted` (no resume point yet) never connected
    /// the call or started media, because a refresh treated `accepted` as "still up".
    @Test func callerThatMissedTheAnswerConnectsTheCallOnRefresh() async throws {
        let server = AnsweredWhileAwayServer()
        let ui = RecordingCallUI()
        let answered = LockedValue<MediaSession?>(nil)
        let coordinator = CallCoordinator(
            deviceID: "alice-iphone", ui: ui,
            observer: { observation in
                if case .outgoingAnswered(_, let media) = observation { answered.withLock { $0 = media } }
            })
        coordinator.connect(
            api: RingerAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t", transport: server))
        _ = try await coordinator.startCall(to: "bob")
        coordinator.refreshCalls()
        for _ in 0..<200 where answered.snapshot == nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(answered.snapshot?.token == "alice-media")
        #expect(ui.connected == [UUID(uuidString: server.callID)!])
        #expect(ui.ended.isEmpty)
        // A second refresh changes nothing: the call is connected once.
        coordinator.refreshCalls()
        try await Task.sleep(for: .milliseconds(100))
        #expect(ui.connected.count == 1)
    }

    @Test func stoppingTheEventStreamTwiceReportsClosedOnce() {
        let statuses = LockedValue<[EventStream.Status]>([])
        let stream = EventStream(
            api: RingerAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t"),
            deviceID: "d", transport: EventStreamStatusTests.DroppableSockets(), onEvent: { _ in },
            onStatus: { status in statuses.withLock { $0.append(status) } })
        stream.stop()
        stream.stop()
        #expect(statuses.snapshot == [.closed])
    }
}
