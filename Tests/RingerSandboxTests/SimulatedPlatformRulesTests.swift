import Foundation
import RingerKit
import RingerSandbox
import RingerWire
import Testing

/// The simulated iOS enforces Apple's rules, so a broken app fails in CI as it would on a phone.
@Suite struct SimulatedPlatformRulesTests {
    let payload = Data(#"{"ringer":{"v":1}}"#.utf8)

    @Test func appThatDoesNotReportAVoIPPushIsKilled() {
        let callKit = SimulatedCallKit()
        #expect(SimulatedPushKit.deliver(payload, callKit: callKit) { _ in } == .appKilled)
    }

    @Test func appThatReportsBeforeReturningSurvives() {
        let callKit = SimulatedCallKit()
        let verdict = SimulatedPushKit.deliver(payload, callKit: callKit) { _ in
            callKit.reportIncomingCall(IncomingCallReport(id: UUID(), caller: Party(id: "a"), hasVideo: false)) { _ in }
        }
        #expect(verdict == .reported)
    }

    @Test func reportingLaterThanTheHandlerIsTooLate() async {
        let callKit = SimulatedCallKit()
        // The report waits until the handler has returned: a task merely started in the handler may run at once on
        // another thread and report before the handler returns (a loaded `make test`, once).
        let (handlerReturned, returned) = AsyncStream<Void>.makeStream()
        var late: Task<Void, Never>?
        let verdict = SimulatedPushKit.deliver(payload, callKit: callKit) { _ in
            late = Task {
                for await _ in handlerReturned { break }
                callKit.reportIncomingCall(IncomingCallReport(id: UUID(), caller: Party(id: "a"), hasVideo: false)) {
                    _ in
                }
            }
        }
        returned.finish()
        await late?.value
        #expect(verdict == .appKilled)
        #expect(callKit.reportCount == 1)
    }

    @Test func aCallUUIDCanBeReportedOnlyOnce() async {
        let callKit = SimulatedCallKit()
        let id = UUID()
        let report = IncomingCallReport(id: id, caller: Party(id: "a"), hasVideo: false)
        let first = await withCheckedContinuation { continuation in
            callKit.reportIncomingCall(report) { continuation.resume(returning: $0 == nil) }
        }
        let second = await withCheckedContinuation { continuation in
            callKit.reportIncomingCall(report) { continuation.resume(returning: $0 as? SimulatedCallKit.CallKitError) }
        }
        #expect(first)
        #expect(second == .callUUIDAlreadyExists)
        #expect(callKit.calls.count == 1)
        #expect(callKit.reportCount == 2)
    }

    @Test func audioCannotStartBeforeTheSystemActivatesIt() {
        let callKit = SimulatedCallKit()
        let id = UUID()
        callKit.reportIncomingCall(IncomingCallReport(id: id, caller: Party(id: "a"), hasVideo: false)) { _ in }
        #expect(throws: SimulatedCallKit.CallKitError.audioNotActivated) { try callKit.startAudio(callID: id) }
    }

    @Test func everyPushTheCoordinatorHandlesIsReportedWhateverItHolds() {
        let callKit = SimulatedCallKit()
        let coordinator = CallCoordinator(deviceID: "d", ui: callKit)
        for body in ["", "{}", "not json", #"{"ringer":{"v":1,"type":"call.cancelled","call_id":"x"}}"#] {
            #expect(
                SimulatedPushKit.deliver(Data(body.utf8), callKit: callKit) { coordinator.handleVoIPPush($0) }
                    == .reported)
        }
    }
}
