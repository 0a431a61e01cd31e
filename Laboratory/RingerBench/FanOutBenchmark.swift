import Foundation

/// The fan-out part of `ringer-lab bench` (issue 11, BENCHMARKS.md "Fan-out"): `ringer-lab sandbox` and `ringer serve`
/// (APNs and FCM both pointed at the sandbox) as processes, and one run of the load generator, which sets up
/// ``FanOutOptions/calls`` callees with ten devices each, places one call to each at once, and reports what
/// reached every device and how long each push waited. Server, sandbox and load-generator CPU are sampled over
/// the burst.
struct FanOutBenchmark: Sendable {
    let options: FanOutOptions
    let executable: String
    let python: String

    /// Runs the part.
    /// - Parameters:
    ///   - fixture: keys, certificates and the service account the sandbox trusts.
    ///   - progress: one line per step.
    /// - Returns: the figures.
    /// - Throws: ``BenchmarkError`` when a child fails or the load generator's answer cannot be read.
    func run(fixture: BenchmarkFixture, progress: @Sendable (String) -> Void) async throws -> FanOutReport {
        let load = SandboxedLoad(
            name: "fanout", generatorName: FanOutRun.generatorName, executable: executable, python: python)
        return try await load.run(fixture: fixture, progress: progress) { stack in
            progress(
                "fanout: setting up \(options.calls) callees with 10 devices each, then \(options.calls) calls at once")
            // Set-up is about 20 requests and 3 sockets per callee; the burst and its settling, under a minute.
            let (line, generatorCPU) = try await load.generatorLine(
                stack, script: options.script, arguments: ["--calls", String(options.calls)], fixture: fixture)
            defer { generatorCPU.stop() }
            let run = try FanOutRun.decode(line: line)
            return FanOutReport(
                run: run,
                serverCores: await stack.serverCPU.cores(from: run.windowStart, to: run.windowEnd),
                sandboxCores: await stack.sandboxCPU.cores(from: run.windowStart, to: run.windowEnd),
                generatorCores: await generatorCPU.cores(from: run.windowStart, to: run.windowEnd),
                cores: ProcessInfo.processInfo.activeProcessorCount, cpuModel: Benchmark.cpuModel(),
                buildMode: Benchmark.buildMode)
        }
    }
}
