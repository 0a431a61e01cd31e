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
        addNodeFailures(to: &script, seed: seed, nodes: nodes)
        return script
    }

    /// On `nodes` > 1: sets the script's node count and adds its node failures, from a second stream of the seed.
    private static func addNodeFailures(to script: inout RaceScript, seed: UInt64, nodes: Int) {
        guard nodes > 1 else { return }
        script.nodes = nodes
        // A second stream: the phones' script above stays what it is for one node.
        var random = SplitMix64(seed: seed ^ 0x4E4F_4445_4641_494C)
        let ring = script.ringTimeout
        var steps = script.steps
        if random.chance(0.7) {
            // Never empty: the first callee phone is on node-1.
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
    }

    /// The phones' part of a script, for one node.
    private static func generatePhones(seed: UInt64) -> RaceScript {
        var random = SplitMix64(seed: seed)
        let ring = explorationRingTimeout
        let count = random.int(in: 1...3)
        let devices = (1...count).map { drawDevice(id: "bob-\($0)", user: "bob", ring: ring, &random) }
        var steps = switchOns(devices, from: 0, ring: ring, &random)
        let actions = random.weighted([(0, 0.10), (1, 0.20), (2, 0.25), (3, 0.20), (4, 0.15), (5, 0.10)])
        for _ in 0..<actions {
            steps += drawAction(devices, secondChance: 0.35, ring: ring, &random)
        }
        return RaceScript(
            seed: seed, ringTimeout: ring, devices: devices, steps: inTimeOrder(steps),
            finalHangUpAt: ring + deviceGrace + 4)
    }

    /// The script of one group run, decided by `seed` alone (a stream of its own: group seed 7 is not 1:1 seed 7):
    /// Alice rings 2–4 of bob, carol, dave and erin in one call, `first_answer` (60 %) or `all_may_join`, each callee with 1 or
    /// 2 phones drawn as in ``generate(seed:)``. In 35 % of runs the last callee is not rung at first: the caller
    /// rings them in (ring-more) 0.5–6 s later, so their leg has a later deadline of its own. Then 1–6 actions as in a
    /// 1:1 run on any callee's phones (a callee rung later acts only after being rung), where an answer or a decline
    /// is followed half the time by an answer (70 %) or a decline on another phone, often another callee's, within
    /// 0.4 s: two callees answering at once is the race `first_answer` must settle. On `nodes` > 1 the node failures
    /// of ``generate(seed:nodes:)`` are added.
    /// - Parameters:
    ///   - seed: any value.
    ///   - nodes: server nodes, 1 or more.
    /// - Returns: the script.
    public static func generateGroup(seed: UInt64, nodes: Int = 1) -> RaceScript {
        var random = SplitMix64(seed: seed ^ 0x4752_4F55_5052_494E)
        let ring = explorationRingTimeout
        let users = Array(["bob", "carol", "dave", "erin"].prefix(random.int(in: 2...4)))
        let policy: AnswerPolicy = random.chance(0.6) ? .firstAnswer : .allMayJoin
        let ringMoreAt: TimeInterval? = random.chance(0.35) ? rounded(random.double(in: 0.5...6)) : nil
        var devices: [Device] = []
        for user in users {
            for index in 1...random.weighted([(1, 0.6), (2, 0.4)]) {
                devices.append(drawDevice(id: "\(user)-\(index)", user: user, ring: ring, &random))
            }
        }
        // When each callee is rung: at once, or the last one by the ring-more.
        var rungFrom = Dictionary(uniqueKeysWithValues: users.map { ($0, TimeInterval(0)) })
        var steps: [RaceStep] = []
        let late = ringMoreAt.map { _ in users[users.count - 1] }
        if let ringMoreAt, let late {
            rungFrom[late] = ringMoreAt
            steps.append(RaceStep(at: ringMoreAt, device: nil, action: .ringMore, callee: late))
        }
        for user in users {
            steps += switchOns(devices.filter { $0.user == user }, from: rungFrom[user] ?? 0, ring: ring, &random)
        }
        for _ in 0..<random.weighted([(1, 0.10), (2, 0.20), (3, 0.25), (4, 0.20), (5, 0.15), (6, 0.10)]) {
            let device = devices[random.int(in: 0...(devices.count - 1))]
            steps += drawAction(
                devices, actor: device, from: rungFrom[device.user] ?? 0, rungFrom: rungFrom, secondChance: 0.5,
                ring: ring, &random)
        }
        let lastDeadline = ring + (ringMoreAt ?? 0)
        var script = RaceScript(
            seed: seed, ringTimeout: ring, devices: devices, steps: inTimeOrder(steps),
            finalHangUpAt: lastDeadline + deviceGrace + 4,
            group: Group(callees: users.filter { $0 != late }, policy: policy))
        addNodeFailures(to: &script, seed: seed, nodes: nodes)
        return script
    }

    /// One callee phone: an Android phone (40 %) or an iPhone, its start, push delay, Doze and FCM fault.
    private static func drawDevice(
        id: String, user: String, ring: TimeInterval, _ random: inout SplitMix64
    ) -> Device {
        let android = random.chance(0.4)
        let start =
            android
            ? random.weighted([
                (Start.foreground, 0.35), (.background, 0.20), (.swipedAway, 0.25), (.forceStopped, 0.10),
                (.off, 0.10),
            ])
            : random.weighted([(Start.foreground, 0.40), (.background, 0.25), (.killed, 0.25), (.off, 0.10)])
        let delay = random.chance(0.5) ? 0 : rounded(random.double(in: 0...(ring * 1.3)))
        var device = Device(
            id: id, start: start, pushDelay: delay, platform: android ? .android : .ios, user: user)
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
        return device
    }

    /// Phones that start off are often switched on (70 %), `from` + 0.5 s to the deadline + 2 s.
    private static func switchOns(
        _ devices: [Device], from: TimeInterval, ring: TimeInterval, _ random: inout SplitMix64
    ) -> [RaceStep] {
        devices.filter { $0.start == .off }.compactMap { device in
            guard random.chance(0.7) else { return nil }
            return RaceStep(
                at: rounded(from + random.double(in: 0.5...(ring + 2))), device: device.id, action: .phoneOn)
        }
    }

    /// One drawn action on a random phone (or `actor`), at `from` + 0.2 s to the deadline + 3 s, and what may follow
    /// it: a hang-up after an answer (40 %), and with `secondChance` another phone's answer or decline within 0.4 s.
    /// `rungFrom`: when each callee of a group run is rung; empty in a 1:1 run, whose second phone is drawn as it
    /// always was (so 1:1 seeds keep their scripts).
    private static func drawAction(
        _ devices: [Device], actor: Device? = nil, from: TimeInterval = 0, rungFrom: [String: TimeInterval] = [:],
        secondChance: Double, ring: TimeInterval, _ random: inout SplitMix64
    ) -> [RaceStep] {
        let count = devices.count
        let drawn = random.weighted([
            (RaceStep.Action.answer, 0.24), (.decline, 0.12), (.hangUp, 0.08), (.callerHangsUp, 0.08),
            (.killApp, 0.10), (.foreground, 0.14), (.background, 0.10), (.phoneOff, 0.06), (.phoneOn, 0.08),
            (.forceStop, 0.03), (.doze, 0.04), (.wake, 0.03),
        ])
        let at = rounded(from + random.double(in: 0.2...(ring + 3)))
        let index =
            actor.flatMap { actor in devices.firstIndex { $0.id == actor.id } } ?? random.int(in: 0...(count - 1))
        // Android's own actions on an iPhone: the user swipes the app away instead.
        let action = devices[index].platform == .ios && [.forceStop, .doze, .wake].contains(drawn) ? .killApp : drawn
        var steps = [RaceStep(at: at, device: action == .callerHangsUp ? nil : devices[index].id, action: action)]
        // An answered call hung up before the deadline, so late pushes and sleeping devices meet a call
        // that is already over.
        if action == .answer, random.chance(0.4) {
            let hangUp = min(rounded(at + random.double(in: 0.5...4)), from + ring + 3)
            let byCaller = random.chance(0.5)
            steps.append(
                RaceStep(
                    at: hangUp, device: byCaller ? nil : devices[index].id,
                    action: byCaller ? .callerHangsUp : .hangUp))
        }
        // A second user acting on another device at nearly the same moment: the races that matter most.
        if action == .answer || action == .decline, count > 1, random.chance(secondChance) {
            let other: String?
            if rungFrom.isEmpty {
                other = devices[(index + random.int(in: 1...(count - 1))) % count].id
            } else {
                // Only a phone whose user is rung by then: one rung in later has nothing to answer yet.
                let candidates = devices.filter { $0.id != devices[index].id && (rungFrom[$0.user] ?? 0) <= at }
                other = candidates.isEmpty ? nil : candidates[random.int(in: 0...(candidates.count - 1))].id
            }
            let second: RaceStep.Action = random.chance(0.7) ? .answer : .decline
            let secondAt = rounded(at + random.double(in: 0...0.4))
            if let other { steps.append(RaceStep(at: secondAt, device: other, action: second)) }
        }
        return steps
    }

    /// The steps by time, stable: steps at the same time keep the order they were drawn in.
    private static func inTimeOrder(_ steps: [RaceStep]) -> [RaceStep] {
        steps.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    /// Times are kept to 0.05 s so scripts read well.
    private static func rounded(_ seconds: TimeInterval) -> TimeInterval { (seconds * 20).rounded() / 20 }
}
