import DevCertificates
import Foundation
import RingerTestKit

/// The fan-out part of `ringer-lab bench` (issue 11, BENCHMARKS.md "Fan-out"): `ringer-lab sandbox` and `ringer serve`
/// (APNs and FCM both pointed at the sandbox) as processes, and one run of the load generator, which sets up
/// ``FanOutOptions/calls`` callees with ten devices each, places one call to each at once, and reports what
/// reached every device and how long each push waited. Server, sandbox and load-generator CPU are sampled over
/// the burst.
///
/// Every child is stopped whatever happens; a child that dies fails the run.
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
        progress("fanout: starting ringer-lab sandbox and ringer serve (APNs and FCM)")
        let sandbox = try await SandboxProcess.start(executable: executable, fixture: fixture)
        let server: RingerServeProcess
        do {
            // Ringer's FCM client asks the token endpoint on the sandbox's HTTP/2 port for its access tokens.
            let account = try fixture.fcmServiceAccount(
                tokenURI: "https://127.0.0.1:\(sandbox.fcm.http2)/token", name: "fanout")
            server = try await RingerServeProcess.start(
                executable: executable, fixture: fixture, apnsPort: sandbox.port,
                fcm: (sandbox.fcm.http2, account))
        } catch {
            _ = await sandbox.stop()
            throw error
        }
        let serverCPU = CPUSampler(pid: server.process.pid)
        let sandboxCPU = CPUSampler(pid: sandbox.process.pid)
        let outcome: Result<FanOutReport, any Error>
        do {
            outcome = .success(
                try await measure(
                    server: server, sandbox: sandbox, serverCPU: serverCPU,
                    sandboxCPU: sandboxCPU, fixture: fixture, progress: progress))
        } catch {
            outcome = .failure(error)
        }
        serverCPU.stop()
        sandboxCPU.stop()
        _ = await server.stop()
        _ = await sandbox.stop()
        return try outcome.get()
    }

    private func measure(
        server: RingerServeProcess, sandbox: SandboxProcess, serverCPU: CPUSampler,
        sandboxCPU: CPUSampler, fixture: BenchmarkFixture,
        progress: @Sendable (String) -> Void
    ) async throws -> FanOutReport {
        progress(
            "fanout: setting up \(options.calls) callees with 10 devices each, then \(options.calls) calls at once")
        let stem = fixture.directory.appendingPathComponent("fanout")
        let generator = try ChildProcess(
            [
                python, options.script, "--url", server.url, "--admin-key-file", server.adminKeyFile.path,
                "--sandbox-url", "https://127.0.0.1:\(sandbox.port)", "--fcm-sandbox-url",
                "https://127.0.0.1:\(sandbox.fcm.http2)",
                "--ca-file", fixture.certificates.caCertificate.path, "--bundle-id", BenchmarkFixture.bundleID,
                "--fcm-project", BenchmarkFixture.fcmProjectID, "--calls", String(options.calls),
            ],
            standardOutput: stem.appendingPathExtension("out"), standardError: stem.appendingPathExtension("err"))
        let generatorCPU = CPUSampler(pid: generator.pid)
        defer { generatorCPU.stop() }
        // Set-up is about 20 requests and 3 sockets per callee; the burst and its settling, under a minute.
        let exit = await generator.finish(within: .seconds(600))
        try server.checkRunning()
        try sandbox.checkRunning()
        guard exit.status == 0, !exit.timedOut else {
            throw BenchmarkError.sender(
                "fan-out load generator",
                (exit.timedOut ? "ran past 600 s: " : "exited with status \(exit.status): ")
                    + generator.standardErrorTail())
        }
        let text = (try? String(contentsOf: generator.standardOutput, encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").last else {
            throw BenchmarkError.sender("fan-out load generator", "printed nothing: \(generator.standardErrorTail())")
        }
        let run = try FanOutRun.decode(line: String(line))
        return FanOutReport(
            run: run,
            serverCores: await serverCPU.cores(from: run.windowStart, to: run.windowEnd),
            sandboxCores: await sandboxCPU.cores(from: run.windowStart, to: run.windowEnd),
            generatorCores: await generatorCPU.cores(from: run.windowStart, to: run.windowEnd),
            cores: ProcessInfo.processInfo.activeProcessorCount, cpuModel: Benchmark.cpuModel(),
            buildMode: Benchmark.buildMode)
    }
}
