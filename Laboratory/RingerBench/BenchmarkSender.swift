import DevCertificates
import Foundation

/// One of the programs that send the workload to the sandbox, each over one HTTP/2 connection with the
/// same headers, payload, counts and concurrency, as its own process.
enum BenchmarkSender: Sendable {
    /// Ringer's `APNsClient`, run as `ringer-lab bench --send …`.
    case ringer(executable: String, connections: Int)
    /// aioapns (PyPI) through Tests/Peers/bench_aioapns.py.
    case aioapns(python: String, script: String)
    /// h2load (nghttp2): raw HTTP/2 requests with a fixed provider token, the ceiling.
    case h2load(program: String)

    /// Short name for progress lines and the report.
    var name: String {
        switch self {
        case .ringer(_, let connections): connections == 1 ? "Ringer, 1 connection" : "Ringer, pool of \(connections)"
        case .aioapns: "aioapns"
        case .h2load: "h2load"
        }
    }

    /// The command line that sends `workload` to the sandbox on `port`.
    /// - Parameters:
    ///   - fixture: keys, token, payload.
    ///   - port: the sandbox's port on 127.0.0.1.
    ///   - workload: counts.
    /// - Returns: program and arguments. For h2load they include a provider token: a secret of a
    ///   throw-away key, visible to local users in the process list for the run's few seconds.
    /// - Throws: `JWTError` when the h2load provider token cannot be signed.
    func arguments(fixture: BenchmarkFixture, port: Int, workload: PushWorkload) throws -> [String] {
        let counts = ["--pushes", String(workload.pushes), "--concurrency", String(workload.concurrency)]
        switch self {
        case .ringer(let executable, let connections):
            return [
                executable, "bench", "--send", "https://127.0.0.1:\(port)", "--ca-file",
                fixture.certificates.caCertificate.path,
                "--key-file", fixture.keyFile.path, "--key-id", BenchmarkFixture.keyID, "--team-id",
                BenchmarkFixture.teamID,
                "--device", fixture.deviceToken, "--topic", fixture.topic, "--payload-file", fixture.payloadFile.path,
                "--connections", String(connections),
            ] + counts
        case .aioapns(let python, let script):
            return [
                python, script, "--port", String(port), "--ca", fixture.certificates.caCertificate.path,
                "--key", fixture.keyFile.path, "--key-id", BenchmarkFixture.keyID, "--team-id", BenchmarkFixture.teamID,
                "--token", fixture.deviceToken, "--topic", fixture.topic, "--payload-file", fixture.payloadFile.path,
            ] + counts
        case .h2load(let program):
            // The headers Ringer's APNsClient sends (apns-id fixed: h2load repeats one header set).
            let expiration = Int64(Date().timeIntervalSince1970) + 45
            let headers = [
                "apns-push-type: voip", "apns-topic: \(fixture.topic)", "apns-priority: 10",
                "apns-expiration: \(expiration)", "apns-id: \(UUID().uuidString.lowercased())",
                "content-type: application/json", "authorization: bearer \(try fixture.providerToken())",
            ]
            return H2LoadOutput.arguments(
                program: program, workload: workload, bodyFile: fixture.payloadFile.path,
                headers: headers, url: "https://127.0.0.1:\(port)/3/device/\(fixture.deviceToken)")
        }
    }

    /// Reads the sender's figures from what it printed.
    /// - Parameter output: its stdout (h2load's summary has no latency percentiles, so they stay nil).
    /// - Returns: the report.
    /// - Throws: ``BenchmarkError/sender(_:_:)`` when the output holds no result.
    func report(from output: String) throws -> SenderReport {
        switch self {
        case .ringer, .aioapns:
            return try SenderReport.result(in: output, of: name)
        case .h2load:
            return try H2LoadOutput.parse(output).report(sender: "h2load")
        }
    }
}
