import Foundation
import RingerKit
import RingerSupport
import RingerWire
import Testing

/// `CallCoordinator`'s hold and mute (docs/decisions/0008 §1): the app's requests go to the call UI, the system's
/// changes come back as observations, and the call UI is told whether to fulfil the system's action.
@Suite struct HoldAndMuteTests {
    /// A coordinator whose server accepts every answer, with `count` calls answered and confirmed.
    func answered(_ count: Int) async throws -> (CallCoordinator, RecordingCallUI, [UUID], LockedValue<[String]>) {
        let ui = RecordingCallUI()
        let seen = LockedValue<[String]>([])
        let coordinator = CallCoordinator(
            deviceID: "bob-iphone", ui: ui,
            observer: { observation in
                switch observation {
                case .heldChanged(let callID, let held):
                    seen.withLock { $0.append("\(held ? "held" : "resumed") \(callID)") }
                case .mutedChanged(let callID, let muted):
                    seen.withLock { $0.append("\(muted ? "muted" : "unmuted") \(callID)") }
                case .dtmf(let callID, let digits):
                    seen.withLock { $0.append("tones \(digits) \(callID)") }
                default: break
                }
            })
        coordinator.connect(
            api: RingerAPIClient(
                baseURL: URL(string: "http://127.0.0.1:9")!, userToken: "t",
                transport: EndAllCallsTests.AnsweringTransport()))
        var ids: [UUID] = []
        for _ in 0..<count {
            let id = UUID()
            #expect(
                coordinator.handleVoIPPush(CurrentCallsTests().push(id.uuidString.lowercased(), expiresIn: 30))
                    == .ringing)
            let answered = LockedValue<Bool?>(nil)
            coordinator.answer(callID: id) { ok in answered.withLock { $0 = ok } }
            #expect(await DurableHangUpTests.eventually { answered.snapshot == true })
            ids.append(id)
        }
        return (coordinator, ui, ids, seen)
    }

    @Test func theAppsHoldGoesToTheCallUIAndCountsOnceTheSystemDidIt() async throws {
        let (coordinator, ui, ids, seen) = try await answered(1)
        let callID = ids[0].uuidString.lowercased()
        #expect(coordinator.setHeld(callID: callID.uppercased(), held: true))
        #expect(ui.controlRequests == ["hold \(callID)"])
        #expect(seen.snapshot.isEmpty)
        #expect(coordinator.currentCalls().first?.held == false)
        // The system carries it out (CallKit performs the action, Telecom's connection goes on hold).
        #expect(coordinator.hold(callID: ids[0], held: true))
        #expect(seen.snapshot == ["held \(callID)"])
        #expect(coordinator.currentCalls().first?.held == true)
        // Again: nothing more to say, and the action is fulfilled all the same.
        #expect(coordinator.hold(callID: ids[0], held: true))
        #expect(seen.snapshot == ["held \(callID)"])
    }

    @Test func aCallNotAnsweredCannotBeHeldAndTheSystemsActionFails() async throws {
        let (coordinator, ui, _, seen) = try await answered(0)
        let ringing = UUID()
        #expect(
            coordinator.handleVoIPPush(CurrentCallsTests().push(ringing.uuidString.lowercased(), expiresIn: 30))
                == .ringing)
        #expect(!coordinator.setHeld(callID: ringing.uuidString, held: true))
        #expect(!coordinator.hold(callID: ringing, held: true))
        #expect(!coordinator.hold(callID: UUID(), held: true))
        #expect(!coordinator.setHeld(callID: "not-a-call", held: true))
        #expect(ui.controlRequests.isEmpty)
        #expect(seen.snapshot.isEmpty)
    }

    @Test func answeringASecondCallAsksToHoldTheFirstAndResumingItHoldsTheSecond() async throws {
        let (coordinator, ui, ids, seen) = try await answered(2)
        let (first, second) = (ids[0].uuidString.lowercased(), ids[1].uuidString.lowercased())
        #expect(ui.controlRequests == ["hold \(first)"])
        #expect(coordinator.hold(callID: ids[0], held: true))
        #expect(coordinator.setHeld(callID: first, held: false))
        #expect(ui.controlRequests == ["hold \(first)", "hold \(second)", "resume \(first)"])
        #expect(coordinator.hold(callID: ids[1], held: true))
        #expect(coordinator.hold(callID: ids[0], held: false))
        #expect(seen.snapshot == ["held \(first)", "held \(second)", "resumed \(first)"])
    }

    @Test func muteFromTheSystemAndFromTheApp() async throws {
        let (coordinator, ui, ids, seen) = try await answered(1)
        let callID = ids[0].uuidString.lowercased()
        #expect(coordinator.mute(callID: ids[0], muted: true))
        #expect(coordinator.setMuted(callID: callID, muted: false))
        #expect(ui.controlRequests == ["unmute \(callID)"])
        #expect(coordinator.mute(callID: ids[0], muted: false))
        #expect(seen.snapshot == ["muted \(callID)", "unmuted \(callID)"])
        coordinator.end(callID: ids[0]) { _ in }
        #expect(!coordinator.setMuted(callID: callID, muted: true))
        #expect(!coordinator.mute(callID: ids[0], muted: true))
    }

    @Test func keypadTonesPlayOnlyOnTheCallWithTheAudio() async throws {
        let (coordinator, ui, ids, seen) = try await answered(1)
        let callID = ids[0].uuidString.lowercased()
        #expect(coordinator.dtmf(callID: ids[0], digits: "5"))
        // The app's own keypad goes through the call UI; the media hears of it once the system performed it.
        #expect(coordinator.playDTMF(callID: callID.uppercased(), digits: "12#"))
        #expect(ui.controlRequests == ["dtmf 12# \(callID)"])
        #expect(coordinator.dtmf(callID: ids[0], digits: "12#"))
        #expect(!coordinator.playDTMF(callID: callID, digits: "1,2"), "a pause is not a keypad key")
        #expect(!coordinator.dtmf(callID: ids[0], digits: "a"), "lowercase is not RFC 4733's spelling")
        #expect(coordinator.hold(callID: ids[0], held: true))
        #expect(!coordinator.dtmf(callID: ids[0], digits: "5"), "a held call plays no tones")
        #expect(!coordinator.playDTMF(callID: callID, digits: "5"))
        #expect(!coordinator.playDTMF(callID: UUID().uuidString, digits: "5"))
        #expect(seen.snapshot == ["tones 5 \(callID)", "tones 12# \(callID)", "held \(callID)"])
        #expect(ui.controlRequests == ["dtmf 12# \(callID)"])
    }

    @Test func theAudioRoutesChoiceEndsWithTheLastCallWhateverTheOrderOfTheUIsNews() async throws {
        let (coordinator, ui, ids, _) = try await answered(1)
        let outputs = [
            AudioOutput(id: "earpiece", route: .earpiece, name: "Phone"),
            AudioOutput(id: "speaker", route: .speaker, name: "Speaker"),
        ]
        coordinator.audioOutputsChanged(current: "earpiece", outputs: outputs)
        coordinator.audioSessionActivated()
        #expect(coordinator.selectAudioOutput(id: "speaker"))
        #expect(!coordinator.selectAudioOutput(id: "a-headset"))
        coordinator.audioOutputsChanged(current: "speaker", outputs: outputs)
        // Telecom closes the connection (the audio stops) before the core hears the hang-up.
        coordinator.audioSessionDeactivated()
        #expect(ui.controlRequests == ["route speaker"])
        coordinator.end(callID: ids[0]) { _ in }
        #expect(ui.controlRequests == ["route speaker", "route released"], "the route is given back to the system")
        coordinator.audioOutputsChanged(current: "earpiece", outputs: outputs)
        coordinator.audioSessionActivated()
        #expect(
            ui.controlRequests == ["route speaker", "route released"], "the next call starts where the system puts it")
    }
}
