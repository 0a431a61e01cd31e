public import Foundation
import RingerWire

extension RaceScript {
    /// Scenario seconds a call rings in exploration runs: short, so a run takes well under a second.
    public static let explorationRingTimeout: TimeInterval = 8

    /// Seconds past the deadline before a device ends a still-ringing call on its own
    /// (`CallCoordinator.deadlineGrace`, docs/call-lifecycle.md).
    public static let deviceGrace: TimeInterval = 2

    /// The script of one run, decided by `seed` alone: equal seeds give equal scripts.
    ///
    /// 1–3 callee devices, each an Android phone (40 %) or an iPhone. An iPhone starts in the foreground
    /// (40 %), background (25 %), killed (25 %) or switched off (10 %); an Android phone in the foreground
    /// (35 %), background (20 %), swiped away (25 %), force-stopped (10 %) or off (10 %), a quarter of those on
    /// dozing, and a quarter of all get an FCM error for their first message (`UNAVAILABLE` or
    /// `QUOTA_EXCEEDED` with a Retry-After, `INTERNAL`, `UNREGISTERED`); half of the devices get pushes late (0 to 1.3 × the ring timeout); 0–5 actions at
    /// times spread from just after the call to 3 s past the deadline, sometimes in bursts on two
    /// devices within 0.4 s (two answers, an answer and a decline…); an answer is often followed by a
    /// hang-up 0.5–4 s later (by the callee or the caller); a phone that starts off is often switched
    /// on. No action at all is a plain ring-out.
    /// - Parameter seed: any value.
    /// - Returns: the script.
    public static func generate(seed: UInt64) -> RaceScript { generate(seed: seed, nodes: 1) }

    /// The script of one run on `nodes` server nodes: for 1, ``generate(seed:)``; for more, the same devices and
    /// steps plus node failures drawn from a second stream of the seed, so a seed plays the same callers' and
    /// callees' actions whatever the node count. In 70 % of runs a node is killed (`SIGKILL`) while the call
    /// rings or just after: half of those node-0, which placed the call and holds the caller's phone, the rest
    /// a node of the callee's phones. Half of the killed nodes start again 1–6 s later.
    /// - Parameters:
    ///   - seed: any value.
    ///   - nodes: server nodes, 1 or more.
    /// - Returns: the script.
    public static func generate(seed: UInt64, nodes: Int) -> RaceScript {
        var script = generatePhones(seed: seed)
        guard nodes > 1 else { return script }
        script.nodes = nodes
        // A second stream: the phones' script above stays what it is for one node.
        var random = SplitMix64(seed: seed ^ 0x4E4F_4445_4641_494C)
        let ring = script.ringTimeout
        var steps = script.steps
        if random.chance(0.7) {
            // Never empty: bob's first phone is on node-1.
            let callees = Set(script.calleeNodes).subtracting([0]).sorted()
            let node = random.chance(0.5) ? 0 : callees[random.int(in: 0...(callees.count - 1))]
            let at = rounded(random.double(in: 0.2...(ring + 1)))
            steps.append(RaceStep(at: at, device: nil, action: .killNode, node: node))
            if random.chance(0.5) {
                steps.append(
                    RaceStep(at: rounded(at + random.double(in: 1...6)), device: nil, action: .startNode, node: node))
            }
        }
        script.steps = inTimeOrder(steps)
        return script
    }

    /// The phones' part of a script, for one node.
    private static func generatePhones(seed: UInt64) -> RaceScript {
        var random = SplitMix64(seed: seed)
        let ring = explorationRingTimeout
        let count = random.int(in: 1...3)
        var devices: [Device] = []
        for index in 1...count {
            let android = random.chance(0.4)
            let start =
                android
                ? random.weighted([
                    (Start.foreground, 0.35), (.background, 0.20), (.swipedAway, 0.25), (.forceStopped, 0.10),
                    (.off, 0.10),
                ])
                : random.weighted([(Start.foreground, 0.40), (.background, 0.25), (.killed, 0.25), (.off, 0.10)])
            let delay = random.chance(0.5) ? 0 : rounded(random.double(in: 0...(ring * 1.3)))
            var device = Device(id: "bob-\(index)", start: start, pushDelay: delay, platform: android ? .android : .ios)
            if android {
                device.dozing = start != .off && random.chance(0.25)
                if random.chance(0.25) {
                    device.fcmFault = random.weighted([
                        (FCMFault(code: "UNAVAILABLE", retryAfter: random.int(in: 1...3)), 0.35),
                        (FCMFault(code: "INTERNAL"), 0.25),
                        (FCMFault(code: "QUOTA_EXCEEDED", retryAfter: random.int(in: 1...20)), 0.25),
                        (FCMFault(code: "UNREGISTERED"), 0.15),
                    ])
                }
            }
            devices.append(device)
        }
        var steps: [RaceStep] = []
        for device in devices where device.start == .off && random.chance(0.7) {
            steps.append(
                RaceStep(at: rounded(random.double(in: 0.5...(ring + 2))), device: device.id, action: .phoneOn))
        }
        let actions = random.weighted([(0, 0.10), (1, 0.20), (2, 0.25), (3, 0.20), (4, 0.15), (5, 0.10)])
        for _ in 0..<actions {
            let drawn = random.weighted([
                (RaceStep.Action.answer, 0.24), (.decline, 0.12), (.hangUp, 0.08), (.callerHangsUp, 0.08),
                (.killApp, 0.10), (.foreground, 0.14), (.background, 0.10), (.phoneOff, 0.06), (.phoneOn, 0.08),
                (.forceStop, 0.03), (.doze, 0.04), (.wake, 0.03),
            ])
            let at = rounded(random.double(in: 0.2...(ring + 3)))
            let index = random.int(in: 0...(count - 1))
            // Android's own actions on an iPhone: the user swipes the app away instead.
            let action =
                devices[index].platform == .ios && [.forceStop, .doze, .wake].contains(drawn) ? .killApp : drawn
            steps.append(RaceStep(at: at, device: action == .callerHangsUp ? nil : devices[index].id, action: action))
            // An answered call hung up before the deadline, so late pushes and sleeping devices meet a call
            // that is already over.
            if action == .answer, random.chance(0.4) {
                let hangUp = min(rounded(at + random.double(in: 0.5...4)), ring + 3)
                let byCaller = random.chance(0.5)
                steps.append(
                    RaceStep(
                        at: hangUp, device: byCaller ? nil : devices[index].id,
                        action: byCaller ? .callerHangsUp : .hangUp))
            }
            // A second user acting on another device at nearly the same moment: the races that matter most.
            if action == .answer || action == .decline, count > 1, random.chance(0.35) {
                let other = devices[(index + random.int(in: 1...(count - 1))) % count].id
                let second: RaceStep.Action = random.chance(0.7) ? .answer : .decline
                steps.append(RaceStep(at: rounded(at + random.double(in: 0...0.4)), device: other, action: second))
            }
        }
        let ordered = inTimeOrder(steps)
        return RaceScript(
            seed: seed, ringTimeout: ring, devices: devices, steps: ordered,
            finalHangUpAt: ring + deviceGrace + 4)
    }

    /// The steps by time, stable: steps at the same time keep the order they were drawn in.
    private static func inTimeOrder(_ steps: [RaceStep]) -> [RaceStep] {
        steps.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    /// Times are kept to 0.05 s so scripts read well.
    private static func rounded(_ seconds: TimeInterval) -> TimeInterval { (seconds * 20).rounded() / 20 }
}
