// A test-only mirror of the AVFAudio declarations RingerKitApple uses, so its CallKit adapter type-checks
// and runs on Linux. Declared as in Apple's SDK (`AVAudioSession.h`, `AVAudioSessionRoute.h`,
// `AVAudioSessionTypes.h`); this is not the real framework. It is compiled in Swift 5 mode, as Apple's Objective-C
// frameworks are imported as pre-concurrency modules. Behaviour beyond the declarations (how the route follows an
// override or a preferred input) is written from Apple's documentation of those calls and marked `mirror`.

import Foundation

/// Mirror of `AVAudioSession` (Apple: AVFAudio). CallKit hands the shared instance to
/// `CXProviderDelegate.provider(_:didActivate:)` and `provider(_:didDeactivate:)`; tests make their own with
/// ``mirrorMake()`` so parallel tests do not share a route.
open class AVAudioSession: NSObject {
    private static let shared = AVAudioSession()

    override private init() { super.init() }

    /// The shared audio session (Apple: `class func sharedInstance() -> AVAudioSession`).
    open class func sharedInstance() -> AVAudioSession { shared }

    /// Mirror of `AVAudioSession.Port` (`AVAudioSessionPort`, an `NSString` typedef): the kinds of ports.
    public struct Port: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The receiver at the top of an iPhone (`AVAudioSessionPortBuiltInReceiver`).
        public static let builtInReceiver = Port(rawValue: "Receiver")
        /// The built-in speaker.
        public static let builtInSpeaker = Port(rawValue: "Speaker")
        /// The built-in microphone.
        public static let builtInMic = Port(rawValue: "MicrophoneBuiltIn")
        /// Wired headphones (output).
        public static let headphones = Port(rawValue: "Headphones")
        /// A wired headset's microphone (input).
        public static let headsetMic = Port(rawValue: "MicrophoneWired")
        /// A Bluetooth hands-free device (input and output).
        public static let bluetoothHFP = Port(rawValue: "BluetoothHFP")
        /// A Bluetooth A2DP device (output only).
        public static let bluetoothA2DP = Port(rawValue: "BluetoothA2DPOutput")
        /// A Bluetooth Low Energy output.
        public static let bluetoothLE = Port(rawValue: "BluetoothLEOutput")
        /// CarPlay.
        public static let carAudio = Port(rawValue: "CarAudio")
        /// AirPlay.
        public static let airPlay = Port(rawValue: "AirPlay")
        /// A USB audio device.
        public static let usbAudio = Port(rawValue: "USBAudio")
        /// Line-level output on the dock connector.
        public static let lineOut = Port(rawValue: "LineOut")
        /// HDMI.
        public static let HDMI = Port(rawValue: "HDMIOutput")
    }

    /// Mirror of `AVAudioSession.PortOverride` (`AVAudioSessionPortOverride`, `NS_ENUM(NSUInteger)`).
    public enum PortOverride: UInt, Sendable {
        /// No override: the route the system chose.
        case none = 0
        /// The built-in speaker (`'spkr'`).
        case speaker = 1_936_747_378
    }

    /// Apple: `AVAudioSession.routeChangeNotification`, posted with the session as its object when the route changes.
    public static let routeChangeNotification = Notification.Name("AVAudioSessionRouteChangeNotification")

    private let lock = NSLock()
    private var route = AVAudioSessionRouteDescription(inputs: [], outputs: [])
    private var inputs: [AVAudioSessionPortDescription] = []
    private var devices: [MirrorDevice] = []
    private var override = PortOverride.none
    private var preferred: AVAudioSessionPortDescription?
    private var requests: [String] = []
    private var signature: [String] = []

    /// The current route (Apple: `var currentRoute: AVAudioSessionRouteDescription { get }`).
    open var currentRoute: AVAudioSessionRouteDescription { lock.withLock { route } }

    /// The inputs that may be preferred (Apple: `var availableInputs: [AVAudioSessionPortDescription]? { get }`).
    open var availableInputs: [AVAudioSessionPortDescription]? { lock.withLock { inputs } }

    /// Apple: `func overrideOutputAudioPort(_ portOverride: AVAudioSession.PortOverride) throws`.
    open func overrideOutputAudioPort(_ portOverride: PortOverride) throws {
        lock.withLock {
            requests.append(portOverride == .speaker ? "override speaker" : "override none")
            override = portOverride
        }
        mirrorReroute()
    }

    /// Apple: `func setPreferredInput(_ inPort: AVAudioSessionPortDescription?) throws`; throws for a port that is
    /// not one of ``availableInputs``.
    open func setPreferredInput(_ inPort: AVAudioSessionPortDescription?) throws {
        try lock.withLock {
            requests.append("prefer \(inPort?.uid ?? "none")")
            if let inPort, !inputs.contains(where: { $0.uid == inPort.uid }) {
                throw NSError(domain: NSOSStatusErrorDomain, code: -50)
            }
            preferred = inPort
        }
        mirrorReroute()
    }

    // MARK: Mirror-only

    /// One audio device the mirror's iPhone is connected to: its microphone (nil for an output-only device) and
    /// its output.
    public struct MirrorDevice {
        /// The device's input port, offered in ``availableInputs``.
        public var input: AVAudioSessionPortDescription?
        /// The device's output port.
        public var output: AVAudioSessionPortDescription
        /// Creates a device.
        public init(input: AVAudioSessionPortDescription?, output: AVAudioSessionPortDescription) {
            self.input = input
            self.output = output
        }
    }

    /// A fresh session of an iPhone with only its receiver, speaker and microphone.
    public static func mirrorMake() -> AVAudioSession {
        let session = AVAudioSession()
        session.mirrorReroute(post: false)
        return session
    }

    /// The overrides and preferred inputs asked for, in order ("override speaker", "prefer <uid>").
    public var mirrorRequests: [String] { lock.withLock { requests } }

    /// A device is connected: as iOS does, the audio moves to it (the newest device takes the route).
    public func mirrorConnect(_ device: MirrorDevice) {
        lock.withLock {
            devices.append(device)
            preferred = device.input
            override = .none
        }
        mirrorReroute()
    }

    /// A device goes away: the audio falls back to the newest remaining device, or the receiver.
    public func mirrorDisconnect(uid: String) {
        lock.withLock {
            devices.removeAll { $0.output.uid == uid }
            if preferred?.uid == uid { preferred = nil }
        }
        mirrorReroute()
    }

    private static let mic = AVAudioSessionPortDescription(
        portType: .builtInMic, portName: "iPhone Microphone", uid: "Built-In Microphone")
    private static let receiver = AVAudioSessionPortDescription(
        portType: .builtInReceiver, portName: "Receiver", uid: "Built-In Receiver")
    private static let speaker = AVAudioSessionPortDescription(
        portType: .builtInSpeaker, portName: "Speaker", uid: "Built-In Speaker")

    /// Works out the route as iOS would and posts `routeChangeNotification` when it changed: the speaker while
    /// overridden, else the preferred input's device, else the newest output-only device, else the receiver.
    private func mirrorReroute(post: Bool = true) {
        let changed = lock.withLock { () -> Bool in
            inputs = [Self.mic] + devices.compactMap(\.input)
            let chosen: MirrorDevice? =
                preferred.flatMap { input in devices.first { $0.input?.uid == input.uid } }
                ?? (preferred?.portType == .builtInMic ? nil : devices.last)
            let output = override == .speaker ? Self.speaker : chosen?.output ?? Self.receiver
            let input = override == .speaker ? Self.mic : chosen?.input ?? Self.mic
            route = AVAudioSessionRouteDescription(inputs: [input], outputs: [output])
            let next = [output.uid] + inputs.map(\.uid)
            defer { signature = next }
            return next != signature
        }
        if changed && post { NotificationCenter.default.post(name: Self.routeChangeNotification, object: self) }
    }
}

/// Mirror of `AVAudioSessionPortDescription`: one port of a route.
open class AVAudioSessionPortDescription: NSObject, @unchecked Sendable {
    /// Apple: `var portType: AVAudioSession.Port { get }`.
    open var portType: AVAudioSession.Port
    /// Apple: `var portName: String { get }`, the name shown to the user.
    open var portName: String
    /// Apple: `var uid: String { get }`, the port's system-assigned identifier.
    open var uid: String

    /// Mirror-only: Apple's ports are made by the system.
    public init(portType: AVAudioSession.Port, portName: String, uid: String) {
        self.portType = portType
        self.portName = portName
        self.uid = uid
    }
}

/// Mirror of `AVAudioSessionRouteDescription`: the inputs and outputs of the current route.
open class AVAudioSessionRouteDescription: NSObject, @unchecked Sendable {
    /// Apple: `var inputs: [AVAudioSessionPortDescription] { get }`.
    open var inputs: [AVAudioSessionPortDescription]
    /// Apple: `var outputs: [AVAudioSessionPortDescription] { get }`.
    open var outputs: [AVAudioSessionPortDescription]

    /// Mirror-only: Apple's routes are made by the system.
    public init(inputs: [AVAudioSessionPortDescription], outputs: [AVAudioSessionPortDescription]) {
        self.inputs = inputs
        self.outputs = outputs
    }
}
