import Foundation

/// Runs the push benchmark: starts `ringer sandbox` as its own process, then sends the same workload to
/// it from Ringer's `APNsClient`, from aioapns and from h2load, one after the other, each as its own
/// process over one HTTP/2 connection, and collects the figures.
///
/// A sender whose pushes are not all accepted fails the run: a throughput of refused pushes means nothing.
/// Every child process is stopped and the temporary keys are deleted whatever happens.
public struct Benchmark: Sendable {
    /// What to run and where the tools are.
    public struct Options: Sendable {
        /// Counts for every sender.
        public var workload: PushWorkload
        /// The `ringer` binary (for `ringer sandbox` and `ringer bench --send`).
        public var executable: String
        /// The Python interpreter that has aioapns.
        public var python: String
        /// Path of Tests/Peers/bench_aioapns.py.
        public var aioapnsScript: String
        /// The h2load program.
        public var h2load: String
        /// Longest one sender may run before it is killed and the run fails.
        public var senderTimeout: Duration
        /// Connections in Ringer's pool (aioapns and h2load use one).
        public var ringerConnections: Int

        /// Creates options.
        /// - Parameters:
        ///   - workload: counts.
        ///   - executable: absolute path of the `ringer` binary.
        ///   - python: interpreter, found in PATH unless it has a slash.
        ///   - aioapnsScript: the aioapns peer script.
        ///   - h2load: h2load, found in PATH unless it has a slash.
        ///   - senderTimeout: per-sender limit.
        ///   - ringerConnections: Ringer's pool size; default 2 (`APNsClient`'s default).
        public init(workload: PushWorkload, executable: String, python: String = "python3",
                    aioapnsScript: String = "Tests/Peers/bench_aioapns.py", h2load: String = "h2load",
                    senderTimeout: Duration = .seconds(600), ringerConnections: Int = 2) {
            self.workload = workload
            self.executable = executable
            self.python = python
            self.aioapnsScript = aioapnsScript
            self.h2load = h2load
            self.senderTimeout = senderTimeout
            self.ringerConnections = ringerConnections
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
    /// - Returns: the figures.
    /// - Throws: ``BenchmarkError`` when a tool is missing, the sandbox fails, or a sender fails or has
    ///   pushes refused.
    public func run(progress: @Sendable (String) -> Void) async throws -> BenchmarkReport {
        guard FileManager.default.isReadableFile(atPath: options.aioapnsScript) else {
            throw BenchmarkError.invalidArgument("aioapns peer script not found: \(options.aioapnsScript)")
        }
        // Fail before the first sender runs, not after it.
        for program in [options.python, options.h2load] where !Self.canRun(program) {
            throw BenchmarkError.invalidArgument("\(program) not found (make bench installs it)")
        }
        let fixture = try BenchmarkFixture.create()
        defer { fixture.remove() }
        progress("starting ringer sandbox")
        let sandbox = try await SandboxProcess.start(executable: options.executable, fixture: fixture)
        var figures: [SenderFigures] = []
        do {
            // Ringer over its pool (the figure of the RESULT line), then, when the pool has more than one
            // connection, over one, like the other two senders.
            var senders: [BenchmarkSender] = [.ringer(executable: options.executable, connections: options.ringerConnections),
                                              .aioapns(python: options.python, script: options.aioapnsScript),
                                              .h2load(program: options.h2load)]
            if options.ringerConnections > 1 { senders.append(.ringer(executable: options.executable, connections: 1)) }
            for sender in senders {
                progress("sending \(options.workload.pushes) pushes with \(sender.name)")
                figures.append(try await measure(sender, sandbox: sandbox, fixture: fixture))
                try sandbox.checkRunning()
            }
        } catch {
            _ = await sandbox.stop()
            throw error
        }
        let sandboxUsage = await sandbox.stop()
        return BenchmarkReport(workload: options.workload, ringer: figures[0], aioapns: figures[1], h2load: figures[2],
                               ringerOneConnection: figures.count > 3 ? figures[3] : nil, sandbox: sandboxUsage, cores: ProcessInfo.processInfo.activeProcessorCount,
                               cpuModel: Self.cpuModel(), buildMode: Self.buildMode,
                               ringerConnections: options.ringerConnections)
    }

    /// Runs one sender to completion and checks that every push was accepted.
    private func measure(_ sender: BenchmarkSender, sandbox: SandboxProcess,
                         fixture: BenchmarkFixture) async throws -> SenderFigures {
        let arguments = try sender.arguments(fixture: fixture, port: sandbox.port, workload: options.workload)
        let stem = fixture.directory.appendingPathComponent(sender.name.replacingOccurrences(of: " ", with: "-"))
        let clock = ContinuousClock()
        let sandboxBefore = sandbox.cpuSecondsSoFar()
        let start = clock.now
        let process = try SpawnedProcess(arguments, standardOutput: stem.appendingPathExtension("out"),
                                         standardError: stem.appendingPathExtension("err"))
        let exit = await process.finish(within: options.senderTimeout)
        let elapsed = start.duration(to: clock.now)
        let sandboxAfter = sandbox.cpuSecondsSoFar()
        guard !exit.timedOut else {
            throw BenchmarkError.sender(sender.name, "still running after \(options.senderTimeout); killed")
        }
        guard exit.status == 0 else {
            throw BenchmarkError.sender(sender.name, "exited with status \(exit.status): \(process.standardErrorTail())")
        }
        let output = (try? String(contentsOf: process.standardOutput, encoding: .utf8)) ?? ""
        let report = try sender.report(from: output)
        guard report.pushes == options.workload.pushes, report.accepted == report.pushes else {
            throw BenchmarkError.sender(sender.name, "\(report.accepted) of \(report.pushes) pushes accepted; first failure: "
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

    private static var buildMode: String {
        #if DEBUG
        "debug"
        #else
        "release"
        #endif
    }

    /// The first `model name` in /proc/cpuinfo.
    private static func cpuModel() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
              let colon = line.firstIndex(of: ":") else { return nil }
        return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
}
