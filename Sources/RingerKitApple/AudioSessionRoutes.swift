// Compiled where Package.swift defines RINGER_CALLKIT: iOS, Mac Catalyst, watchOS and visionOS (macOS has
// these frameworks but neither VoIP pushes nor AVAudioSession), and on Linux in the test-only target that
// builds these files against mirrors of the frameworks (Tests/AppleMirrors), so CI type-checks every line.
#if RINGER_CALLKIT && canImport(CallKit) && canImport(PushKit) && canImport(AVFAudio)
@preconcurrency import AVFAudio
import Foundation
import RingerKit
import RingerSupport

/// The phone's audio route through `AVAudioSession`, as the coordinator's ``AudioRouteMachine`` sees it: reads the
/// route on every `routeChangeNotification` and carries out the app's choice. Apple, "AVAudioSession": the speaker is an
/// output override (`overrideOutputAudioPort(.speaker)`, dropped by the next route change); a headset, Bluetooth
/// hands-free device or the built-in microphone (thus the receiver) is chosen as the preferred input, which moves the
/// output with it (Technical Q&A QA1754). Output-only devices (AirPlay, Bluetooth A2DP) are chosen only in the
/// system's picker (`AVRoutePickerView`): they are listed when in use, and a choice of one is refused.
final class AudioSessionRoutes: @unchecked Sendable {
    // @unchecked: `session` is AVAudioSession, which Apple documents as thread-safe; `observer` is locked.
    /// The id of the receiver, whose port iOS does not list while another output is in use.
    static let earpieceID = "earpiece"
    /// The id of the built-in speaker.
    static let speakerID = "speaker"

    private let session: AVAudioSession
    private let hasEarpiece: Bool
    private let observer = LockedValue<(any NSObjectProtocol)?>(nil)

    /// - Parameters:
    ///   - session: the app's audio session (`AVAudioSession.sharedInstance()`).
    ///   - hasEarpiece: false on a device without a receiver (an iPad).
    init(session: AVAudioSession, hasEarpiece: Bool) {
        self.session = session
        self.hasEarpiece = hasEarpiece
    }

    deinit {
        if let token = observer.snapshot { NotificationCenter.default.removeObserver(token) }
    }

    /// Tells the coordinator the route now and after every change of it, until this object goes.
    func start(reportingTo coordinator: CallCoordinator) {
        let token = NotificationCenter.default.addObserver(
            forName: AVAudioSession.routeChangeNotification, object: session, queue: nil
        ) { [weak self, weak coordinator] _ in
            guard let self, let coordinator else { return }
            self.report(to: coordinator)
        }
        observer.withLock { $0 = token }
        report(to: coordinator)
    }

    private func report(to coordinator: CallCoordinator) {
        let (current, outputs) = Self.outputs(
            current: session.currentRoute.outputs.first, inputs: session.availableInputs ?? [], hasEarpiece: hasEarpiece
        )
        coordinator.audioOutputsChanged(current: current, outputs: outputs)
    }

    /// Asks iOS to send the audio to `output`: the speaker by override, anything else by dropping the override and
    /// preferring its input port (the built-in microphone for the receiver). A refusal (the device went, the session
    /// is not iOS's to change now) leaves the route as it is; the coordinator follows the route iOS reports.
    func apply(_ output: AudioOutput) {
        do {
            if output.id == Self.speakerID { return try session.overrideOutputAudioPort(.speaker) }
            let inputs = session.availableInputs ?? []
            let input =
                output.id == Self.earpieceID
                ? inputs.first { $0.portType == .builtInMic } : inputs.first { $0.uid == output.id }
            guard let input else { return }
            try session.overrideOutputAudioPort(.none)
            try session.setPreferredInput(input)
        } catch {
            return
        }
    }

    /// Gives the route back to iOS once the calls are over: no override and no preferred input, which `AVAudioSession`
    /// keeps until told otherwise (Apple, `setPreferredInput(_:)`: nil clears the preference), so the next call starts
    /// where iOS puts it (on AirPods connected meanwhile, say).
    func release() {
        try? session.overrideOutputAudioPort(.none)
        try? session.setPreferredInput(nil)
    }

    /// The outputs the app may choose and the one in use, from a route: the receiver (when the device has one) and
    /// the speaker always, then every input port but the built-in microphone as the device it belongs to, then the
    /// output in use if none of those is it (an output-only device). An output port is matched to a listed device by
    /// `uid` (a Bluetooth hands-free device's ports share it), else by kind (wired headphones and their microphone do
    /// not).
    /// - Returns: the id of the output in use (nil when the route has none) and the list.
    static func outputs(
        current: AVAudioSessionPortDescription?, inputs: [AVAudioSessionPortDescription], hasEarpiece: Bool
    ) -> (String?, [AudioOutput]) {
        var outputs: [AudioOutput] = []
        if hasEarpiece { outputs.append(AudioOutput(id: earpieceID, route: .earpiece, name: "iPhone")) }
        outputs.append(AudioOutput(id: speakerID, route: .speaker, name: "Speaker"))
        for input in inputs where input.portType != .builtInMic {
            outputs.append(AudioOutput(id: input.uid, route: route(of: input.portType), name: input.portName))
        }
        guard let current else { return (nil, outputs) }
        let kind = route(of: current.portType)
        if kind == .earpiece { return (hasEarpiece ? earpieceID : nil, outputs) }
        if kind == .speaker { return (speakerID, outputs) }
        if let listed = outputs.first(where: { $0.id == current.uid }) ?? outputs.first(where: { $0.route == kind }) {
            return (listed.id, outputs)
        }
        outputs.append(AudioOutput(id: current.uid, route: kind, name: current.portName))
        return (current.uid, outputs)
    }

    /// The shared kind of a port (``AudioRoute``).
    static func route(of port: AVAudioSession.Port) -> AudioRoute {
        switch port {
        case .builtInReceiver: .earpiece
        case .builtInSpeaker: .speaker
        case .headphones, .headsetMic, .usbAudio, .lineOut: .wired
        case .bluetoothHFP, .bluetoothA2DP, .bluetoothLE: .bluetooth
        case .carAudio: .car
        default: .other
        }
    }
}
#endif
