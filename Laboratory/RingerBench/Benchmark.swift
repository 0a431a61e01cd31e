import Foundation
import RingerTestKit

/// Runs the push benchmark in two parts, each against `ringer-lab sandbox` as its own process:
/// - APNs: the same workload of VoIP pushes from Ringer's `APNsClient`, from aioapns and from h2load, one
///   sandbox process for all of them;
/// - FCM: the same workload of ringing messages from Ringer's `FCMClient`, from firebase-admin
///   (`send_each_async` and `send_each`) and from h2load, a fresh sandbox process for each;
///
/// one sender after the other, each as its own process, and collects the figures. Ringer and h2load, a few
/// seconds each, run in ``Options/rounds`` interleaved rounds and count by their median round
/// (``SenderRounds``); the Python peers, slower by an order of magnitude and far from their goals, run once.
///
/// A sender whose pushes are not all accepted fails the run: a throughput of refused pushes means nothing.
/// Every child process is stopped and the temporary keys are deleted whatever happens.
public struct Benchmark: Sendable {
    /// What to run and where the tools are.
    public struct Options: Sendable {
        /// Counts for every APNs sender.
        public var workload: PushWorkload
        /// Counts for every FCM sender.
        public var fcmWorkload: PushWorkload
        /// The parts to run, in the order APNs, FCM, ringing, fan-out, group, cluster, calls.
        public var parts: Set<BenchmarkPart>
        /// What the ringing part runs.
        public var ringing: RingingOptions
        /// What the fan-out part runs.
        public var fanout: FanOutOptions
        /// What the group part runs.
        public var group: GroupOptions
        /// What the cluster part runs.
        public var cluster: ClusterOptions
        /// What the calls part runs.
        public var calls: CallsOptions
        /// The `ringer` binary (for `ringer-lab sandbox` and `ringer-lab bench --send`).
        public var executable: String
        /// The Python interpreter that has aioapns and firebase-admin.
        public var python: String
        /// Path of Tests/Peers/bench_aioapns.py.
        public var aioapnsScript: String
        /// Path of Tests/Peers/bench_firebase_admin.py.
        public var firebaseAdminScript: String
        /// The h2load program.
        public var h2load: String
        /// Longest one sender may run before it is killed and the run fails.
        public var senderTimeout: Duration
        /// Connections in Ringer's pools (aioapns and h2load use one).
        public var ringerConnections: Int
        /// Rounds of Ringer and h2load per part, at least 1.
        public var rounds: Int

        /// Creates options.
        /// - Parameters:
        ///   - workload: APNs counts.
        ///   - fcmWorkload: FCM counts; nil for the same as `workload`.
        ///   - parts: what to run; default both.
        ///   - executable: absolute path of the `ringer` binary.
        ///   - python: interpreter, found in PATH unless it has a slash.
        ///   - aioapnsScript: the aioapns peer script.
        ///   - firebaseAdminScript: the firebase-admin peer script.
        ///   - h2load: h2load, found in PATH unless it has a slash.
        ///   - senderTimeout: per-sender limit.
        ///   - ringerConnections: Ringer's pool size; default 2 (`APNsClient`'s and `FCMClient`'s default).
        ///   - rounds: interleaved rounds of Ringer and h2load; default 3 (below 1 counts as 1).
        ///   - ringing: the ringing part's levels, rates and scripts; default its flags' defaults.
        ///   - fanout: the fan-out part's calls and script; default its flags' defaults.
        ///   - group: the group part's calls, callees and script; default its flags' defaults.
        ///   - cluster: the cluster part's pairs, steps and rate; default its flags' defaults.
        ///   - calls: the calls part's pairs, steps and scripts; default its flags' defaults.
        public init(
            workload: PushWorkload, fcmWorkload: PushWorkload? = nil,
            parts: Set<BenchmarkPart> = Set(BenchmarkPart.allCases),
            executable: String, python: String = "python3",
            aioapnsScript: String = "Tests/Peers/bench_aioapns.py",
            firebaseAdminScript: String = "Tests/Peers/bench_firebase_admin.py", h2load: String = "h2load",
            senderTimeout: Duration = .seconds(600), ringerConnections: Int = 2, rounds: Int = 3,
            ringing: RingingOptions? = nil, fanout: FanOutOptions? = nil, group: GroupOptions? = nil,
            cluster: ClusterOptions? = nil, calls: CallsOptions? = nil
        ) {
            self.workload = workload
            self.fcmWorkload = fcmWorkload ?? workload
            self.parts = parts
            self.executable = executable
            self.python = python
            self.aioapnsScript = aioapnsScript
            self.firebaseAdminScript = firebaseAdminScript
            self.h2load = h2load
            self.senderTimeout = senderTimeout
            self.ringerConnections = ringerConnections
            self.rounds = max(rounds, 1)
            self.ringing = ringing ?? RingingOptions()
            self.fanout = fanout ?? FanOutOptions()
            self.group = group ?? GroupOptions()
            self.cluster = cluster ?? ClusterOptions()
            self.calls = calls ?? CallsOptions()
        }
    }

    private let options: Options

    /// Creates a benchmark.
    /// - Parameter options: counts and tools.
    public init(options: Options) {
        self.options = options
    }

    /// Runs it. Loads both cores for a few seconds per sender.
    /// - Parameter progress: receives one line as each step starts (for stderr).
    /// - Returns: the figures of the parts that ran.
    /// - Throws: ``BenchmarkError`` when a tool is missing, a sandbox fails, or a sender fails or has
    ///   pushes refused.
    public func run(progress: @Sendable (String) -> Void) async throws -> BenchmarkResults {
        guard !options.parts.isEmpty else { throw BenchmarkError.invalidArgument("nothing to run") }
        // Fail before the first sender runs, not after it.
        let scripts = [
            (BenchmarkPart.apns, "aioapns", options.aioapnsScript),
            (.fcm, "firebase-admin", options.firebaseAdminScript),
            (.ringing, "ringing load generator", options.ringing.loadScript),
            (.ringing, "socket holder", options.ringing.holderScript),
            (.fanout, "fan-out load generator", options.fanout.script),
            (.group, "group load generator", options.group.script),
            (.cluster, "ringing load generator", options.cluster.loadScript),
            (.calls, "calls set-up", options.calls.setupScript),
            (.calls, "peer gateway", options.calls.gatewayScript),
        ]
        for (part, library, script) in scripts where options.parts.contains(part) {
            guard FileManager.default.isReadableFile(atPath: script) else {
                throw BenchmarkError.invalidArgument("\(library) peer script not found: \(script)")
            }
        }
        let pushParts = options.parts.contains(.apns) || options.parts.contains(.fcm)
        for program in [options.python] + (pushParts ? [options.h2load] : []) where !Self.canRun(program) {
            throw BenchmarkError.invalidArgument("\(program) not found (make bench installs it)")
        }
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        let apns = options.parts.contains(.apns) ? try await runAPNs(fixture: fixture, progress: progress) : nil
        let fcm = options.parts.contains(.fcm) ? try await runFCM(fixture: fixture, progress: progress) : nil
        let ringing =
            options.parts.contains(.ringing)
            ? try await RingingBenchmark(
                options: options.ringing, executable: options.executable, python: options.python
            )
            .run(fixture: fixture, progress: progress)
            : nil
        let fanout =
            options.parts.contains(.fanout)
            ? try await FanOutBenchmark(options: options.fanout, executable: options.executable, python: options.python)
                .run(fixture: fixture, progress: progress)
            : nil
        let group =
            options.parts.contains(.group)
            ? try await GroupBenchmark(options: options.group, executable: options.executable, python: options.python)
                .run(fixture: fixture, progress: progress)
            : nil
        let cluster =
            options.parts.contains(.cluster)
            ? try await ClusterBenchmark(
                options: options.cluster, executable: options.executable, python: options.python
            )
            .run(fixture: fixture, progress: progress)
            : nil
        let calls =
            options.parts.contains(.calls)
            ? try await CallsBenchmark(options: options.calls, executable: options.executable, python: options.python)
                .run(fixture: fixture, progress: progress)
            : nil
        return BenchmarkResults(
            apns: apns, fcm: fcm, ringing: ringing, fanout: fanout, group: group, cluster: cluster, calls: calls)
    }

    /// The APNs part, one sandbox process for every sender: rounds of Ringer over its pool (the figure of the
    /// RESULT line), h2load and, when the pool has more than one connection, Ringer over one, like the other
    /// two senders; then aioapns once.
    private func runAPNs(
        fixture: BenchmarkFixture, progress: @Sendable (String) -> Void
    ) async throws -> BenchmarkReport {
        progress("starting ringer-lab sandbox for APNs")
        let sandbox = try await SandboxProcess.start(executable: options.executable, fixture: fixture)
        var senders: [BenchmarkSender] = [
            .ringer(executable: options.executable, connections: options.ringerConnections),
            .h2load(program: options.h2load),
        ]
        if options.ringerConnections > 1 { senders.append(.ringer(executable: options.executable, connections: 1)) }
        let measured: Rounds
        let aioapns: SenderFigures
        do {
            func send(_ sender: BenchmarkSender, _ note: String) async throws -> SenderFigures {
                progress("sending \(options.workload.pushes) pushes with \(sender.name)\(note)")
                let arguments = try sender.arguments(fixture: fixture, port: sandbox.port, workload: options.workload)
                let figures = try await measure(
                    sender.name, arguments: arguments, workload: options.workload,
                    sandbox: sandbox, fixture: fixture, report: sender.report(from:))
                try sandbox.checkRunning()
                return figures
            }
            measured = try await interleaved(senders.map { ($0.name, $0) }) { try await send($0, $1) }
            aioapns = try await send(.aioapns(python: options.python, script: options.aioapnsScript), "")
        } catch {
            _ = await sandbox.stop()
            throw error
        }
        let sandboxUsage = await sandbox.stop()
        var report = BenchmarkReport(
            workload: options.workload, ringer: measured.ringer, aioapns: aioapns,
            h2load: measured.h2load, ringerOneConnection: measured.ringerOneConnection,
            sandbox: sandboxUsage, cores: ProcessInfo.processInfo.activeProcessorCount,
            cpuModel: Self.cpuModel(), buildMode: Self.buildMode,
            ringerConnections: options.ringerConnections)
        report.rounds = measured.rounds
        return report
    }

    /// The FCM part: rounds of Ringer over its pool (the RESULT line's figure), h2load and Ringer over one
    /// connection when the pool has more; then firebase-admin's `send_each_async` (the RESULT line's
    /// comparison) and `send_each` once each. Each sender gets a fresh `ringer-lab sandbox` process: the FCM
    /// sandbox keeps every accepted message and its delivery state, and grows slower as they pile up, which
    /// would favour whichever sender runs first.
    private func runFCM(
        fixture: BenchmarkFixture, progress: @Sendable (String) -> Void
    ) async throws -> FCMBenchmarkReport {
        let workload = options.fcmWorkload
        var senders: [FCMBenchmarkSender] = [
            .ringer(executable: options.executable, connections: options.ringerConnections),
            .h2load(program: options.h2load),
        ]
        if options.ringerConnections > 1 { senders.append(.ringer(executable: options.executable, connections: 1)) }
        var sandboxUsage = ProcessUsage(cpuSeconds: 0, maxRSSKiB: 0)
        func send(_ sender: FCMBenchmarkSender, _ note: String) async throws -> SenderFigures {
            progress(
                "starting ringer-lab sandbox for FCM, then sending \(workload.pushes) FCM messages with \(sender.name)\(note)"
            )
            let sandbox = try await SandboxProcess.start(executable: options.executable, fixture: fixture)
            let figures: SenderFigures
            do {
                let context = try await FCMBenchmarkSender.Context.prepare(fixture: fixture, ports: sandbox.fcm)
                figures = try await measure(
                    sender.name,
                    arguments: sender.arguments(
                        fixture: fixture, context: context,
                        workload: workload),
                    workload: workload, sandbox: sandbox, fixture: fixture,
                    report: sender.report(from:))
                try sandbox.checkRunning()
            } catch {
                _ = await sandbox.stop()
                throw error
            }
            let usage = await sandbox.stop()
            sandboxUsage = ProcessUsage(
                cpuSeconds: sandboxUsage.cpuSeconds + usage.cpuSeconds,
                maxRSSKiB: max(sandboxUsage.maxRSSKiB, usage.maxRSSKiB))
            return figures
        }
        let measured = try await interleaved(senders.map { ($0.name, $0) }) { try await send($0, $1) }
        let firebaseAdmin = try await send(
            .firebaseAdmin(
                python: options.python, script: options.firebaseAdminScript,
                mode: .async), "")
        let firebaseAdminSync = try await send(
            .firebaseAdmin(
                python: options.python, script: options.firebaseAdminScript,
                mode: .sync), "")
        var report = FCMBenchmarkReport(
            workload: workload, ringer: measured.ringer, firebaseAdmin: firebaseAdmin,
            firebaseAdminSync: firebaseAdminSync, h2load: measured.h2load,
            ringerOneConnection: measured.ringerOneConnection,
            sandbox: sandboxUsage, cores: ProcessInfo.processInfo.activeProcessorCount,
            cpuModel: Self.cpuModel(), buildMode: Self.buildMode,
            ringerConnections: options.ringerConnections)
        report.rounds = measured.rounds
        return report
    }

    /// What ``interleaved(_:run:)`` measured: each sender's median round, in the senders' order, and every
    /// round's throughput. Both parts run Ringer over its pool, h2load, then Ringer over one connection
    /// when the pool has more.
    private struct Rounds {
        var medians: [SenderFigures]
        var rounds: [SenderRounds]

        var ringer: SenderFigures { medians[0] }
        var h2load: SenderFigures { medians[1] }
        var ringerOneConnection: SenderFigures? { medians.count > 2 ? medians[2] : nil }
    }

    /// Runs every sender once per round, ``Options/rounds`` rounds, in order within each round.
    /// - Parameters:
    ///   - senders: each sender with its name.
    ///   - run: measures one sender; the second argument is a note for the progress line (` (round 2 of 3)`).
    private func interleaved<Sender>(
        _ senders: [(name: String, sender: Sender)],
        run: (Sender, String) async throws -> SenderFigures
    ) async throws -> Rounds {
        var runs = Array(repeating: [SenderFigures](), count: senders.count)
        for round in 1...options.rounds {
            for (index, entry) in senders.enumerated() {
                let note = options.rounds > 1 ? " (round \(round) of \(options.rounds))" : ""
                runs[index].append(try await run(entry.sender, note))
            }
        }
        return Rounds(
            medians: runs.map(SenderRounds.median(of:)),
            rounds: options.rounds > 1
                ? zip(senders, runs).map { SenderRounds(label: $0.0.name, perSecond: $0.1.map(\.pushesPerSecond)) } : []
        )
    }

    /// Runs one sender to completion and checks that every push was accepted.
    private func measure(
        _ name: String, arguments: [String], workload: PushWorkload, sandbox: SandboxProcess,
        fixture: BenchmarkFixture, report parse: (String) throws -> SenderReport
    ) async throws -> SenderFigures {
        let stem = fixture.directory.appendingPathComponent(name.replacingOccurrences(of: " ", with: "-"))
        let clock = ContinuousClock()
        let sandboxBefore = sandbox.cpuSecondsSoFar()
        let start = clock.now
        let process = try ChildProcess(
            arguments, standardOutput: stem.appendingPathExtension("out"),
            standardError: stem.appendingPathExtension("err"))
        let exit = await process.finish(within: options.senderTimeout)
        let elapsed = start.duration(to: clock.now)
        let sandboxAfter = sandbox.cpuSecondsSoFar()
        guard !exit.timedOut else {
            throw BenchmarkError.sender(name, "still running after \(options.senderTimeout); killed")
        }
        guard exit.status == 0 else {
            throw BenchmarkError.sender(name, "exited with status \(exit.status): \(process.standardErrorTail())")
        }
        let output = (try? String(contentsOf: process.standardOutput, encoding: .utf8)) ?? ""
        let report = try parse(output)
        guard report.pushes == workload.pushes, report.accepted == report.pushes else {
            throw BenchmarkError.sender(
                name,
                "\(report.accepted) of \(report.pushes) accepted; first failure: "
                    + (report.firstFailure ?? "unknown"))
        }
        let sandboxCPU = sandboxBefore.flatMap { before in sandboxAfter.map { $0 - before } }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return SenderFigures(report: report, usage: exit.usage, processSeconds: seconds, sandboxCPUSeconds: sandboxCPU)
    }

    /// True when `program` is an executable path, or a name found in PATH (as `posix_spawnp` looks it up).
    private static func canRun(_ program: String) -> Bool {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(program)") }
    }

    static var buildMode: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }

    /// The first `model name` in /proc/cpuinfo.
    static func cpuModel() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        else { return nil }
        return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
}
