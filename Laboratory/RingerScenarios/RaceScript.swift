public import Foundation
public import RingerWire

/// Everything one race exploration run does, decided by its seed alone (``generate(seed:)``): how
/// many devices the callee has and how each starts, how slowly pushes reach each one, and a timed
/// list of actions spread around the ring deadline. The caller places the call at time 0 and hangs
/// up at ``finalHangUpAt`` if the server's call is still up, so every run ends with a final call.
public struct RaceScript: Sendable, Equatable {
    /// How a callee device is when the call is placed.
    public enum Start: String, Sendable, Equatable, CaseIterable {
        /// App on screen, event stream open.
        case foreground
        /// App suspended: no socket; pushes still arrive.
        case background
        /// App not running: only a VoIP push wakes it.
        case killed
        /// Phone switched off: APNs or FCM holds its pushes.
        case off
        /// Android: swiped out of Recents; a high-priority FCM message starts it again.
        case swipedAway = "swiped_away"
        /// Android: force-stopped; nothing reaches it until the user opens it.
        case forceStopped = "force_stopped"
    }

    /// An error FCM answers an Android phone's first `messages:send` with (Google: FCM HTTP v1 `ErrorCode`).
    public struct FCMFault: Sendable, Equatable {
        /// The error code: `UNAVAILABLE`, `INTERNAL`, `QUOTA_EXCEEDED` or `UNREGISTERED`.
        public var code: String
        /// `Retry-After` seconds (server clock), if any.
        public var retryAfter: Int?

        /// Creates a fault.
        public init(code: String, retryAfter: Int? = nil) {
            self.code = code
            self.retryAfter = retryAfter
        }
    }

    /// One of a callee's phones.
    public struct Device: Sendable, Equatable {
        /// The device id (`bob-1`, `carol-2` …).
        public var id: String
        /// Whose phone it is: `bob` in a 1:1 run; in a group run (``group``) one of the callees.
        public var user: String
        /// How it is when the call is placed.
        public var start: Start
        /// Scenario seconds APNs takes to hand any push (VoIP, alert or background) to this phone; on Android, FCM takes
        /// to answer (and so deliver) each message.
        public var pushDelay: TimeInterval
        /// `ios` (a simulated iPhone) or `android` (a simulated Android phone).
        public var platform: Platform
        /// Android: in Doze when the call is placed.
        public var dozing: Bool
        /// Android: FCM's answer to the first message for the phone, if it is an error.
        public var fcmFault: FCMFault?

        /// Creates a device.
        /// - Parameters:
        ///   - id: the device id.
        ///   - start: how it is when the call is placed (`swipedAway` and `forceStopped` only on Android,
        ///     `killed` only on iOS).
        ///   - pushDelay: scenario seconds pushes take to reach it.
        ///   - platform: iPhone (default) or Android phone.
        ///   - dozing: Android: in Doze at the start.
        ///   - fcmFault: Android: FCM's error for its first message.
        ///   - user: whose phone it is (`bob` unless a group run says otherwise).
        public init(
            id: String, start: Start, pushDelay: TimeInterval, platform: Platform = .ios, dozing: Bool = false,
            fcmFault: FCMFault? = nil, user: String = "bob"
        ) {
            self.id = id
            self.user = user
            self.start = start
            self.pushDelay = pushDelay
            self.platform = platform
            self.dozing = dozing
            self.fcmFault = fcmFault
        }
    }

    /// A group call: who is rung when the call is placed, and who wins (decision 0007).
    public struct Group: Sendable, Equatable {
        /// The callees rung when the call is placed, in order (the caller's `callees`).
        public var callees: [String]
        /// `first_answer` (one callee wins, the other legs stop) or `all_may_join` (everyone may join).
        public var policy: AnswerPolicy

        /// Creates a group.
        /// - Parameters:
        ///   - callees: the callees rung at once.
        ///   - policy: the answer policy.
        public init(callees: [String], policy: AnswerPolicy) {
            self.callees = callees
            self.policy = policy
        }
    }

    /// The seed the script came from.
    public var seed: UInt64
    /// Scenario seconds the call rings before the server ends it `unanswered`.
    public var ringTimeout: TimeInterval
    /// The callees' devices: 1 to 3 of bob's in a 1:1 run, 1 or 2 per callee in a group run.
    public var devices: [Device]
    /// Nil for a 1:1 call to bob; else the group call the caller places (``generateGroup(seed:nodes:)``), more
    /// callees joining by ``RaceStep/Action/ringMore`` steps.
    public var group: Group?
    /// True when a callee device is an Android phone: the run needs the Android phone host (``AndroidPhoneHost``,
    /// built by `make -C android lab`).
    public var hasAndroidPhones: Bool { devices.contains { $0.platform == .android } }
    /// The actions, in time order.
    public var steps: [RaceStep]
    /// Scenario seconds at which the caller hangs up if the server's call is still up (past the deadline
    /// and the device's grace), so an answered call ends too.
    public var finalHangUpAt: TimeInterval
    /// Server nodes the run needs: 1 for one server, more for a cluster (``generate(seed:nodes:)``).
    public var nodes: Int

    /// Creates a script (``generate(seed:)`` makes them from a seed).
    /// - Parameters:
    ///   - seed: the seed it came from.
    ///   - ringTimeout: scenario seconds the call rings.
    ///   - devices: the callee's phones.
    ///   - steps: the actions, in time order.
    ///   - finalHangUpAt: when the caller hangs up if the call is still up.
    ///   - nodes: server nodes the run needs (1: one server).
    ///   - group: the group call to place; nil (default) for a 1:1 call to bob.
    public init(
        seed: UInt64, ringTimeout: TimeInterval, devices: [Device], steps: [RaceStep],
        finalHangUpAt: TimeInterval, nodes: Int = 1, group: Group? = nil
    ) {
        self.seed = seed
        self.ringTimeout = ringTimeout
        self.devices = devices
        self.steps = steps
        self.finalHangUpAt = finalHangUpAt
        self.nodes = nodes
        self.group = group
    }

    /// Every callee of the run, in the order rung: bob alone in a 1:1 run.
    public var callees: [String] {
        guard let group else { return ["bob"] }
        return group.callees + steps.compactMap { $0.action == .ringMore ? $0.callee : nil }
    }

    /// The node of each callee phone, index = device: the stack places phones on the nodes in turn as they are
    /// made (``LocalStack``), the caller's first on node-0, so the phone at index `i` is on node `(i + 1) % nodes`.
    public var calleeNodes: [Int] { devices.indices.map { ($0 + 1) % max(1, nodes) } }

    /// True when ``generate(seed:nodes:)`` (or, for a group run, ``generateGroup(seed:nodes:)``) makes this script from
    /// its seed and node count, so `ringer-lab explore --seed` (with `--group`, `--nodes`) replays it; false for a
    /// hand-made one.
    public var isGenerated: Bool {
        self == (group == nil ? Self.generate(seed: seed, nodes: nodes) : Self.generateGroup(seed: seed, nodes: nodes))
    }

    /// The script in words, one line each: the devices, then the steps.
    public var lines: [String] {
        var lines = [
            "seed \(seed): ring timeout \(Self.seconds(ringTimeout)), \(devices.count) callee device(s)"
                + (group.map { ", a group call (\($0.policy.rawValue)) to \(callees.joined(separator: ", "))" } ?? "")
                + (nodes > 1
                    ? ", \(nodes) server nodes (phones on them in turn: the caller's on node-0, "
                        + "\(devices.first?.id ?? "bob-1") on node-1…)" : "")
        ]
        for device in devices {
            var line =
                "  \(device.id): \(device.platform == .android ? "Android" : "iPhone"), starts \(device.start.rawValue)"
            if device.dozing { line += ", dozing" }
            line += ", pushes take \(Self.seconds(device.pushDelay))"
            if let fault = device.fcmFault {
                line +=
                    ", FCM answers \(fault.code)" + (fault.retryAfter.map { " (Retry-After \($0) s)" } ?? "") + " once"
            }
            lines.append(line)
        }
        let placed =
            group.map { "calls \($0.callees.joined(separator: ", ")) (\($0.policy.rawValue))" } ?? "calls bob"
        lines.append(String(format: "%7.2f s", 0.0) + "  caller: \(placed)")
        lines += steps.map(\.summary)
        lines.append(RaceStep(at: finalHangUpAt, device: nil, action: .callerHangsUp).summary + " (if the call is up)")
        return lines
    }

    static func seconds(_ value: TimeInterval) -> String { String(format: "%.2f s", value) }
}
