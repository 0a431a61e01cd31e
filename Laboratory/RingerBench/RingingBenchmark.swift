import Foundation
import RingerTestKit

/// The ringing part of `ringer-lab bench` (issue 11, BENCHMARKS.md "Ringing"): `ringer-lab sandbox` and `ringer serve`
/// as processes, idle authenticated WebSockets of unrelated users opened level by level (0, 5,000, 10,000 and
/// the largest the server's open-file limit allows) from socket-holder processes, and at each level a
/// load generator placing calls between its own callers and callees: a rate search for the sustainable
/// calls/s (``RateSearch``), then a fixed-rate step for latencies (POST -> 201, POST -> VoIP push accepted by
/// the sandbox, POST -> `call.incoming` on the callee's socket) and server CPU. Between levels, with no call
/// in flight, it reads the server's RSS and the kernel's TCP memory before and after the new sockets open.
///
/// Every child is stopped whatever happens; a child that dies fails the run.
struct RingingBenchmark: Sendable {
    let options: RingingOptions
    let executable: String
    let python: String

    /// Seconds of no load over which the server's idle CPU is read.
    var idleWindow: Duration = .seconds(2)
    /// Pause after the sockets of a level open (or a load generator stops) before memory is read.
    var settle: Duration = .seconds(2)

    /// Runs the part.
    /// - Parameters:
    ///   - fixture: keys and certificates (the sandbox's, the server's APNs key).
    ///   - progress: one line per step.
    /// - Throws: ``BenchmarkError`` when a script is missing, a child fails, or the server's limits cannot be read.
    func run(fixture: BenchmarkFixture, progress: @Sendable (String) -> Void) async throws -> RingingReport {
        progress("ringing: starting ringer-lab sandbox and ringer serve")
        let sandbox = try await SandboxProcess.start(executable: executable, fixture: fixture)
        let server: RingerServeProcess
        do {
            server = try await RingerServeProcess.start(
                executable: executable, fixture: fixture, apnsPort: sandbox.port)
        } catch {
            _ = await sandbox.stop()
            throw error
        }
        let sampler = CPUSampler(pid: server.process.pid)
        var holders: [SocketHolderProcess] = []
        let outcome: Result<RingingReport, any Error>
        do {
            outcome = .success(
                try await measure(
                    server: server, sandbox: sandbox, sampler: sampler, fixture: fixture,
                    holders: &holders, progress: progress))
        } catch {
            outcome = .failure(error)
        }
        // Every child stops, whatever happened.
        var closedEarly = 0
        for holder in holders { closedEarly += await holder.stop() ?? 0 }
        sampler.stop()
        _ = await server.stop()
        _ = await sandbox.stop()
        var report = try outcome.get()
        report.closedEarly = closedEarly
        return report
    }

    private func measure(
        server: RingerServeProcess, sandbox: SandboxProcess, sampler: CPUSampler,
        fixture: BenchmarkFixture, holders: inout [SocketHolderProcess],
        progress: @Sendable (String) -> Void
    ) async throws -> RingingReport {
        let pid = server.process.pid
        try await Task.sleep(for: .seconds(1))
        guard let limit = ProcFiles.openFileLimit(pid: pid), let ownDescriptors = ProcFiles.openDescriptors(pid: pid)
        else {
            throw BenchmarkError.setup("cannot read the server's open-file limit or descriptors in /proc/\(pid)")
        }
        // The load generator's sockets (a caller's and a callee's per pair), its HTTP pool, and the server's
        // connection to the sandbox.
        let loadDescriptors = 2 * options.pairs + RingingLoadProcess.connections + 1
        let largest = SocketHolderPlan.largestIdleSockets(
            serverLimit: limit, serverDescriptors: ownDescriptors,
            loadDescriptors: loadDescriptors)
        let levels = SocketHolderPlan.levels(options.levels, largest: largest)
        guard !levels.isEmpty else {
            throw BenchmarkError.invalidArgument("no --idle-sockets level fits below \(largest)")
        }
        var ownLimit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &ownLimit)
        let perHolder = SocketHolderPlan.socketsPerHolder(
            holderLimit: Int(ownLimit.rlim_cur),
            ephemeralPorts: ProcFiles.ephemeralPorts() ?? 28_232)
        progress(
            "ringing: server open-file limit \(limit), \(ownDescriptors) open: levels \(levels.map(String.init).joined(separator: ", ")) idle sockets"
        )
        var results: [RingingReport.Level] = []
        var held = 0
        for level in levels {
            // Let the previous level's last calls finish before memory is read.
            if !results.isEmpty { try await Task.sleep(for: settle) }
            let rssBefore = ProcFiles.residentBytes(pid: pid)
            let kernelBefore = ProcFiles.tcpSockets()
            let slabBefore = ProcFiles.tcpSlabBytes()
            for count in SocketHolderPlan.newHolders(current: held, target: level, perHolder: perHolder) {
                progress(
                    "ringing: opening \(count) idle sockets (holder \(holders.count + 1), "
                        + "\(try SocketHolderPlan.sourceAddress(holder: holders.count)))")
                holders.append(
                    try await SocketHolderProcess.start(
                        python: python, script: options.holderScript, server: server,
                        count: count, index: holders.count,
                        directory: fixture.directory))
                held += count
            }
            try await Task.sleep(for: settle)
            // Each idle socket the holders say is open must be one descriptor in the server.
            if let descriptors = ProcFiles.openDescriptors(pid: pid), descriptors < ownDescriptors + level {
                throw BenchmarkError.sender(
                    "ringer serve",
                    "has \(descriptors) descriptors open with \(level) idle sockets "
                        + "opened (and \(ownDescriptors) of its own before): sockets were lost")
            }
            let rssAfter = ProcFiles.residentBytes(pid: pid)
            let kernelAfter = ProcFiles.tcpSockets()
            let slabAfter = ProcFiles.tcpSlabBytes()
            let added = level - (results.last?.idleSockets ?? 0)
            var figures = RingingReport.Level(
                idleSockets: level, probeCallsPerSecond: 0, sustainedCallsPerSecond: nil, searchSteps: [],
                latency: .init(rate: options.latencyRate, sustained: false, skipped: 0, failed: 0),
                idleServerCores: nil, serverRSSBytes: rssAfter)
            if added > 0, let rssBefore, let rssAfter {
                figures.rssPerSocketBytes = Double(rssAfter - rssBefore) / Double(added)
            }
            if added > 0, let kernelBefore, let kernelAfter {
                figures.kernelBytesPerSocket =
                    Double((kernelAfter.memoryPages - kernelBefore.memoryPages) * ProcFiles.pageSize)
                    / Double(added)
            }
            if added > 0, let slabBefore, let slabAfter {
                figures.kernelSlabBytesPerSocket = Double(slabAfter - slabBefore) / Double(added)
            }
            let idleStart = ProcFiles.monotonicSeconds()
            try await Task.sleep(for: idleWindow)
            figures.idleServerCores = await sampler.cores(from: idleStart, to: ProcFiles.monotonicSeconds())
            try await load(
                level: level, into: &figures, server: server, sandbox: sandbox, sampler: sampler,
                fixture: fixture, progress: progress)
            try server.checkRunning()
            try sandbox.checkRunning()
            for holder in holders { try holder.checkRunning() }
            results.append(figures)
        }
        return RingingReport(
            levels: results, latencyRate: options.latencyRate, pairs: options.pairs,
            stepSeconds: options.stepSeconds, serverFileLimit: limit, largestIdleSockets: largest,
            holders: holders.count, closedEarly: 0, cores: ProcessInfo.processInfo.activeProcessorCount,
            cpuModel: Benchmark.cpuModel(), buildMode: Benchmark.buildMode)
    }

    /// One level's load: the rate search, then the latency step; the load generator's users are new.
    private func load(
        level: Int, into figures: inout RingingReport.Level, server: RingerServeProcess,
        sandbox: SandboxProcess, sampler: CPUSampler, fixture: BenchmarkFixture,
        progress: @Sendable (String) -> Void
    ) async throws {
        progress("ringing: \(level) idle sockets: setting up \(options.pairs) callers and callees")
        let generator = try await RingingLoadProcess(
            python: python, script: options.loadScript, server: server,
            sandboxPort: sandbox.port, fixture: fixture,
            pairs: options.pairs, prefix: "n\(level)-")
        do {
            var search = RateSearch(probeConcurrency: RingingLoadProcess.connections, stepSeconds: options.stepSeconds)
            var command: RingingStep.Command? = search.first
            while let next = command {
                progress("ringing: \(level) idle sockets: \(next.line)")
                let step = try await generator.run(next)
                switch next {
                case .open(let rate, _):
                    figures.searchSteps.append(
                        .init(rate: rate, sustained: step.isSustained, callsPerSecond: step.callsPerSecond))
                case .closed:
                    figures.probeServerCores = await sampler.cores(
                        from: step.result.windowStart, to: step.result.windowEnd)
                    figures.probeGeneratorCores = await generator.cpu.cores(
                        from: step.result.windowStart, to: step.result.windowEnd)
                }
                command = search.next(after: step)
            }
            figures.probeCallsPerSecond = search.probeRate ?? 0
            figures.sustainedCallsPerSecond = search.sustainedRate
            let latency = RingingStep.Command.open(rate: options.latencyRate, seconds: options.stepSeconds)
            progress("ringing: \(level) idle sockets: \(latency.line) (latency)")
            let step = try await generator.run(latency)
            figures.latency = .init(
                rate: options.latencyRate, sustained: step.isSustained, skipped: step.result.skipped,
                failed: step.result.offered - step.result.skipped - step.result.ok,
                post: LatencySummary(step.result.postMs, unanswered: step.result.offered - step.result.ok),
                push: LatencySummary(step.result.pushMs, unanswered: step.result.offered - step.result.pushMs.count),
                incoming: LatencySummary(
                    step.result.incomingMs,
                    unanswered: step.result.offered - step.result.incomingMs.count),
                serverCores: await sampler.cores(from: step.result.windowStart, to: step.result.windowEnd),
                generatorCores: await generator.cpu.cores(from: step.result.windowStart, to: step.result.windowEnd))
        } catch {
            _ = await generator.stop()
            throw error
        }
        _ = await generator.stop()
    }
}
