import Foundation

/// The group part of `ringer-lab bench` (issue 30, BENCHMARKS.md "Group calls"): `ringer-lab sandbox` and
/// `ringer serve` as processes (``SandboxedLoad``), and one run of the load generator, which sets up
/// ``GroupOptions/calls`` x ``GroupOptions/callees`` callees with three devices each, places the group calls at
/// once, answers each, and reports what reached every device before and after its leg ended. Server and sandbox CPU
/// are sampled over the burst.
struct GroupBenchmark: Sendable {
    let options: GroupOptions
    let executable: String
    let python: String

    /// Runs the part.
    /// - Parameters:
    ///   - fixture: keys, certificates and the service account the sandbox trusts.
    ///   - progress: one line per step.
    /// - Returns: the figures.
    /// - Throws: ``BenchmarkError`` when a child fails or the load generator's answer cannot be read.
    func run(fixture: BenchmarkFixture, progress: @Sendable (String) -> Void) async throws -> GroupReport {
        let load = SandboxedLoad(
            name: "group", generatorName: GroupRun.generatorName, executable: executable, python: python)
        return try await load.run(fixture: fixture, progress: progress) { stack in
            progress(
                "group: setting up \(options.calls * options.callees) callees with 3 devices each, then "
                    + "\(options.calls) calls of \(options.callees) at once, then one answer each")
            let (line, generatorCPU) = try await load.generatorLine(
                stack, script: options.script,
                arguments: ["--calls", String(options.calls), "--callees", String(options.callees)],
                fixture: fixture)
            generatorCPU.stop()
            let run = try GroupRun.decode(line: line)
            return GroupReport(
                run: run,
                serverCores: await stack.serverCPU.cores(from: run.windowStart, to: run.windowEnd),
                sandboxCores: await stack.sandboxCPU.cores(from: run.windowStart, to: run.windowEnd),
                cores: ProcessInfo.processInfo.activeProcessorCount, cpuModel: Benchmark.cpuModel(),
                buildMode: Benchmark.buildMode)
        }
    }
}
