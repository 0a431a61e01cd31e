import Foundation
import RingerKit
import RingerSupport
import RingerWire
import Testing

/// `CallCoordinator.currentCalls()`: the calls up on the device, for an app's own screen and the React Native bridge.
@Suite struct CurrentCallsTests {
    func push(_ callID: String, expiresIn seconds: TimeInterval, hasVideo: Bool = false) -> Data {
        let now = Date()
        return try! RingerJSON.encode(
            VoIPPush(
                ringer: .init(
                    callID: callID, caller: Party(id: "alice", name: "Alice"), hasVideo: hasVideo,
                    sentAt: now.unixMilliseconds, expiresAt: now.addingTimeInterval(seconds).unixMilliseconds)))
    }

    @Test func ringingAnsweredAndEndedCallsAsTheyStand() async throws {
        let coordinator = CallCoordinator(deviceID: "bob-iphone", ui: RecordingCallUI())
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t",
                transport: EndAllCallsTests.AnsweringTransport()))
        #expect(coordinator.currentCalls().isEmpty)
        let (later, sooner, over) = (
            UUID().uuidString.lowercased(), UUID().uuidString.lowercased(), UUID().uuidString.lowercased()
        )
        #expect(coordinator.handleVoIPPush(push(later, expiresIn: 40, hasVideo: true)) == .ringing)
        #expect(coordinator.handleVoIPPush(push(sooner, expiresIn: 20)) == .ringing)
        #expect(coordinator.handleVoIPPush(push(over, expiresIn: 30)) == .ringing)
        coordinator.end(callID: UUID(uuidString: over)!) { _ in }
        let answered = LockedValue<Bool?>(nil)
        coordinator.answer(callID: UUID(uuidString: sooner)!) { ok in answered.withLock { $0 = ok } }
        #expect(await DurableHangUpTests.eventually { answered.snapshot == true })

        let calls = coordinator.currentCalls()
        // The ended call is gone; the rest come oldest ring deadline first.
        #expect(calls.map { $0.uuid.uuidString.lowercased() } == [sooner, later])
        #expect(calls.map(\.phase) == [.active, .ringing])
        #expect(calls.allSatisfy { $0.direction == .incoming && $0.caller == Party(id: "alice", name: "Alice") })
        #expect(calls.map(\.hasVideo) == [false, true])
    }
}
