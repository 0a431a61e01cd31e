public import Foundation
public import RingerSandbox
public import RingerWire

/// What one race exploration run observed, as plain data: the server's call at the end, and for every
/// phone its CallKit history or Android events, what the phone reported, its power switches and the VoIP pushes
/// APNs or the ringing messages FCM accepted for it. ``RaceInvariants`` judges it; tests build records by hand to
/// prove the judge fails.
///
/// All dates are on the run's scenario clock.
public struct RaceRecord: Sendable {
    /// Something a phone reported, and when.
    public struct Observed: Sendable {
        /// When the phone reported it.
        public var at: Date
        /// What happened.
        public var observation: SimulatedIPhone.Observation

        /// Creates an entry.
        /// - Parameters:
        ///   - at: when the phone reported it.
        ///   - observation: what happened.
        public init(at: Date, _ observation: SimulatedIPhone.Observation) {
            self.at = at
            self.observation = observation
        }
    }

    /// Something an Android phone in the ``AndroidPhoneHost`` reported: one of its events
    /// (docs/android-phone-host.md, "Events"), and when it happened on the phone.
    public struct AndroidObserved: Sendable {
        /// When the host wrote it (its `t_ms`, on the run's scenario clock, which the host shares).
        public var at: Date
        /// The event.
        public var event: AndroidHostEvent

        /// Creates an entry.
        /// - Parameters:
        ///   - at: when the host wrote it.
        ///   - event: the event.
        public init(at: Date, _ event: AndroidHostEvent) {
            self.at = at
            self.event = event
        }
    }

    /// A ringing FCM message FCM accepted for an Android phone, and its fate when the run ended.
    public struct FCMMessage: Sendable, Equatable {
        /// Its resource name.
        public var name: String
        /// When FCM accepted it (scenario clock).
        public var acceptedAt: Date
        /// When its `ttl` ran out.
        public var expiresAt: Date
        /// What FCM had done with it when the run ended.
        public var fate: FCMSandboxDeliveryState?

        /// Creates an entry.
        /// - Parameters:
        ///   - name: the message's name.
        ///   - acceptedAt: when FCM accepted it.
        ///   - expiresAt: when its `ttl` ran out.
        ///   - fate: its delivery state at the end.
        public init(name: String, acceptedAt: Date, expiresAt: Date, fate: FCMSandboxDeliveryState?) {
            self.name = name
            self.acceptedAt = acceptedAt
            self.expiresAt = expiresAt
            self.fate = fate
        }
    }

    /// A phone switched on or off.
    public struct Power: Sendable, Equatable {
        /// When.
        public var at: Date
        /// True when switched on.
        public var on: Bool

        /// Creates an entry.
        /// - Parameters:
        ///   - at: when.
        ///   - on: true when switched on.
        public init(at: Date, on: Bool) {
            self.at = at
            self.on = on
        }
    }

    /// A VoIP push APNs accepted for a phone.
    public struct Push: Sendable, Equatable {
        /// Its `apns-id`.
        public var apnsID: String
        /// When APNs (the sandbox) accepted it, on the scenario clock.
        public var sentAt: Date

        /// Creates an entry.
        /// - Parameters:
        ///   - apnsID: the push's `apns-id`.
        ///   - sentAt: when APNs accepted it.
        public init(apnsID: String, sentAt: Date) {
            self.apnsID = apnsID
            self.sentAt = sentAt
        }
    }

    /// One phone of the run.
    public struct Device: Sendable {
        /// The device id.
        public var id: String
        /// True for the caller's phone, false for the callee's.
        public var isCaller: Bool
        /// Every change of its native call UI, in the order CallKit applied them.
        public var callKit: [SimulatedCallKit.Moment]
        /// What the phone reported, in time order.
        public var observed: [Observed]
        /// Power switches in time order (a phone is on unless one says otherwise).
        public var power: [Power]
        /// VoIP pushes APNs accepted for it.
        public var voipPushes: [Push]
        /// When its user ended the call without the native UI (the caller's cancels and hang-ups).
        public var hangUps: [Date]
        /// Hang-ups the app made that the server had not acknowledged when the run ended.
        public var unacknowledgedHangUps: Int
        /// `ios` or `android`: an Android phone's native calls and reports are in ``androidObserved``; ``callKit``
        /// and ``observed`` stay empty.
        public var platform: Platform = .ios
        /// Android: its events in the order the host wrote them, from which its native calls and what reached its app
        /// are read.
        public var androidObserved: [AndroidObserved] = []
        /// Android: the ringing FCM messages FCM accepted for it.
        public var fcmMessages: [FCMMessage] = []
        /// A callee phone's user, whose reading of the call (``RaceRecord/views``) judges it; nil: the call's callee.
        public var user: String?

        /// Creates a device record; the properties of the same names say what each holds.
        /// - Parameters:
        ///   - id: the device id.
        ///   - isCaller: true for the caller's phone.
        ///   - callKit: its CallKit history.
        ///   - observed: what it reported.
        ///   - power: its power switches.
        ///   - voipPushes: VoIP pushes APNs accepted for it.
        ///   - hangUps: its user's hang-ups made without the native UI.
        ///   - unacknowledgedHangUps: hang-ups still waiting for the server at the end.
        public init(
            id: String, isCaller: Bool, callKit: [SimulatedCallKit.Moment] = [], observed: [Observed] = [],
            power: [Power] = [], voipPushes: [Push] = [], hangUps: [Date] = [], unacknowledgedHangUps: Int = 0
        ) {
            self.id = id
            self.isCaller = isCaller
            self.callKit = callKit
            self.observed = observed
            self.power = power
            self.voipPushes = voipPushes
            self.hangUps = hangUps
            self.unacknowledgedHangUps = unacknowledgedHangUps
        }
    }

    /// The call's id (lowercase UUID), also its CallKit UUID.
    public var callID: String
    /// The call as the server had it when the run ended; nil when it could not be read.
    public var call: Call?
    /// When the call was placed.
    public var origin: Date
    /// Seconds past the deadline before a device ends a still-ringing call on its own.
    public var deadlineGrace: TimeInterval
    /// Scenario seconds allowed for something a device does synchronously (end the native call when
    /// an event arrives) to show in the record: thread scheduling, not protocol.
    public var immediate: TimeInterval
    /// Scenario seconds allowed for a device's timer to fire or a request to come back.
    public var prompt: TimeInterval
    /// When the runner switched every phone on and brought every app to the foreground, so each
    /// device could learn how the call ended.
    public var settledAt: Date
    /// Every phone: the caller's and the callee's.
    public var devices: [Device]
    /// The call at the end as each callee read it (`GET /v1/calls/{id}` with their token), by user: in a group call
    /// their own leg (decision 0007 §1), in a 1:1 call the call itself. A callee missing here is judged by ``call``.
    public var views: [String: Call] = [:]

    /// Creates a record; the properties of the same names say what each holds.
    /// - Parameters:
    ///   - callID: the call's id.
    ///   - call: the server's call at the end.
    ///   - origin: when the call was placed.
    ///   - deadlineGrace: seconds past the deadline a device waits before ending on its own.
    ///   - immediate: scenario seconds allowed for synchronous work to show.
    ///   - prompt: scenario seconds allowed for a timer or a round trip.
    ///   - settledAt: when the settle step began.
    ///   - devices: every phone.
    public init(
        callID: String, call: Call?, origin: Date, deadlineGrace: TimeInterval, immediate: TimeInterval,
        prompt: TimeInterval, settledAt: Date, devices: [Device]
    ) {
        self.callID = callID
        self.call = call
        self.origin = origin
        self.deadlineGrace = deadlineGrace
        self.immediate = immediate
        self.prompt = prompt
        self.settledAt = settledAt
        self.devices = devices
    }

    /// True for a group call (one with legs).
    public var isGroup: Bool { call?.legs != nil }

    /// The call as `device`'s user reads it: the caller reads ``call``, a callee their entry in ``views``, else
    /// ``call``; nil when the call could not be read.
    public func view(of device: Device) -> Call? {
        guard !device.isCaller, let user = device.user ?? call?.callee.id else { return call }
        return views[user] ?? call
    }

    /// The phones of `user` (a callee).
    func devices(of user: String) -> [Device] {
        devices.filter { !$0.isCaller && ($0.user ?? call?.callee.id) == user }
    }

    /// Seconds from the call's placement to `date`, for messages: `3.25 s`.
    func time(_ date: Date) -> String { String(format: "%.2f s", date.timeIntervalSince(origin)) }
}
