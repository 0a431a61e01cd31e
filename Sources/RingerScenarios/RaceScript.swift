public import Foundation

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
        /// Phone switched off: APNs holds its pushes.
        case off
    }

    /// One of the callee's phones.
    public struct Device: Sendable, Equatable {
        /// The device id (`bob-1` …).
        public var id: String
        /// How it is when the call is placed.
        public var start: Start
        /// Scenario seconds APNs takes to hand any push (VoIP or notice) to this phone.
        public var pushDelay: TimeInterval

        /// Creates a device.
        /// - Parameters:
        ///   - id: the device id.
        ///   - start: how it is when the call is placed.
        ///   - pushDelay: scenario seconds pushes take to reach it.
        public init(id: String, start: Start, pushDelay: TimeInterval) {
            self.id = id
            self.start = start
            self.pushDelay = pushDelay
        }
    }

    /// The seed the script came from.
    public var seed: UInt64
    /// Scenario seconds the call rings before the server ends it `unanswered`.
    public var ringTimeout: TimeInterval
    /// The callee's devices (1 to 3).
    public var devices: [Device]
    /// The actions, in time order.
    public var steps: [RaceStep]
    /// Scenario seconds at which the caller hangs up if the server's call is still up (past the deadline
    /// and the device's grace), so an answered call ends too.
    public var finalHangUpAt: TimeInterval

    /// Creates a script (``generate(seed:)`` makes them from a seed).
    /// - Parameters:
    ///   - seed: the seed it came from.
    ///   - ringTimeout: scenario seconds the call rings.
    ///   - devices: the callee's phones.
    ///   - steps: the actions, in time order.
    ///   - finalHangUpAt: when the caller hangs up if the call is still up.
    public init(seed: UInt64, ringTimeout: TimeInterval, devices: [Device], steps: [RaceStep],
                finalHangUpAt: TimeInterval) {
        self.seed = seed
        self.ringTimeout = ringTimeout
        self.devices = devices
        self.steps = steps
        self.finalHangUpAt = finalHangUpAt
    }

    /// True when ``generate(seed:)`` makes this script from its seed, so `ringer explore --seed` replays it;
    /// false for a hand-made one.
    public var isGenerated: Bool { self == Self.generate(seed: seed) }

    /// The script in words, one line each: the devices, then the steps.
    public var lines: [String] {
        var lines = ["seed \(seed): ring timeout \(Self.seconds(ringTimeout)), \(devices.count) callee device(s)"]
        for device in devices {
            lines.append("  \(device.id): starts \(device.start.rawValue), pushes take \(Self.seconds(device.pushDelay))")
        }
        lines.append(String(format: "%7.2f s", 0.0) + "  caller: calls bob")
        lines += steps.map(\.summary)
        lines.append(RaceStep(at: finalHangUpAt, device: nil, action: .callerHangsUp).summary + " (if the call is up)")
        return lines
    }

    static func seconds(_ value: TimeInterval) -> String { String(format: "%.2f s", value) }
}
