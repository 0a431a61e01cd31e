@preconcurrency import AVFAudio
@preconcurrency import CallKit
import Foundation
import RingerKit
@testable import RingerKitAppleMirrored
import RingerTestSupport
import Testing

/// The audio route on iOS (docs/decisions/0008 §2): `AVAudioSession`'s route reaches the app as
/// `.audioRouteChanged`, and the app's choice is an override or a preferred input, so the system's picker agrees.
@Suite struct AudioRouteTests {
    typealias Port = AVAudioSessionPortDescription

    static var buds: AVAudioSession.MirrorDevice {
        AVAudioSession.MirrorDevice(
            input: Port(portType: .bluetoothHFP, portName: "AirPods Pro", uid: "a4:c1:38:00:11:22-tsco"),
            output: Port(portType: .bluetoothHFP, portName: "AirPods Pro", uid: "a4:c1:38:00:11:22-tsco"))
    }

    func routes(_ harness: PhoneHarness) -> [String] {
        harness.observations.all.compactMap {
            guard case .audioRouteChanged(let routes) = $0 else { return nil }
            return "\(routes.current?.id ?? "none") of \(routes.outputs.map(\.id).joined(separator: ","))"
        }
    }

    @Test func theRouteIsReportedAndTheAppsChoiceGoesThroughTheAudioSession() async throws {
        let harness = PhoneHarness()
        #expect(routes(harness) == ["earpiece of earpiece,speaker"])
        let coordinator = harness.phone.coordinator
        #expect(!coordinator.selectAudioOutput(id: "a4:c1:38:00:11:22-tsco"), "not listed yet")
        #expect(coordinator.selectAudioOutput(id: "speaker"))
        #expect(harness.audioSession.mirrorRequests.isEmpty, "no call's audio runs: asked when it starts")
        harness.provider.mirrorActivateAudioSession()
        #expect(await eventually(within: 5) { harness.audioSession.mirrorRequests == ["override speaker"] })
        #expect(await eventually(within: 5) { routes(harness).last == "speaker of earpiece,speaker" })
        // A headset connected during the call takes the audio, as iOS routes it.
        harness.audioSession.mirrorConnect(Self.buds)
        let budsID = "a4:c1:38:00:11:22-tsco"
        #expect(routes(harness).last == "\(budsID) of earpiece,speaker,\(budsID)")
        #expect(coordinator.selectAudioOutput(id: "earpiece"))
        #expect(harness.audioSession.mirrorRequests.suffix(2) == ["override none", "prefer Built-In Microphone"])
        #expect(routes(harness).last == "earpiece of earpiece,speaker,\(budsID)")
        #expect(coordinator.audioRoutes.current?.route == .earpiece)
    }

    @Test func anOutputIsListedOnceWhateverItsPortsAreCalled() {
        let mic = Port(portType: .builtInMic, portName: "iPhone Microphone", uid: "Built-In Microphone")
        let headsetMic = Port(portType: .headsetMic, portName: "Headset Microphone", uid: "Wired Microphone")
        let headphones = Port(portType: .headphones, portName: "Headphones", uid: "Wired Headphones")
        let (wired, withHeadset) = AudioSessionRoutes.outputs(
            current: headphones, inputs: [mic, headsetMic], hasEarpiece: true)
        #expect(wired == "Wired Microphone", "wired headphones are the headset's microphone's device")
        #expect(withHeadset.map(\.route) == [.earpiece, .speaker, .wired])
        let airPlay = Port(portType: .airPlay, portName: "Living Room", uid: "airplay-1")
        let (current, withAirPlay) = AudioSessionRoutes.outputs(current: airPlay, inputs: [mic], hasEarpiece: false)
        #expect(current == "airplay-1")
        #expect(withAirPlay.map(\.id) == ["speaker", "airplay-1"], "an iPad has no earpiece; AirPlay only in use")
        let receiver = Port(portType: .builtInReceiver, portName: "Receiver", uid: "Built-In Receiver")
        #expect(AudioSessionRoutes.outputs(current: receiver, inputs: [mic], hasEarpiece: true).0 == "earpiece")
        #expect(AudioSessionRoutes.outputs(current: nil, inputs: [mic], hasEarpiece: true).0 == nil)
    }

    @Test func aChoiceOfAnOutputOnlyDeviceAsksNothing() {
        let session = AVAudioSession.mirrorMake()
        let routes = AudioSessionRoutes(session: session, hasEarpiece: true)
        routes.apply(AudioOutput(id: "airplay-1", route: .other, name: "Living Room"))
        #expect(session.mirrorRequests.isEmpty, "AirPlay is chosen in the system's picker only")
    }
}
