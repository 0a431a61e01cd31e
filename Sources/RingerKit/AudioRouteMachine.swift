/// What kind of device an ``AudioOutput`` is, in the words both platforms share (docs/decisions/0008 §2).
public enum AudioRoute: String, Hashable, Sendable, CaseIterable {
    /// The receiver held to the ear (iOS `builtInReceiver`; Android `CallEndpoint.TYPE_EARPIECE`, `ROUTE_EARPIECE`).
    case earpiece
    /// The loudspeaker (iOS `builtInSpeaker`, `overrideOutputAudioPort(.speaker)`; Android `TYPE_SPEAKER`).
    case speaker
    /// A headset on a wire or USB (iOS `headphones`, `headsetMic`, `usbAudio`, `lineOut`; Android
    /// `TYPE_WIRED_HEADSET`, `ROUTE_WIRED_HEADSET`).
    case wired
    /// A Bluetooth headset or speaker (iOS `bluetoothHFP`, `bluetoothA2DP`, `bluetoothLE`; Android `TYPE_BLUETOOTH`,
    /// `ROUTE_BLUETOOTH`).
    case bluetooth
    /// A car's audio system (iOS `carAudio`, CarPlay).
    case car
    /// Anything else the system routes to: AirPlay, HDMI, Android's `TYPE_STREAMING`.
    case other
}

/// One place the call's audio can go, as the platform names it.
public struct AudioOutput: Hashable, Sendable {
    /// Stable while the device is connected: `earpiece` and `speaker` for the built-in ones, the platform's identifier
    /// otherwise (iOS: the port's `uid`; Android: the `CallEndpoint`'s identifier, or the route's name below API 34).
    public var id: String
    /// What kind of device it is.
    public var route: AudioRoute
    /// The name to show ("AirPods Pro", "Speaker"), as the platform gives it.
    public var name: String

    /// Creates an output.
    public init(id: String, route: AudioRoute, name: String) {
        self.id = id
        self.route = route
        self.name = name
    }
}

/// Where the call's audio goes now and where it could go: what ``CallCoordinator/Observation/audioRouteChanged(_:)``
/// tells the app, for an audio-route button.
public struct AudioRoutes: Hashable, Sendable {
    /// The output in use, if the system said one (nil before any call's audio started on some platforms).
    public var current: AudioOutput?
    /// Every output the app may choose, in the order the system listed them.
    public var outputs: [AudioOutput]

    /// Creates a route state.
    public init(current: AudioOutput?, outputs: [AudioOutput]) {
        self.current = current
        self.outputs = outputs
    }
}

/// Something that happened to the phone's audio route; fed to ``AudioRouteMachine/handle(_:)``.
public enum AudioRouteInput: Hashable, Sendable {
    /// The system's route changed or was first read (iOS: `AVAudioSession.routeChangeNotification`; Android:
    /// `Connection.onCallEndpointChanged`/`onAvailableCallEndpointsChanged`, `onCallAudioStateChanged` below API 34).
    /// `current` is an id of `outputs`, or nil when the system names none.
    case outputsChanged(current: String?, outputs: [AudioOutput])
    /// The app chose an output by id (its audio-route button).
    case select(outputID: String)
    /// The calls' audio started (CallKit activated the audio session; Telecom's connection went active). `video`: the
    /// call that has the audio is a video call.
    case audioActivated(video: Bool)
    /// The calls' audio stopped (CallKit deactivated the session: a hold, an end). `callsLeft`: some call is still up
    /// (held), so its choice of output is kept for its resume.
    case audioDeactivated(callsLeft: Bool)
}

/// What the owner of an ``AudioRouteMachine`` must carry out, in order.
public enum AudioRouteEffect: Hashable, Sendable {
    /// Ask the system to send the audio there (iOS: `overrideOutputAudioPort(.speaker)`, or `.none` and
    /// `setPreferredInput` of the device's port; Android: `requestCallEndpointChange`, `setAudioRoute` below API 34).
    /// The system's answer comes back as ``AudioRouteInput/outputsChanged(current:outputs:)``.
    case apply(AudioOutput)
    /// The calls are over and something was asked of the system during them: give the route back to it (iOS: no
    /// override and no preferred input, which `AVAudioSession` keeps until told otherwise; Android: nothing, Telecom's
    /// routing ends with the call).
    case release
    /// Observation: the route or the outputs to choose from changed.
    case routeChanged(AudioRoutes)
}

/// Decides where a call's audio goes: the phone's route is the system's, and the app's choice goes through the system,
/// so the system's picker and the app's button never disagree (docs/decisions/0008 §2). Pure: no I/O, no clock; the
/// same rules in Kotlin's `AudioRouteMachine`, pinned by TestVectors/audio-route.
///
/// Rules:
/// - **The system says where the audio is**: the app hears every change of the current output or of the outputs
///   available (their ids, kinds or names), once, and only from the system.
/// - **The app's choice goes through the system**: choosing an output the system does not list is refused and changes
///   nothing; one chosen while no call's audio runs is asked for when it starts. While the system has not yet moved
///   the audio where asked, other readings change no choice.
/// - **A choice lasts the call**: it is asked for again whenever the calls' audio starts (CallKit resets an output
///   override when it activates the audio session, after a hold too), and forgotten when the last call ends, when the
///   route is also given back to the system if anything was asked of it.
/// - **The user's later act wins**: when, with the audio running and the choice in effect, the system moves the audio
///   elsewhere (its own picker, CarPlay, a headset connected), the choice is dropped; so is it when a device the system
///   did not list before takes the audio, or when the chosen device goes away.
/// - **A video call starts on the speaker**: when a video call's audio starts on the earpiece and the app chose
///   nothing, the speaker is asked for (a phone held at arm's length; FaceTime's behaviour).
public struct AudioRouteMachine: Hashable, Sendable {
    /// What the system last said.
    public private(set) var routes = AudioRoutes(current: nil, outputs: [])
    /// The output the app chose for the calls now up, by id; nil when it chose none.
    public private(set) var chosen: String?
    /// True while the calls' audio runs.
    public private(set) var audioActive = false
    /// The output last asked of the system, until the system reports the audio there (or the audio stops).
    private var pending: String?
    /// True once something was asked of the system during the calls now up: the route is given back after them.
    private var applied = false

    /// A machine that knows no route yet.
    public init() {}

    /// True when the system lists an output with this id (the app's choice is taken then).
    public func maySelect(_ outputID: String) -> Bool { routes.outputs.contains { $0.id == outputID } }

    /// Applies one input and returns the effects to carry out, in order.
    public mutating func handle(_ input: AudioRouteInput) -> [AudioRouteEffect] {
        switch input {
        case .outputsChanged(let currentID, let outputs):
            return outputsChanged(currentID, outputs)
        case .select(let outputID):
            guard maySelect(outputID) else { return [] }
            chosen = outputID
            guard audioActive, outputID != routes.current?.id, outputID != pending else { return [] }
            return ask(outputID)
        case .audioActivated(let video):
            audioActive = true
            if let chosen { return ask(chosen) }
            guard video, routes.current?.route == .earpiece,
                let speaker = routes.outputs.first(where: { $0.route == .speaker })
            else { return [] }
            return ask(speaker.id)
        case .audioDeactivated(let callsLeft):
            audioActive = false
            pending = nil
            guard !callsLeft else { return [] }
            chosen = nil
            guard applied else { return [] }
            applied = false
            return [.release]
        }
    }

    private mutating func outputsChanged(_ currentID: String?, _ outputs: [AudioOutput]) -> [AudioRouteEffect] {
        let before = routes
        let current = currentID.flatMap { id in outputs.first { $0.id == id } }
        routes = AudioRoutes(current: current, outputs: outputs)
        let newDeviceTookTheAudio =
            current.map { current in !before.outputs.isEmpty && !before.outputs.contains { $0.id == current.id } }
            ?? false
        if let asked = pending {
            if current?.id == asked { pending = nil }
        } else if audioActive, let chosen, let current, current.id != chosen {
            self.chosen = nil
        }
        if newDeviceTookTheAudio, current?.id != chosen {
            chosen = nil
            pending = nil
        }
        if let chosen, !maySelect(chosen) { self.chosen = nil }
        return routes == before ? [] : [.routeChanged(routes)]
    }

    /// Asks the system for a listed output.
    private mutating func ask(_ outputID: String) -> [AudioRouteEffect] {
        guard let output = routes.outputs.first(where: { $0.id == outputID }) else { return [] }
        pending = outputID
        applied = true
        return [.apply(output)]
    }
}
