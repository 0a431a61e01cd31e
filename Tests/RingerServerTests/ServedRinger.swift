import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `ringer serve` child process on a free loopback port, its output in a log file, for tests that
/// look at the process from outside (descriptor limits, RSS, CPU).
struct ServedRinger {
    let process: Process
    let port: Int
    let log: URL
    let adminKey = "served-ringer-admin"
    private let directory: URL

    /// Starts `ringer serve`, optionally under `ulimit -n descriptorLimit`.
    /// - Parameters:
    ///   - descriptorLimit: the child's open-file limit, or nil for the test process's.
    ///   - environment: more settings (`RINGER_…` variables) for the child.
    /// - Throws: when the process cannot start or the temporary folder cannot be made.
    init(descriptorLimit: Int? = nil, environment: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-served-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        log = directory.appendingPathComponent("serve.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        port = try ServeCommandTests.freePort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let limit = descriptorLimit.map { "ulimit -n \($0) && " } ?? ""
        process.arguments = [
            "-c", "\(limit)exec \"$0\" serve --listen 127.0.0.1:\(port)", ServeCommandTests.ringer.path,
        ]
        process.environment = [
            "RINGER_ADMIN_KEY": adminKey,
            "RINGER_USER_TOKEN_SECRET": String(repeating: "e", count: 40),
            "RINGER_DATABASE": directory.appendingPathComponent("db.sqlite").path,
        ]
        .merging(environment) { _, extra in extra }
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// Stops the process (SIGTERM, unless it already exited) and removes its files.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// What the process logged so far.
    var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Waits until /healthz answers 200 (at most about 5 s).
    func waitUntilHealthy() async -> Bool {
        for _ in 0..<100 {
            if let (_, response) = try? await URLSession.shared.data(
                from: URL(string: "http://127.0.0.1:\(port)/healthz")!),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                return true
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// A user token from the admin endpoint.
    func token(for user: String) async throws -> String {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/tokens")!)
        request.httpMethod = "POST"
        request.setValue("Bearer \(adminKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"user_id":"\#(user)"}"#.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?["token"] as? String ?? ""
    }

    /// A field of /proc/<pid>/status in KiB, e.g. `"VmRSS"`.
    func status(_ field: String) -> Int {
        let text = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = text.components(separatedBy: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
