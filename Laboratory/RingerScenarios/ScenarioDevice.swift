public import Foundation
public import RingerSandbox
public import RingerWire

/// One simulated phone of a scenario, as it is when the time line starts: an iPhone or an Android phone.
public struct ScenarioDevice: Sendable, Equatable {
    /// What the phone's user does when it rings, its delays in scenario seconds.
    public typealias Behaviour = CalleeBehaviour

    /// The app's state, in the file's words. iPhones know `foreground`, `background` and `killed`;
    /// Android phones `foreground`, `background`, `swiped_away` and `force_stopped`.
    public enum AppState: String, Sendable, Equatable {
        /// On screen, event stream open.
        case foreground
        /// Suspended (iOS) or cached and frozen (Android): no socket.
        case background
        /// iOS: not running; only a VoIP push launches it.
        case killed
        /// Android: removed from Recents; a high-priority FCM message starts it again.
        case swipedAway = "swiped_away"
        /// Android: force-stopped; nothing is delivered until the user opens it.
        case forceStopped = "force_stopped"
    }

    /// An FCM error `messages:send` answers for this phone's token (``FCMSandboxFault``).
    public struct FCMFault: Sendable, Equatable {
        /// Google's error code (`UNAVAILABLE`, `QUOTA_EXCEEDED`, `UNREGISTERED`, …).
        public var code: String
        /// Seconds for `Retry-After`, if any (the server reads them on its clock: scenario seconds).
        public var retryAfter: Int?
        /// Sends it answers; nil: every send until the run ends.
        public var count: Int?

        /// Creates a fault.
        public init(code: String, retryAfter: Int? = nil, count: Int? = 1) {
            self.code = code
            self.retryAfter = retryAfter
            self.count = count
        }
    }

    /// The device id (unique in the scenario).
    public var id: String
    /// The user who owns the phone.
    public var user: String
    /// The phone's platform: `ios` (a simulated iPhone) or `android` (a simulated Android phone).
    public var platform: Platform
    /// The app's state at the start.
    public var app: AppState
    /// False when the phone is switched off at the start: no app runs and APNs or FCM holds its pushes.
    public var phoneOn: Bool
    /// What the user does when it rings.
    public var behaviour: Behaviour
    /// False when nobody is logged in to the app: its device registration must be refused.
    public var loggedIn: Bool
    /// Scenario seconds APNs takes to hand a push to this phone; on Android, seconds FCM takes to answer
    /// (and so to deliver) each message to it.
    public var pushDelay: TimeInterval
    /// Android: the phone is in Doze at the start.
    public var dozing: Bool = false
    /// Android: the keyguard shows at the start.
    public var locked: Bool = false
    /// Android: the permissions granted (all unless the file denies some).
    public var permissions: Set<AndroidPermission> = Set(AndroidPermission.allCases)
    /// Android: errors FCM answers for this phone's token from the start, in order.
    public var fcmFaults: [FCMFault] = []
    /// Android: the call UI the app shows calls with.
    public var callUI: AndroidCallUI = .connectionService
    /// On a cluster, the node the phone's connections go to while it runs (`"node"`); nil for the round robin
    /// over the devices in file order (the first on node 0).
    public var node: Int?

    /// Creates a device; the properties of the same names say what each holds.
    public init(
        id: String, user: String, platform: Platform = .ios, app: AppState = .foreground, phoneOn: Bool = true,
        behaviour: Behaviour = .ignore, loggedIn: Bool = true, pushDelay: TimeInterval = 0
    ) {
        self.id = id
        self.user = user
        self.platform = platform
        self.app = app
        self.phoneOn = phoneOn
        self.behaviour = behaviour
        self.loggedIn = loggedIn
        self.pushDelay = pushDelay
    }
}

extension ScenarioDevice {
    /// The Android SDK's call UIs (`CallUiKind`, docs/android-integration.md "Two call UIs"), as `call_ui` names them.
    public enum AndroidCallUI: String, CaseIterable, Sendable {
        /// The self-managed `ConnectionService` (the SDK's default).
        case connectionService = "connection_service"
        /// Jetpack Core-Telecom.
        case coreTelecom = "core_telecom"
    }
}
