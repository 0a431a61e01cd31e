import Foundation
import RingerKit
import RingerSandbox
import RingerSupport
import RingerWire
import Testing

/// The simulated CallKit's cellular call (docs/decisions/0008): "Hold & Accept" only for calls that support holding,
/// the app's audio session taken and given back, and no resume when the cellular call ends (Apple's rule).
@Suite struct SimulatedCellularCallTests {
    /// Accepts every answer, as a server would.
    final class AcceptingServer: HTTPTransport, Sendable {
        func send(
            method: String, url: URL, headers: [String: String], body: Data?
        ) async throws -> (status: Int, body: Data) {
            let now = Date()
            let call = Call(
                callID: url.deletingLastPathComponent().lastPathComponent, state: .accepted, caller: Party(id: "alice"),
                callee: Party(id: "bob"), hasVideo: false, createdAt: now, expiresAt: now.addingTimeInterval(30))
            guard url.lastPathComponent == "accept" else { return (200, try RingerJSON.encode(call)) }
            return (
                200, try RingerJSON.encode(AcceptResponse(call: call, media: MediaSession(url: "ws://m", token: "t")))
            )
        }
    }

    /// A simulated CallKit and a coordinator on it with one call answered on CallKit and confirmed.
    func answered(supportsHolding: Bool) async throws -> (SimulatedCallKit, CallCoordinator, UUID) {
        let callKit = SimulatedCallKit(supportsHolding: supportsHolding)
        let coordinator = CallCoordinator(deviceID: "bob-iphone", ui: callKit)
        callKit.attach(coordinator)
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t", transport: AcceptingServer()))
        let id = UUID()
        let now = Date()
        let push = VoIPPush(
            ringer: .init(
                callID: id.uuidString.lowercased(), caller: Party(id: "alice"), hasVideo: false,
                sentAt: now.unixMilliseconds, expiresAt: now.addingTimeInterval(30).unixMilliseconds))
        #expect(coordinator.handleVoIPPush(try RingerJSON.encode(push)) == .ringing)
        let fulfilled = LockedValue<Bool?>(nil)
        callKit.userAnswers(id, coordinator: coordinator) { ok in fulfilled.withLock { $0 = ok } }
        for _ in 0..<500 where fulfilled.snapshot == nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(fulfilled.snapshot == true)
        #expect(callKit.call(id)?.state == .active)
        return (callKit, coordinator, id)
    }

    @Test func holdAndAcceptHoldsTheCallTakesItsAudioAndTheEndOfTheCellularCallResumesNothing() async throws {
        let (callKit, coordinator, id) = try await answered(supportsHolding: true)
        #expect(callKit.cellularCallArrives(answer: .holdAndAccept, coordinator: coordinator) == .holdAndAccept)
        #expect(callKit.call(id)?.held == true)
        #expect(callKit.cellular == .active)
        #expect(throws: SimulatedCallKit.CallKitError.audioNotActivated) { try callKit.startAudio(callID: id) }
        #expect(coordinator.currentCalls().first?.held == true)
        callKit.cellularCallEnds()
        #expect(callKit.cellular == nil)
        #expect(callKit.call(id)?.held == true, "iOS does not resume a call a cellular call held")
        callKit.userHolds(id, held: false, coordinator: coordinator)
        #expect(callKit.call(id)?.held == false)
        #expect(throws: Never.self) { try callKit.startAudio(callID: id) }
        #expect(coordinator.currentCalls().first?.held == false)
    }

    @Test func resumingOverAConnectedCellularCallHoldsTheCellularCall() async throws {
        let (callKit, coordinator, id) = try await answered(supportsHolding: true)
        callKit.cellularCallArrives(answer: .holdAndAccept, coordinator: coordinator)
        callKit.userHolds(id, held: false, coordinator: coordinator)
        #expect(callKit.cellular == .held)
        #expect(callKit.changes.suffix(2) == [.held(id, false), .cellularHeld])
    }

    @Test func callsThatDoNotSupportHoldingGetEndAndAcceptOnly() async throws {
        let (callKit, coordinator, id) = try await answered(supportsHolding: false)
        #expect(callKit.cellularCallArrives(answer: .holdAndAccept, coordinator: coordinator) == .endAndAccept)
        #expect(callKit.call(id)?.state == .ended)
        #expect(coordinator.currentCalls().isEmpty)
    }

    @Test func aDeclinedCellularCallChangesNothing() async throws {
        let (callKit, coordinator, id) = try await answered(supportsHolding: true)
        #expect(callKit.cellularCallArrives(answer: .decline, coordinator: coordinator) == .decline)
        #expect(callKit.call(id)?.held == false && callKit.call(id)?.state == .active)
        #expect(callKit.cellular == nil)
        #expect(throws: Never.self) { try callKit.startAudio(callID: id) }
    }
}
