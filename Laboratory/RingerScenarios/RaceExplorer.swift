public import Foundation
public import RingerSupport
import RingerSandbox

/// Seeded, reproducible race exploration: each seed becomes a ``RaceScript`` (callee iPhones and Android
/// phones in random states, FCM errors, slow pushes, answers, declines, cancels, app kills and relaunches, phones switched off and
/// on, at times spread around the ring deadline) played against the real server, the APNs and FCM
/// sandboxes, simulated iPhones running RingerKit and Android phones running the Kotlin SDK in the phone host (a JVM
/// the stack starts; `make -C android lab` builds it), all on loopback (``LocalStack``), on a scaled clock. After each
/// run ``RaceInvariants`` checks what every phone and the server did.
///
/// The script is exactly reproducible from its seed; the interleaving of network I/O, threads and
/// timers is not (it is real concurrency), so a seed replays the same situation, and usually the same
/// race, but not always the same order of events.
///
/// ```swift
/// let outcome = await RaceExplorer().run(seed: 7)
/// if !outcome.passed { print(outcome.report) }   // violations, script, `ringer-lab explore --seed 7`, trace
/// ```
/// Thread-safe; each run builds its own stack.
public struct RaceExplorer: Sendable {
    /// Real seconds per scenario second: 0.04 plays the 8 s ring of a run in 0.32 s.
    public var timeScale: Double
    /// Real seconds allowed for what a device does synchronously (an event ends the native call) to
    /// show in the record: thread scheduling on a busy machine.
    public var immediateTolerance: TimeInterval = 0.05
    /// Real seconds allowed for a device's timer to fire late or a request to come back.
    public var promptTolerance: TimeInterval = 0.15
    /// Real seconds the settle step waits at most for every phone to close the call.
    public var settleTimeout: TimeInterval = 3
    /// Real seconds the run keeps watching after it settled.
    public var holdTime: TimeInterval = 0.1
    /// Server and sandbox logs.
    public var logger: Logger
    /// Separate `ringer serve` processes on PostgreSQL and Redis instead of one in-process server; scripts from
    /// ``run(seed:)`` then kill and restart nodes (``RaceScript/generate(seed:nodes:)``). Nil: one server.
    public var cluster: LocalStack.Cluster?
    /// ``run(seed:)`` plays group calls (``RaceScript/generateGroup(seed:nodes:)``) instead of 1:1 calls to bob.
    public var group = false

    /// Creates an explorer.
    /// - Parameters:
    ///   - timeScale: real seconds per scenario second, greater than 0.
    ///   - logger: server and sandbox logs; silent by default.
    public init(timeScale: Double = 0.04, logger: Logger = .silent()) {
        self.timeScale = timeScale
        self.logger = logger
    }

    /// Plays the script of `seed` and checks the invariants.
    /// - Parameter seed: any value; ``RaceScript/generate(seed:nodes:)`` (``RaceScript/generateGroup(seed:nodes:)``
    ///   when ``group``) turns it into the script for the cluster's node count (1 without a cluster).
    /// - Returns: the outcome.
    public func run(seed: UInt64) async -> RaceOutcome {
        let nodes = cluster?.nodes ?? 1
        return await run(
            group ? RaceScript.generateGroup(seed: seed, nodes: nodes) : RaceScript.generate(seed: seed, nodes: nodes))
    }

    /// Plays `script` and checks the invariants.
    /// - Parameter script: what the run does.
    /// - Returns: the outcome.
    public func run(_ script: RaceScript) async -> RaceOutcome {
        let started = ContinuousClock.now
        let clock = ScenarioClock(scale: timeScale)
        let recorder = RaceRecorder(clock: clock)
        var options = LocalStack.Options()
        options.ringTimeout = script.ringTimeout
        options.clock = clock
        options.logger = logger
        options.observe = { [weak recorder] observation in recorder?.server(observation) }
        options.cluster = cluster
        let nodes = cluster?.nodes ?? 1
        let (violations, problems, trace) =
            script.nodes > nodes
            ? ([], ["the script needs \(script.nodes) server nodes and the run has \(nodes)"], [])
            : await play(script, options: options, clock: clock, recorder: recorder)
        let elapsed = started.duration(to: .now)
        return RaceOutcome(
            script: script, violations: violations, problems: problems, trace: trace, timeScale: timeScale,
            realSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Starts the stack, plays the script, checks the invariants and stops the stack.
    private func play(
        _ script: RaceScript, options: LocalStack.Options, clock: ScenarioClock,
        recorder: RaceRecorder
    ) async -> (violations: [RaceViolation], problems: [String], trace: [String]) {
        let stack: LocalStack
        do {
            stack = try await LocalStack.start(options)
        } catch {
            return ([], ["cannot start the local stack: \(error)"], [])
        }
        var violations: [RaceViolation] = []
        var problems: [String] = []
        let session = RaceSession(script: script, stack: stack, clock: clock, recorder: recorder)
        do {
            let settledAt = try await session.run(settleTimeout: settleTimeout, holdTime: holdTime)
            let call = await session.serverCall()
            let devices = session.allPhones.map { phone in
                var device = recorder.device(
                    phone.id, isCaller: phone.id == RaceSession.callerDevice,
                    phone: phone.phone, apns: stack.sandbox, fcm: stack.fcmSandbox)
                device.user = device.isCaller ? nil : session.user(of: phone.id)
                return device
            }
            var record = RaceRecord(
                callID: session.callID ?? "", call: call, origin: recorder.origin ?? settledAt,
                deadlineGrace: RaceScript.deviceGrace,
                immediate: max(0.25, immediateTolerance / clock.scale),
                prompt: max(1, promptTolerance / clock.scale), settledAt: settledAt, devices: devices)
            record.views = await session.calleeViews()
            violations = RaceInvariants.check(record)
        } catch {
            problems.append("the run could not be played: \(error)")
        }
        var trace = recorder.trace(callID: session.callID, phones: session.allPhones)
        if !violations.isEmpty || !problems.isEmpty {
            // What the nodes logged explains what the phones saw.
            trace += stack.nodeLogTails().flatMap { $0.split(separator: "\n").map(String.init) }
            if let tail = stack.phoneHostLogTail() {
                trace += ["android-phone-host.log:"] + tail.split(separator: "\n").map { "  " + $0 }
            }
        }
        await stack.shutdown()
        return (violations, problems, trace)
    }
}
