import DevCertificates
import Foundation

/// `ringer sandbox` as a separate process, so the senders' CPU time and memory are their own.
///
/// It listens on an ephemeral loopback port with the fixture's certificate, trusts the fixture's
/// provider key and knows its one device token, so every well-formed push is accepted. Its log (one
/// line per push) goes to a file in the fixture folder.
struct SandboxProcess: Sendable {
    let process: SpawnedProcess
    /// The bound TCP port on 127.0.0.1.
    let port: Int

    /// Starts the sandbox and waits until it listens.
    /// - Parameters:
    ///   - executable: the `ringer` binary.
    ///   - fixture: certificates, key and device token.
    /// - Returns: the running sandbox.
    /// - Throws: ``BenchmarkError`` when it cannot start or does not listen within 15 seconds.
    static func start(executable: String, fixture: BenchmarkFixture) async throws -> SandboxProcess {
        let output = fixture.directory.appendingPathComponent("sandbox.out")
        let process = try SpawnedProcess(
            [executable, "sandbox", "--listen", "127.0.0.1:0",
             "--cert", fixture.certificates.serverCertificate.path, "--key", fixture.certificates.serverPrivateKey.path,
             "--key-id", BenchmarkFixture.keyID, "--team-id", BenchmarkFixture.teamID, "--key-file", fixture.keyFile.path,
             "--devices", "\(fixture.deviceToken):\(BenchmarkFixture.bundleID)"],
            standardOutput: output, standardError: fixture.directory.appendingPathComponent("sandbox.log"))
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(15))
        while clock.now < deadline {
            if let port = Self.listeningPort(in: (try? String(contentsOf: output, encoding: .utf8)) ?? "") {
                return SandboxProcess(process: process, port: port)
            }
            if let exit = process.exitIfEnded {
                throw BenchmarkError.sandbox("ringer sandbox exited with status \(exit.status): \(process.standardErrorTail())")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        _ = await process.finish(within: .zero)
        throw BenchmarkError.sandbox("ringer sandbox did not listen within 15 s: \(process.standardErrorTail())")
    }

    /// CPU seconds the sandbox has used so far.
    func cpuSecondsSoFar() -> Double? { ProcessUsage.cpuSecondsSoFar(pid: process.pid) }

    /// - Throws: ``BenchmarkError/sandbox(_:)`` if the sandbox has died.
    func checkRunning() throws {
        if let exit = process.exitIfEnded {
            throw BenchmarkError.sandbox("ringer sandbox died with status \(exit.status): \(process.standardErrorTail())")
        }
    }

    /// Stops it with SIGTERM (SIGKILL after 5 seconds).
    /// - Returns: its CPU time and peak memory over the whole run.
    func stop() async -> ProcessUsage {
        process.send(SIGTERM)
        return await process.finish(within: .seconds(5)).usage
    }

    /// The port from the sandbox's start line, `APNs sandbox listening on https://127.0.0.1:<port>`.
    static func listeningPort(in output: String) -> Int? {
        guard let line = output.split(whereSeparator: \.isNewline).first(where: { $0.contains("listening on https://") }),
              let colon = line.lastIndex(of: ":") else { return nil }
        return Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
}
