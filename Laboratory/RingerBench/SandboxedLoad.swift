import DevCertificates
import Foundation
import RingerTestKit

/// What the fan-out and group parts share: `ringer-lab sandbox` and `ringer serve` (APNs and FCM both pointed at the
/// sandbox) as processes, their CPU sampled, and one run of a Python load generator against them whose last line of
/// output is its answer. Every child is stopped whatever happens; a child that dies fails the run.
struct SandboxedLoad: Sendable {
    /// The part's name, in progress lines, file names and errors (`fanout`, `group`).
    let name: String
    /// What the load generator is called in errors.
    let generatorName: String
    let executable: String
    let python: String

    /// The running server and sandbox, and their CPU samplers, as ``run(fixture:progress:_:)`` hands them over.
    struct Stack: Sendable {
        let server: RingerServeProcess
        let sandbox: SandboxProcess
        let serverCPU: CPUSampler
        let sandboxCPU: CPUSampler
    }

    /// Starts the sandbox and the server, runs `body`, and stops both.
    /// - Throws: ``BenchmarkError`` when a child fails to start; what `body` throws.
    func run<T: Sendable>(
        fixture: BenchmarkFixture, progress: @Sendable (String) -> Void,
        _ body: (Stack) async throws -> T
    ) async throws -> T {
        progress("\(name): starting ringer-lab sandbox and ringer serve (APNs and FCM)")
        let sandbox = try await SandboxProcess.start(executable: executable, fixture: fixture)
        let server: RingerServeProcess
        do {
            // Ringer's FCM client asks the token endpoint on the sandbox's HTTP/2 port for its access tokens.
            let account = try fixture.fcmServiceAccount(
                tokenURI: "https://127.0.0.1:\(sandbox.fcm.http2)/token", name: name)
            server = try await RingerServeProcess.start(
                executable: executable, fixture: fixture, apnsPort: sandbox.port,
                fcm: (sandbox.fcm.http2, account))
        } catch {
            _ = await sandbox.stop()
            throw error
        }
        let stack = Stack(
            server: server, sandbox: sandbox, serverCPU: CPUSampler(pid: server.process.pid),
            sandboxCPU: CPUSampler(pid: sandbox.process.pid))
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(stack))
        } catch {
            outcome = .failure(error)
        }
        stack.serverCPU.stop()
        stack.sandboxCPU.stop()
        _ = await server.stop()
        _ = await sandbox.stop()
        return try outcome.get()
    }

    /// Runs `script` against the stack (the URLs, keys and certificates every load generator takes, then
    /// `arguments`) and answers its last line of output, with its CPU sampler (stop it once read).
    /// - Throws: ``BenchmarkError`` when the generator fails, runs past 600 s, prints nothing, or a child died.
    func generatorLine(
        _ stack: Stack, script: String, arguments: [String], fixture: BenchmarkFixture
    ) async throws -> (line: String, cpu: CPUSampler) {
        let stem = fixture.directory.appendingPathComponent(name)
        let generator = try ChildProcess(
            [
                python, script, "--url", stack.server.url, "--admin-key-file", stack.server.adminKeyFile.path,
                "--sandbox-url", "https://127.0.0.1:\(stack.sandbox.port)", "--fcm-sandbox-url",
                "https://127.0.0.1:\(stack.sandbox.fcm.http2)",
                "--ca-file", fixture.certificates.caCertificate.path, "--bundle-id", BenchmarkFixture.bundleID,
                "--fcm-project", BenchmarkFixture.fcmProjectID,
            ] + arguments,
            standardOutput: stem.appendingPathExtension("out"), standardError: stem.appendingPathExtension("err"))
        let cpu = CPUSampler(pid: generator.pid)
        let exit = await generator.finish(within: .seconds(600))
        do {
            try stack.server.checkRunning()
            try stack.sandbox.checkRunning()
            guard exit.status == 0, !exit.timedOut else {
                throw BenchmarkError.sender(
                    generatorName,
                    (exit.timedOut ? "ran past 600 s: " : "exited with status \(exit.status): ")
                        + generator.standardErrorTail())
            }
            let text = (try? String(contentsOf: generator.standardOutput, encoding: .utf8)) ?? ""
            guard let line = text.split(separator: "\n").last else {
                throw BenchmarkError.sender(generatorName, "printed nothing: \(generator.standardErrorTail())")
            }
            return (String(line), cpu)
        } catch {
            cpu.stop()
            throw error
        }
    }
}
