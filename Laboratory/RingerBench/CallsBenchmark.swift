import DevCertificates
import Foundation
import RingerTestKit

/// The calls part of `ringer-lab bench` (issue 33, BENCHMARKS.md "Calls"): what one call costs the server. Against one
/// `ringer-lab sandbox` process, first `ringer serve` (SQLite, rate limits off) and then its peer, a push gateway of
/// the kind a team writes in an afternoon (Tests/Peers/bench_gateway.py), each set up through its API by
/// Tests/Peers/bench_calls_setup.py and driven by the same ``CallsLoad``: open loops at 200 and 500 calls/s, whose
/// server CPU (from /proc, ``CPUSampler``) over the calls answered is the CPU per call, then a closed loop of 64 in
/// flight for the capacity. Every call answered 201 must reach the sandbox as one VoIP push (its `accepted_pushes`).
///
/// Every child is stopped whatever happens; a child that dies fails the run.
struct CallsBenchmark: Sendable {
    let options: CallsOptions
    let executable: String
    let python: String

    /// Seconds to wait after the set-up before the first step, so its work does not count.
    var settle: Duration = .seconds(1)
    /// The longest to wait for the sandbox to have accepted a push for every call answered.
    var pushWait: Duration = .seconds(15)

    /// Runs the part.
    /// - Parameters:
    ///   - fixture: keys and certificates (the sandbox's, the servers' APNs key).
    ///   - progress: one line per step.
    /// - Throws: ``BenchmarkError`` when a script is missing, a child fails, or a set-up fails.
    func run(fixture: BenchmarkFixture, progress: @Sendable (String) -> Void) async throws -> CallsReport {
        progress("calls: starting ringer-lab sandbox")
        let sandbox = try await SandboxProcess.start(executable: executable, fixture: fixture)
        let outcome: Result<CallsReport, any Error>
        do {
            progress("calls: starting ringer serve")
            let server = try await RingerServeProcess.start(
                executable: executable, fixture: fixture, apnsPort: sandbox.port)
            let ours = try await measure(
                name: "ringer serve", url: server.url, process: server.process, adminKeyFile: server.adminKeyFile,
                sandbox: sandbox, fixture: fixture, checkRunning: server.checkRunning, stop: server.stop,
                progress: progress)
            progress("calls: starting the peer gateway")
            let gateway = try await GatewayProcess.start(
                python: python, script: options.gatewayScript, sandboxPort: sandbox.port, fixture: fixture)
            let theirs = try await measure(
                name: "peer gateway", url: gateway.url, process: gateway.process, adminKeyFile: gateway.adminKeyFile,
                sandbox: sandbox, fixture: fixture, checkRunning: gateway.checkRunning, stop: gateway.stop,
                progress: progress)
            outcome = .success(
                CallsReport(
                    ringer: ours, peer: theirs, rates: options.rates, concurrency: options.concurrency,
                    stepSeconds: options.stepSeconds, pairs: options.pairs,
                    cores: ProcessInfo.processInfo.activeProcessorCount, cpuModel: Benchmark.cpuModel(),
                    buildMode: Benchmark.buildMode))
        } catch {
            outcome = .failure(error)
        }
        _ = await sandbox.stop()
        return try outcome.get()
    }

    /// Sets one server up, runs the steps against it, checks every call reached the sandbox once, and stops the server
    /// whatever happens (its peak RSS goes in the figures).
    private func measure(
        name: String, url: String, process: ChildProcess, adminKeyFile: URL, sandbox: SandboxProcess,
        fixture: BenchmarkFixture, checkRunning: () throws -> Void, stop: () async -> ProcessUsage,
        progress: @Sendable (String) -> Void
    ) async throws -> CallsReport.Target {
        var target: CallsReport.Target
        do {
            target = try await steps(
                name: name, url: url, pid: process.pid, adminKeyFile: adminKeyFile, sandbox: sandbox, fixture: fixture,
                checkRunning: checkRunning, progress: progress)
        } catch {
            _ = await stop()
            throw error
        }
        target.maxRSSKiB = await stop().maxRSSKiB
        return target
    }

    /// The set-up, the steps and the push count of ``measure(name:url:process:adminKeyFile:sandbox:fixture:checkRunning:stop:progress:)``.
    private func steps(
        name: String, url: String, pid: pid_t, adminKeyFile: URL, sandbox: SandboxProcess,
        fixture: BenchmarkFixture, checkRunning: () throws -> Void, progress: @Sendable (String) -> Void
    ) async throws -> CallsReport.Target {
        let sandboxURL = "https://127.0.0.1:\(sandbox.port)"
        let before = try await acceptedPushes(sandboxURL: sandboxURL, fixture: fixture)
        progress("calls: \(name): setting up \(options.pairs) callers and callees")
        let pairsFile = fixture.directory.appendingPathComponent("calls-pairs-\(pid).json")
        try await ChildProcess.check(
            [
                python, options.setupScript, "--url", url, "--admin-key-file", adminKeyFile.path,
                "--sandbox-url", sandboxURL, "--ca-file", fixture.certificates.caCertificate.path,
                "--bundle-id", BenchmarkFixture.bundleID, "--prefix", "calls-\(pid)-",
                "--pairs", String(options.pairs), "--out", pairsFile.path,
            ], timeout: 300)
        struct PairsFile: Decodable { var pairs: [CallsLoad.Pair] }
        let pairs: [CallsLoad.Pair]
        do {
            pairs = try JSONDecoder().decode(PairsFile.self, from: Data(contentsOf: pairsFile)).pairs
        } catch {
            throw BenchmarkError.setup("cannot read \(pairsFile.path): \(error)")
        }
        guard !pairs.isEmpty else { throw BenchmarkError.setup("the set-up made no pairs") }
        let load = CallsLoad(baseURL: url, pairs: pairs, connections: options.concurrency)
        defer { load.shutdown() }
        let sampler = CPUSampler(pid: pid)
        defer { sampler.stop() }
        let generator = CPUSampler(pid: getpid())
        defer { generator.stop() }
        let sandboxCPU = CPUSampler(name: "sandbox", read: sandbox.cpuSecondsSoFar)
        defer { sandboxCPU.stop() }
        try await Task.sleep(for: settle)
        var target = CallsReport.Target(name: name)
        func cpuPerCall(_ step: CallsLoad.Step) async -> (cores: Double?, perCall: Double?) {
            let cores = await sampler.cores(from: step.windowStart, to: step.windowEnd)
            guard let cores, step.ok > 0 else { return (cores, nil) }
            return (cores, cores * step.windowSeconds / Double(step.ok) * 1_000_000)
        }
        for rate in options.rates {
            progress("calls: \(name): open \(rate)/s for \(options.stepSeconds) s")
            let step = await load.open(rate: rate, seconds: options.stepSeconds)
            try checkRunning()
            target.openSteps[rate] = step
            target.cpuMicrosecondsPerCall[rate] = await cpuPerCall(step).perCall
            target.calls += step.ok
        }
        progress("calls: \(name): closed loop of \(options.concurrency) for \(options.stepSeconds) s")
        let step = await load.closed(concurrency: options.concurrency, seconds: options.stepSeconds)
        try checkRunning()
        target.closedStep = step
        (target.closedCores, target.closedCPUMicrosecondsPerCall) = await cpuPerCall(step)
        target.closedGeneratorCores = await generator.cores(from: step.windowStart, to: step.windowEnd)
        target.closedSandboxCores = await sandboxCPU.cores(from: step.windowStart, to: step.windowEnd)
        target.calls += step.ok
        // Ringer answers 201 before its push is accepted: wait until the sandbox has them all (or the wait ends).
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: pushWait)
        while true {
            target.pushes = try await acceptedPushes(sandboxURL: sandboxURL, fixture: fixture) - before
            if target.pushes >= target.calls || clock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        return target
    }

    /// The sandbox's `accepted_pushes` so far.
    private func acceptedPushes(sandboxURL: String, fixture: BenchmarkFixture) async throws -> Int {
        let outcome = try await ChildProcess.check(
            [
                python, options.setupScript, "--stats", "--sandbox-url", sandboxURL, "--ca-file",
                fixture.certificates.caCertificate.path,
            ], timeout: 60)
        struct Stats: Decodable { var acceptedPushes: Int }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(Stats.self, from: Data(outcome.standardOutput.utf8)).acceptedPushes
        } catch {
            throw BenchmarkError.sandbox("unexpected GET /sandbox/stats: \(outcome.standardOutput.prefix(300))")
        }
    }
}

/// Tests/Peers/bench_gateway.py as a child process: its own SQLite file, admin key and user-token secret (files
/// only the owner can read), and the fixture's APNs key, sending to the benchmark's sandbox.
struct GatewayProcess: Sendable {
    let process: ChildProcess
    /// `http://127.0.0.1:<port>`.
    let url: String
    /// The admin key, in a file only the owner can read.
    let adminKeyFile: URL

    /// Starts the gateway and waits until it listens (20 s at most).
    /// - Throws: ``BenchmarkError`` when it cannot start or does not listen in time.
    static func start(
        python: String, script: String, sandboxPort: Int, fixture: BenchmarkFixture
    ) async throws -> GatewayProcess {
        let directory = fixture.directory
        let secrets = RingerServeProcess.Secrets.random()
        let adminKeyFile = directory.appendingPathComponent("gateway-admin-key")
        let secretFile = directory.appendingPathComponent("gateway-token-secret")
        let portFile = directory.appendingPathComponent("gateway-port")
        do {
            for (file, text) in [(adminKeyFile, secrets.adminKey), (secretFile, secrets.userTokenSecret)] {
                try Data(text.utf8).write(to: file)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            }
        } catch {
            throw BenchmarkError.setup("cannot write the gateway's secrets in \(directory.path): \(error)")
        }
        let process = try ChildProcess(
            [
                python, script, "--port-file", portFile.path,
                "--database", directory.appendingPathComponent("gateway-\(UUID().uuidString.prefix(8)).sqlite").path,
                "--admin-key-file", adminKeyFile.path, "--user-token-secret-file", secretFile.path,
                "--apns-port", String(sandboxPort), "--ca-file", fixture.certificates.caCertificate.path,
                "--key", fixture.keyFile.path, "--key-id", BenchmarkFixture.keyID, "--team-id", BenchmarkFixture.teamID,
            ],
            standardOutput: directory.appendingPathComponent("gateway.out"),
            standardError: directory.appendingPathComponent("gateway.log"))
        do {
            let port = try await process.awaitOutput(in: portFile, within: .seconds(20), what: "listen") { text in
                Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return GatewayProcess(process: process, url: "http://127.0.0.1:\(port)", adminKeyFile: adminKeyFile)
        } catch {
            _ = await process.finish(within: .zero)
            throw error
        }
    }

    /// - Throws: ``BenchmarkError/sender(_:_:)`` if the gateway has died.
    func checkRunning() throws {
        if let exit = process.exitIfEnded {
            throw BenchmarkError.sender(
                "peer gateway", "died with status \(exit.status): \(process.standardErrorTail())")
        }
    }

    /// Stops it with SIGTERM (SIGKILL after 10 seconds).
    /// - Returns: its CPU time and peak memory over the whole run.
    func stop() async -> ProcessUsage {
        process.send(SIGTERM)
        return await process.finish(within: .seconds(10)).usage
    }
}
