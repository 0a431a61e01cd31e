public import Foundation
public import RingerSupport

/// Runs scenario files against a whole local installation: the real server (SQLite, HTTP, WebSocket),
/// the APNs and FCM sandboxes over HTTP/2 + TLS, simulated iPhones running RingerKit and Android phones running the
/// Kotlin SDK in the phone host (``AndroidPhoneHost``, a JVM the stack starts; `make -C android lab` builds it), all
/// over loopback (``LocalStack``). It plays the time line on a ``ScenarioClock``, then compares the outcome with
/// the file's `expect` and the rules every scenario keeps.
///
/// ```swift
/// let runner = ScenarioRunner(timeScale: 0.01)   // 45 s of ringing take 0.45 s
/// let result = await runner.run(try Scenario.load(path: "Scenarios/05b_ring_out.json"))
/// print(result.summary)
/// ```
/// Thread-safe; each run builds its own stack, so runs may overlap.
public struct ScenarioRunner: Sendable {
    /// Real seconds per scenario second: 1 is real time, 0.01 runs a 45 s ring-out in 0.45 s.
    public var timeScale: Double
    /// Real seconds the runner waits after the time line for the outcome to match (late events,
    /// reconnecting sockets) before it reports the differences.
    public var settleTimeout: TimeInterval = 5
    /// Real seconds a matching outcome must stay matching (no late extra event) to pass.
    public var holdTime: TimeInterval = 0.3
    /// Server and sandbox logs.
    public var logger: Logger
    /// Separate `ringer serve` processes on PostgreSQL and Redis instead of one in-process server; nil: one
    /// server. A scenario with `"nodes": N` needs a cluster of at least N.
    public var cluster: LocalStack.Cluster?

    /// Creates a runner.
    /// - Parameters:
    ///   - timeScale: real seconds per scenario second, greater than 0 (1 is real time).
    ///   - logger: server and sandbox logs; silent by default.
    public init(timeScale: Double = 0.01, logger: Logger = .silent()) {
        self.timeScale = timeScale
        self.logger = logger
    }

    /// Runs one scenario.
    /// - Parameters:
    ///   - scenario: a validated scenario.
    ///   - onTrace: each trace line as it happens (call ids are shown raw until the run ends).
    /// - Returns: the result; ``ScenarioResult/passed`` only when everything matched.
    public func run(
        _ scenario: Scenario, onTrace: @escaping @Sendable (String) -> Void = { _ in }
    ) async -> ScenarioResult {
        let started = ContinuousClock.now
        let clock = ScenarioClock(scale: timeScale)
        let recorder = ScenarioRecorder(clock: clock, onTrace: onTrace)
        var options = LocalStack.Options()
        options.ringTimeout = scenario.ringTimeout
        options.callIdleTimeout = scenario.callIdleTimeout
        options.maxCallDuration = scenario.maxCallDuration
        options.clock = clock
        options.logger = logger
        options.observe = { [weak recorder] observation in recorder?.server(observation) }
        options.cluster = cluster
        let nodes = cluster?.nodes ?? 1
        let mismatches =
            scenario.nodes > nodes
            ? [
                "the scenario needs \(scenario.nodes) server nodes and the run has \(nodes): "
                    + "run it with --nodes \(scenario.nodes) --database … --redis …"
            ]
            : await play(scenario, options: options, clock: clock, recorder: recorder)
        let elapsed = started.duration(to: .now)
        return ScenarioResult(
            file: scenario.file, name: scenario.name, timeScale: timeScale, mismatches: mismatches,
            trace: recorder.trace,
            realSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Starts the stack, plays the scenario, compares, stops the stack.
    /// - Returns: the mismatches.
    private func play(
        _ scenario: Scenario, options: LocalStack.Options, clock: ScenarioClock,
        recorder: ScenarioRecorder
    ) async -> [String] {
        let stack: LocalStack
        do {
            stack = try await LocalStack.start(options)
        } catch {
            return ["cannot start the local stack: \(error)"]
        }
        let session = ScenarioSession(scenario: scenario, stack: stack, clock: clock, recorder: recorder)
        let mismatches = await session.run(settleTimeout: settleTimeout, holdTime: holdTime)
        if !mismatches.isEmpty {
            // What the nodes logged explains what the phones saw.
            for tail in stack.nodeLogTails() { recorder.note("runner", "log of " + tail) }
            if let tail = stack.phoneHostLogTail() { recorder.note("runner", "log of the phone host:\n" + tail) }
        }
        await stack.shutdown()
        return mismatches
    }
}
