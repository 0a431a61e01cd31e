import Foundation
import RingerKit
import RingerSupport
import RingerWire
import Testing

/// `CallCoordinator.endAllCalls()`, the answer to a reset of the native call UI.
@Suite struct EndAllCallsTests {
    func push(_ callID: String) -> Data {
        let now = Date()
        return try! RingerJSON.encode(
            VoIPPush(
                ringer: .init(
                    callID: callID, caller: Party(id: "alice"), hasVideo: false,
                    sentAt: now.unixMilliseconds,
                    expiresAt: now.addingTimeInterval(30).unixMilliseconds)))
    }

    @Test func everyLiveCallIsHungUpOnceAndEndedCallsAreLeftAlone() async throws {
        let store = InMemoryPendingActionStore()
        let (ringing, answered, over) = (
            UUID().uuidString.lowercased(), UUID().uuidString.lowercased(),
            UUID().uuidString.lowercased()
        )
        let transport = AnsweringTransport()
        let coordinator = CallCoordinator(deviceID: "bob-iphone", ui: RecordingCallUI(), pendingActions: store)
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t",
                transport: transport))
        for callID in [ringing, answered, over] { #expect(coordinator.handleVoIPPush(push(callID)) == .ringing) }
        let accepted = LockedValue<Bool?>(nil)
        coordinator.answer(callID: UUID(uuidString: answered)!) { answered in accepted.withLock { $0 = answered } }
        #expect(await DurableHangUpTests.eventually { accepted.snapshot == true })
        coordinator.end(callID: UUID(uuidString: over)!) { _ in }
        #expect(await DurableHangUpTests.eventually { transport.requests.contains("POST /v1/calls/\(over)/decline") })

        coordinator.endAllCalls()
        #expect(
            await DurableHangUpTests.eventually {
                transport.requests.contains("POST /v1/calls/\(ringing)/decline")
                    && transport.requests.contains("POST /v1/calls/\(answered)/end")
            })
        try await Task.sleep(for: .milliseconds(100))
        #expect(
            transport.requests.filter { $0.hasPrefix("POST /v1/calls/\(over)/") && !$0.hasSuffix("/ringing") }.count
                == 1)
        coordinator.endAllCalls()  // nothing is live any more
        try await Task.sleep(for: .milliseconds(100))
        #expect(transport.requests.filter { $0.hasSuffix("/decline") || $0.hasSuffix("/end") }.count == 3)
    }

    /// Answers every call request with success and logs it as "METHOD /path".
    final class AnsweringTransport: HTTPTransport, @unchecked Sendable {
        // @unchecked: `log` is guarded by `lock`.
        private let lock = NSLock()
        private var log: [String] = []
        var requests: [String] { lock.withLock { log } }

        func send(
            method: String, url: URL, headers: [String: String], body: Data?
        ) async throws -> (status: Int, body: Data) {
            lock.withLock { log.append("\(method) \(url.path)") }
            let now = Date()
            let call = Call(
                callID: url.deletingLastPathComponent().lastPathComponent, state: .ringing, caller: Party(id: "alice"),
                callee: Party(id: "bob"), hasVideo: false, createdAt: now, expiresAt: now.addingTimeInterval(30))
            guard url.lastPathComponent == "accept" else { return (200, try RingerJSON.encode(call)) }
            return (
                200,
                try RingerJSON.encode(AcceptResponse(call: call, media: MediaSession(url: "ws://media", token: "m")))
            )
        }
    }
}
