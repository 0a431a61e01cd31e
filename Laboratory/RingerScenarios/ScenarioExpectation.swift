public import Foundation
public import RingerWire

/// What must have happened by the end of a scenario. Every field is optional: an absent field is
/// not checked. Double optionals (`String??`) tell "not checked" (nil) from "must be none" (`.some(nil)`).
public struct ScenarioExpectation: Sendable, Equatable {
    /// The outcome of one call.
    public struct Call: Sendable, Equatable {
        /// The call's final server state.
        public var state: CallState?
        /// Who ended it (`ended_by`); `.some(nil)` when nobody did (timeout, failure).
        public var endedBy: String??
        /// The `failure_reason` the server gave; `.some(nil)` when it must give none.
        public var failureReason: String??
        /// The `end_reason` of a call the server ended itself; `.some(nil)` when it must give none.
        public var endReason: SystemEndReason??
        /// The device that answered must be one of these; nil inside means no device answered.
        public var acceptedDevice: [String?]?
        /// Whether the call rang its callee as a waiting call (`waiting`: the server's `waiting`, false when absent).
        public var waiting: Bool?
        /// What each named device did with the call.
        public var devices: [String: CallDevice] = [:]
        /// A group call's legs: each named callee's leg state, as the caller reads the call (`legs` in the file).
        public var legs: [String: LegState]?
        /// Alternatives when a race decides the outcome: at least one must match, besides the fields above.
        public var oneOf: [Call] = []

        /// Creates an expectation; nil checks nothing.
        public init(
            state: CallState? = nil, endedBy: String?? = nil, failureReason: String?? = nil,
            acceptedDevice: [String?]? = nil, devices: [String: CallDevice] = [:], oneOf: [Call] = []
        ) {
            self.state = state
            self.endedBy = endedBy
            self.failureReason = failureReason
            self.acceptedDevice = acceptedDevice
            self.devices = devices
            self.oneOf = oneOf
        }
    }

    /// What one device did with one call.
    public struct CallDevice: Sendable, Equatable {
        /// CallKit showed it as a ringing incoming call.
        public var rang: Bool?
        /// A VoIP push for it launched the killed app.
        public var woken: Bool?
        /// What became of the VoIP push for it on this phone: a ``CallCoordinator/PushDisposition`` in
        /// snake case (`ringing`, `already_ended`); nil inside when no push reached PushKit.
        public var push: String??
        /// The user tapped Answer.
        public var answered: Bool?
        /// The app received a media session for it (the server confirmed the answer, or the callee answered).
        public var media: Bool?
        /// The native end reason (`CXCallEndedReason`) must be one of these; nil inside means the native
        /// call did not end for a remote reason (still on, ended by this device's user, or never shown).
        public var endReason: [CallEndReason?]?
        /// A ringing push (VoIP push or FCM message) for it reached the app (PushKit, `onMessageReceived`).
        public var delivered: Bool?
        /// Android: how the incoming call showed (`in_app`, `full_screen`, `heads_up`); nil inside: it never rang.
        public var shown: String??
        /// Android: the connection's `DisconnectCause` code must be one of these (`ANSWERED_ELSEWHERE`, `LOCAL`,
        /// …); nil inside: no connection ended.
        public var disconnectCause: [String?]?
        /// Android: what FCM did with the call's ringing message (`delivered`, `not_delivered`, `expired`,
        /// `stored`, `collapsed`, `discarded`); nil inside: FCM accepted none.
        public var ringMessage: String??
        /// The server's record of the ringing push to this device; nil inside: none was sent.
        public var pushOutcome: PushOutcome??
        /// Scenario seconds: the native call stopped ringing at most this long after the server's call was
        /// answered or ended (another device's answer must stop this one at once).
        public var stoppedWithin: TimeInterval?
        /// The app heard the call held at some time (`was_held`): a cellular call's "Hold & Accept", the user's Hold.
        public var wasHeld: Bool?
        /// The call was held when the scenario ended, as the app last heard it (`held`).
        public var held: Bool?
        /// The call was muted when the scenario ended, as the app last heard it (`muted`).
        public var muted: Bool?
        /// The keypad tones the app's media was told to play on the call, in order (`tones`).
        public var tones: String?

        /// Creates an expectation; nil checks nothing.
        public init(
            rang: Bool? = nil, woken: Bool? = nil, push: String?? = nil, answered: Bool? = nil,
            media: Bool? = nil, endReason: [CallEndReason?]? = nil
        ) {
            self.rang = rang
            self.woken = woken
            self.push = push
            self.answered = answered
            self.media = media
            self.endReason = endReason
        }
    }

    /// The outcome the server recorded for a ringing push (`GET /v1/calls/{id}` `pushes`); nil fields are
    /// not checked.
    public struct PushOutcome: Sendable, Equatable {
        /// The provider's HTTP status; `.some(nil)`: no answer came (or the deadline passed before sending).
        public var status: Int??
        /// The provider's reason or error code (`UNAVAILABLE`, `BadDeviceToken`); `.some(nil)`: none.
        public var reason: String??
        /// Requests it took.
        public var attempts: Int?

        /// Creates an expectation; nil checks nothing.
        public init(status: Int?? = nil, reason: String?? = nil, attempts: Int? = nil) {
            self.status = status
            self.reason = reason
            self.attempts = attempts
        }
    }

    /// What one device saw over the whole scenario.
    public struct Device: Sendable, Equatable {
        /// The event types its WebSocket delivered, exactly, in order.
        public var events: [EventType]?
        /// Event types that must appear in this order, others allowed between them.
        public var eventsInOrder: [EventType]?
        /// Whether the server accepted the device's registration (`registered`) or refused it.
        public var registered: Bool?
        /// The titles of the notifications the phone showed, exactly, in order (a missed call's, say).
        public var notifications: [String]?
        /// Whether the server no longer holds the device's push token at the end (it forgot a token the
        /// provider reported gone: APNs 410, FCM `UNREGISTERED`).
        public var tokenRemoved: Bool?

        /// Creates an expectation; nil checks nothing.
        public init(
            events: [EventType]? = nil, eventsInOrder: [EventType]? = nil, registered: Bool? = nil,
            notifications: [String]? = nil, tokenRemoved: Bool? = nil
        ) {
            self.events = events
            self.eventsInOrder = eventsInOrder
            self.registered = registered
            self.notifications = notifications
            self.tokenRemoved = tokenRemoved
        }
    }

    /// Per call label.
    public var calls: [String: Call] = [:]
    /// Per device id.
    public var devices: [String: Device] = [:]
    /// How many times iOS killed an app for a VoIP push it did not report to CallKit (0 unless stated).
    public var appsKilled: Int = 0

    /// Creates an expectation.
    /// - Parameters:
    ///   - calls: per call label.
    ///   - devices: per device id.
    ///   - appsKilled: apps iOS may kill for an unreported VoIP push (normally 0).
    public init(calls: [String: Call] = [:], devices: [String: Device] = [:], appsKilled: Int = 0) {
        self.calls = calls
        self.devices = devices
        self.appsKilled = appsKilled
    }
}
