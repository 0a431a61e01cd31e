import Foundation
import RingerTestKit

/// The cluster part of `ringer-lab bench` (BENCHMARKS.md "Cluster"): the same calls as the ringing part, placed on
/// four set-ups one after the other (1 `ringer serve` on SQLite, 1 on PostgreSQL, 2 and 3 on PostgreSQL +
/// Redis), each with a fresh `ringer-lab sandbox`, database and Redis, every node pushing to that one sandbox. Per
/// set-up: the rate search (``RateSearch``) for the sustainable calls/s, then one step at the common
/// ``ClusterOptions/latencyRate`` for POST -> push latency and CPU per call; CPU summed over the nodes, and
/// PostgreSQL's (postmaster and backends) and Redis's read from /proc. Every call's push is accounted for
/// (``PushAccounting``). No idle sockets: that is the ringing part's question.
///
/// PostgreSQL is started once (``PostgresServer``, as deployed: every commit flushed) with a database per set-up;
/// every child is stopped whatever happens; a child that dies fails the run.
struct ClusterBenchmark: Sendable {
    let options: ClusterOptions
    let executable: String
    let python: String

    /// Wait before reading the counters, for the last writes of the step (push outcomes) to end.
    static let statisticsDelay = Duration.milliseconds(300)
    /// Seconds with no call placed over which the store's and Redis's background work is read.
    static let idleWindow = Duration.seconds(2)

    /// Runs the part.
    /// - Parameters:
    ///   - fixture: keys and certificates (the sandbox's, the servers' APNs key); logs go in its folder.
    ///   - progress: one line per step.
    /// - Throws: ``BenchmarkError`` when PostgreSQL, Redis, a node or the load generator cannot start or dies.
    func run(fixture: BenchmarkFixture, progress: @Sendable (String) -> Void) async throws -> ClusterReport {
        progress("cluster: initdb and starting PostgreSQL 15")
        let postgres: PostgresServer
        do {
            postgres = try await PostgresServer.start(durability: .asDeployed)
        } catch {
            throw BenchmarkError.setup("\(error)")
        }
        var results: [ClusterReport.Figures] = []
        do {
            for setup in ClusterSetup.allCases {
                results.append(try await run(setup, postgres: postgres, fixture: fixture, progress: progress))
            }
        } catch {
            await Self.stop(postgres)
            throw error
        }
        await Self.stop(postgres)
        return ClusterReport(
            setups: results, latencyRate: options.latencyRate, pairs: options.pairs,
            stepSeconds: options.stepSeconds, cores: ProcessInfo.processInfo.activeProcessorCount,
            cpuModel: Benchmark.cpuModel(), buildMode: Benchmark.buildMode)
    }

    /// Fast shutdown (ends every session, no wait for clients), then the folder is deleted.
    private static func stop(_ postgres: PostgresServer) async {
        try? await postgres.stop(timeout: 15)
        await postgres.remove()
    }

    /// The children of one set-up, so they can be stopped together.
    private struct Children {
        var sandbox: SandboxProcess?
        var redis: RedisServer?
        var nodes: [RingerServeProcess] = []
        var samplers: [CPUSampler] = []

        func stop() async {
            for sampler in samplers { sampler.stop() }
            for node in nodes { _ = await node.stop() }
            redis?.stop()
            if let sandbox { _ = await sandbox.stop() }
        }
    }

    private func run(
        _ setup: ClusterSetup, postgres: PostgresServer, fixture: BenchmarkFixture,
        progress: @Sendable (String) -> Void
    ) async throws -> ClusterReport.Figures {
        progress(
            "cluster: \(setup.label): starting ringer-lab sandbox\(setup.usesRedis ? ", redis-server" : "") and \(setup.nodes) ringer serve"
        )
        var children = Children()
        do {
            let figures = try await measure(
                setup, postgres: postgres, fixture: fixture, children: &children, progress: progress)
            await children.stop()
            return figures
        } catch {
            await children.stop()
            throw error
        }
    }

    private func measure(
        _ setup: ClusterSetup, postgres: PostgresServer, fixture: BenchmarkFixture,
        children: inout Children, progress: @Sendable (String) -> Void
    ) async throws -> ClusterReport.Figures {
        let sandbox = try await SandboxProcess.start(executable: executable, fixture: fixture)
        children.sandbox = sandbox
        let redis: RedisServer?
        let database: String?
        do {
            redis = setup.usesRedis ? try RedisServer() : nil
            children.redis = redis
            database = setup.usesPostgres ? try await postgres.makeDatabase(named: setup.key) : nil
        } catch {
            throw BenchmarkError.setup("\(error)")
        }
        let secrets = RingerServeProcess.Secrets.random()
        for index in 0..<setup.nodes {
            let node = database.map {
                RingerServeProcess.ClusterNode(
                    databaseURL: $0, redisURL: redis?.url,
                    nodeID: "\(setup.key)-node-\(index)")
            }
            children.nodes.append(
                try await RingerServeProcess.start(
                    executable: executable, fixture: fixture,
                    apnsPort: sandbox.port, node: node, secrets: secrets))
        }
        let nodes = children.nodes
        let serverSamplers = nodes.map { CPUSampler(pid: $0.process.pid) }
        let postgresSampler = setup.usesPostgres ? CPUSampler(name: "postgres") { postgres.cpuSecondsSoFar() } : nil
        let redisSampler = redis?.pid.map { CPUSampler(pid: $0) }
        let sandboxSampler = CPUSampler(pid: sandbox.process.pid)
        children.samplers = serverSamplers + [postgresSampler, redisSampler, sandboxSampler].compactMap { $0 }
        // Each node's Redis subscription and heartbeat start right after it listens.
        try await Task.sleep(for: .seconds(1))

        progress("cluster: \(setup.label): setting up \(options.pairs) callers and callees")
        let generator = try await RingingLoadProcess(
            python: python, script: options.loadScript, servers: nodes,
            sandboxPort: sandbox.port, fixture: fixture, pairs: options.pairs,
            prefix: "\(setup.key)-")
        func load(_ step: RingingStep, rate: Int) async -> ClusterReport.Load {
            let (start, end) = (step.result.windowStart, step.result.windowEnd)
            var serverCores: Double? = 0
            for sampler in serverSamplers {
                let cores = await sampler.cores(from: start, to: end)
                serverCores = serverCores.flatMap { total in cores.map { total + $0 } }
            }
            return ClusterReport.Load(
                rate: rate, sustained: step.isSustained, callsPerSecond: step.callsPerSecond,
                post: LatencySummary(step.result.postMs, unanswered: step.result.offered - step.result.ok),
                push: LatencySummary(step.result.pushMs, unanswered: step.result.offered - step.result.pushMs.count),
                serverCores: serverCores, postgresCores: await postgresSampler?.cores(from: start, to: end),
                redisCores: await redisSampler?.cores(from: start, to: end),
                generatorCores: await generator.cpu.cores(from: start, to: end),
                sandboxCores: await sandboxSampler.cores(from: start, to: end))
        }
        let readsCounters = setup.usesPostgres || setup.usesRedis
        /// The store's and Redis's counters with no call in flight.
        func counters() async throws -> StoreCounters {
            guard readsCounters else { return StoreCounters() }
            try await Task.sleep(for: Self.statisticsDelay)
            var counters = StoreCounters(time: ProcFiles.monotonicSeconds())
            if database != nil, let read = await postgres.counters(database: setup.key) {
                (counters.writeTransactions, counters.walBytes) = read
            }
            if let redis { counters.redisCommands = await redis.commandsProcessed() }
            return counters
        }
        // Counters around the sustained and the latency step, turned into per-call figures once the idle
        // background is known (read last, when the most calls are ringing).
        var sustainedCounters: (StoreCounters, StoreCounters, Int)?
        var latencyCounters: (StoreCounters, StoreCounters, Int)?
        var figures = ClusterReport.Figures(
            setup: setup, probeCallsPerSecond: 0, sustainedCallsPerSecond: nil,
            searchSteps: [], atSustained: nil, atLatencyRate: nil, pushes: PushAccounting())
        do {
            var search = RateSearch(probeConcurrency: RingingLoadProcess.connections, stepSeconds: options.stepSeconds)
            var command: RingingStep.Command? = search.first
            while let next = command {
                progress("cluster: \(setup.label): \(next.line)")
                let before = try await counters()
                let step = try await generator.run(next)
                figures.pushes.add(step.result)
                if case .open(let rate, _) = next {
                    figures.searchSteps.append(
                        .init(rate: rate, sustained: step.isSustained, callsPerSecond: step.callsPerSecond))
                    if step.isSustained {
                        figures.atSustained = await load(step, rate: rate)
                        sustainedCounters = (before, try await counters(), step.result.ok)
                    }
                }
                command = search.next(after: step)
            }
            figures.probeCallsPerSecond = search.probeRate ?? 0
            figures.sustainedCallsPerSecond = search.sustainedRate
            let latency = RingingStep.Command.open(rate: options.latencyRate, seconds: options.stepSeconds)
            progress("cluster: \(setup.label): \(latency.line) (latency and CPU per call)")
            let before = try await counters()
            let step = try await generator.run(latency)
            figures.pushes.add(step.result)
            figures.atLatencyRate = await load(step, rate: options.latencyRate)
            latencyCounters = (before, try await counters(), step.result.ok)
            if readsCounters {
                let idleStart = try await counters()
                try await Task.sleep(for: Self.idleWindow)
                let idle = StoreCounters.perSecond(from: idleStart, to: try await counters())
                figures.idlePerSecond = idle
                if let (before, after, calls) = sustainedCounters {
                    figures.atSustained?.store = StoreCounters.perCall(
                        from: before, to: after, calls: calls, idle: idle)
                }
                if let (before, after, calls) = latencyCounters {
                    figures.atLatencyRate?.store = StoreCounters.perCall(
                        from: before, to: after, calls: calls, idle: idle)
                }
            }
            for node in nodes { try node.checkRunning() }
            try sandbox.checkRunning()
            try redis?.checkRunning()
            try postgres.checkRunning()
        } catch {
            _ = await generator.stop()
            throw error
        }
        _ = await generator.stop()
        return figures
    }
}
