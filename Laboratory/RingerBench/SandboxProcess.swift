import DevCertificates
import Foundation
import RingerTestKit

/// `ringer-lab sandbox` as a separate process, so the senders' CPU time and memory are their own.
///
/// It listens on ephemeral loopback ports with the fixture's certificate: APNs, trusting the fixture's
/// provider key and knowing its one device token, and FCM (HTTP/2 and HTTP/1.1), trusting the fixture's
/// service account and knowing its one registration token, so every well-formed push or message is
/// accepted. Its log (one line per request) goes to a file in the fixture folder.
struct SandboxProcess: Sendable {
    let process: ChildProcess
    /// The APNs sandbox's TCP port on 127.0.0.1.
    let port: Int
    /// The FCM sandbox's ports on 127.0.0.1.
    let fcm: FCMPorts

    /// Where the FCM sandbox listens.
    struct FCMPorts: Sendable, Hashable {
        /// HTTP/2 (nghttp2): Ringer's client, firebase-admin's `send_each_async`, h2load.
        var http2: Int
        /// HTTP/1.1 (libwebsockets): firebase-admin's `send_each` and google-auth's token refresh.
        var http1: Int
    }

    /// Starts the sandbox and waits until it listens.
    /// - Parameters:
    ///   - executable: the `ringer-lab` binary.
    ///   - fixture: certificates, key and device token.
    /// - Returns: the running sandbox.
    /// - Throws: ``BenchmarkError`` when it cannot start or does not listen within 15 seconds.
    static func start(executable: String, fixture: BenchmarkFixture) async throws -> SandboxProcess {
        let output = fixture.directory.appendingPathComponent("sandbox.out")
        let process = try ChildProcess(
            [
                executable, "sandbox", "--listen", "127.0.0.1:0",
                "--cert", fixture.certificates.serverCertificate.path, "--key",
                fixture.certificates.serverPrivateKey.path,
                "--key-id", BenchmarkFixture.keyID, "--team-id", BenchmarkFixture.teamID, "--key-file",
                fixture.keyFile.path,
                "--devices", "\(fixture.deviceToken):\(BenchmarkFixture.bundleID)",
                "--fcm-service-account", fixture.fcmServiceAccountFile.path,
                "--fcm-devices", "\(BenchmarkFixture.fcmProjectID):\(fixture.fcmToken)",
            ],
            standardOutput: output, standardError: fixture.directory.appendingPathComponent("sandbox.log"))
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .seconds(15))
        while clock.now < deadline {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let port = Self.listeningPort(in: text), let fcm = Self.fcmPorts(in: text) {
                return SandboxProcess(process: process, port: port, fcm: fcm)
            }
            if let exit = process.exitIfEnded {
                throw BenchmarkError.sandbox(
                    "ringer-lab sandbox exited with status \(exit.status): \(process.standardErrorTail())")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        _ = await process.finish(within: .zero)
        throw BenchmarkError.sandbox("ringer-lab sandbox did not listen within 15 s: \(process.standardErrorTail())")
    }

    /// CPU seconds the sandbox has used so far.
    func cpuSecondsSoFar() -> Double? { ProcessUsage.cpuSecondsSoFar(pid: process.pid) }

    /// - Throws: ``BenchmarkError/sandbox(_:)`` if the sandbox has died.
    func checkRunning() throws {
        if let exit = process.exitIfEnded {
            throw BenchmarkError.sandbox(
                "ringer-lab sandbox died with status \(exit.status): \(process.standardErrorTail())")
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
        guard
            let line = output.split(whereSeparator: \.isNewline).first(where: {
                $0.hasPrefix("APNs sandbox listening on https://")
            }),
            let colon = line.lastIndex(of: ":")
        else { return nil }
        return Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// The ports from the FCM start line, `FCM sandbox listening on https://127.0.0.1:<port> (HTTP/2) and
    /// https://127.0.0.1:<port> (HTTP/1.1, token URI …)`.
    static func fcmPorts(in output: String) -> FCMPorts? {
        guard
            let line = output.split(whereSeparator: \.isNewline).first(where: {
                $0.hasPrefix("FCM sandbox listening on ")
            })
        else { return nil }
        func port(before label: String) -> Int? {
            guard let end = line.range(of: " (\(label)")?.lowerBound,
                let colon = line[..<end].lastIndex(of: ":")
            else { return nil }
            return Int(line[line.index(after: colon)..<end])
        }
        guard let http2 = port(before: "HTTP/2)"), let http1 = port(before: "HTTP/1.1") else { return nil }
        return FCMPorts(http2: http2, http1: http1)
    }
}
