import Foundation
import RingerTestSupport
import Testing

/// No byte sequence a client sends may crash a server or stall a well-behaved client (issue 26): an independent
/// protocol fuzzer (Tests/Peers/protocol_fuzz_peer.py, raw sockets and the `h2` library) sends malformed HTTP/1.1,
/// `h2c` upgrades, HTTP/2 prefaces and frames (rapid reset, CONTINUATION floods, oversized header lists) to a
/// `ringer serve` process and to every port of a `ringer-lab sandbox` process, and fails if the process dies or a
/// well-behaved client's request, made after every case, is not answered within 2 s.
///
/// Why it exists: `curl --http2 http://…` crashed `ringer serve` (libwebsockets switched to HTTP/2 on `Upgrade:
/// h2c`) and no test had ever sent an `h2c` upgrade; the fuzzer's first run also found libwebsockets' HTTP/2 over
/// TLS aborting the FCM sandbox (docs/decisions/0001-refuse-h2c-upgrade.md). `make test` runs the fixed cases
/// (437 a port); `make fuzz` adds `RINGER_PROTOCOL_FUZZ_ROUNDS` generated ones (5000) with
/// `RINGER_PROTOCOL_FUZZ_SEED`.
@Suite(.serialized) struct ProtocolFuzzTests {
    /// What the fuzzer prints.
    struct Report: Decodable {
        var cases: Int
        var diedAfter: String?
        var probeFailures: [ProbeFailure]
        var maxProbeMs: Double

        struct ProbeFailure: Decodable {
            var after: String
            var error: String
        }
    }

    /// Generated cases after the fixed ones, from the environment (`make fuzz`), else none.
    static var rounds: Int { Int(ProcessInfo.processInfo.environment["RINGER_PROTOCOL_FUZZ_ROUNDS"] ?? "") ?? 0 }
    static var seed: String { ProcessInfo.processInfo.environment["RINGER_PROTOCOL_FUZZ_SEED"] ?? "1" }

    /// Runs the fuzzer against `port` of process `pid`.
    private func fuzz(
        port: Int, pid: Int32, tls caFile: String? = nil, probePath: String = "/healthz"
    ) async throws -> Report {
        var arguments = [
            "python3", PeerScripts.path("protocol_fuzz_peer.py"), "--port", String(port), "--pid", String(pid),
            "--probe-path", probePath, "--seed", Self.seed, "--rounds", String(Self.rounds),
        ]
        if let caFile { arguments += ["--tls", "--ca", caFile] }
        let outcome = try await ChildProcess.run(arguments, timeout: 180 + Double(Self.rounds) * 0.1)
        let line = outcome.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let report = try #require(
            try? decoder.decode(Report.self, from: Data(line.utf8)),
            "the fuzzer printed no report (exit \(outcome.status)): \(outcome.standardError.suffix(2000))")
        #expect(outcome.status == 0, "\(outcome.standardError.suffix(2000))")
        return report
    }

    @Test func noByteSequenceTakesRingerServeDownOrStallsAWellBehavedClient() async throws {
        let served = try ServedRinger()
        defer { served.stop() }
        #expect(await served.waitUntilHealthy())
        let report = try await fuzz(port: served.port, pid: served.process.processIdentifier)
        #expect(report.cases >= 400 + Self.rounds)
        #expect(
            report.diedAfter == nil,
            "ringer serve died after \(report.diedAfter ?? ""); log: \(served.logText.suffix(3000))")
        #expect(report.probeFailures.isEmpty, "\(report.probeFailures.map { "\($0.after): \($0.error)" })")
        #expect(served.process.isRunning)
    }

    @Test func noByteSequenceTakesTheSandboxDownOnAnyOfItsPorts() async throws {
        let sandbox = try SandboxProcess()
        defer { sandbox.stop() }
        let (ports, caFile) = try await sandbox.waitUntilListening()
        for (name, port) in [
            ("APNs (HTTP/2)", ports.apns), ("FCM (HTTP/2)", ports.fcm), ("FCM (HTTP/1.1)", ports.fcmHTTP1),
        ] {
            let report = try await fuzz(
                port: port, pid: sandbox.process.processIdentifier, tls: caFile,
                probePath: "/sandbox/stats")
            #expect(
                report.diedAfter == nil,
                "\(name): died after \(report.diedAfter ?? ""); log: \(sandbox.logText.suffix(3000))")
            #expect(report.probeFailures.isEmpty, "\(name): \(report.probeFailures.map { "\($0.after): \($0.error)" })")
        }
        #expect(sandbox.process.isRunning)
    }
}

/// A `ringer-lab sandbox` child process on ephemeral loopback ports, with its throw-away CA in a folder of its own.
private struct SandboxProcess {
    let process = Process()
    let directory: URL
    let log: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ringer-fuzz-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        log = directory.appendingPathComponent("sandbox.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        process.executableURL = ServeCommandTests.ringerLab
        process.arguments = ["sandbox", "--listen", "127.0.0.1:0"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": directory.path]) { $1 }
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// The three TLS ports and the CA file, once the sandbox says it listens (at most 20 s).
    func waitUntilListening() async throws -> (ports: (apns: Int, fcm: Int, fcmHTTP1: Int), caFile: String) {
        for _ in 0..<200 {
            let text = logText
            if let apns = Self.number(in: text, after: "APNs sandbox listening on https://127.0.0.1:"),
                let fcm = Self.number(in: text, after: "FCM sandbox listening on https://127.0.0.1:"),
                let http1 = Self.number(in: text, after: "(HTTP/2) and https://127.0.0.1:"),
                let ca = text.range(of: "ca=").map({ String(text[$0.upperBound...].prefix { !$0.isWhitespace }) })
            {
                return ((apns, fcm, http1), ca)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSupportError.setup("ringer-lab sandbox did not start: \(logText.suffix(2000))")
    }

    private static func number(in text: String, after marker: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        return Int(String(text[range.upperBound...].prefix { $0.isNumber }))
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
