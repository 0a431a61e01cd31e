import Foundation

/// Runs a child process to completion with a deadline, capturing its output (test support).
struct ChildProcess {
    /// How a finished child ended.
    struct Outcome {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    struct TimedOut: Error, CustomStringConvertible {
        var command: String
        var description: String { "timed out: \(command)" }
    }

    /// The peer script `name` under Tests/Peers, located from this file's path.
    static func peerScript(_ name: String) -> String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // JWTTests
            .deletingLastPathComponent()  // Tests
            .appendingPathComponent("Peers").appendingPathComponent(name).path
    }

    /// Runs `arguments` through `/usr/bin/env` (so `python3` and `openssl` come from PATH).
    /// - Parameter timeout: Seconds before the child is terminated and ``TimedOut`` thrown.
    static func run(_ arguments: [String], timeout: TimeInterval = 60) async throws -> Outcome {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Files, not pipes: a chatty child can never fill a pipe and stall.
        let outPath = scratch.appendingPathComponent("stdout")
        let errPath = scratch.appendingPathComponent("stderr")
        try Data().write(to: outPath)
        try Data().write(to: errPath)
        let out = try FileHandle(forWritingTo: outPath)
        let err = try FileHandle(forWritingTo: errPath)
        defer {
            try? out.close()
            try? err.close()
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let finished = AsyncStream<Void> { continuation in
            process.terminationHandler = { _ in
                continuation.yield()
                continuation.finish()
            }
        }
        try process.run()
        let watchdog = Task { () -> Bool in
            do { try await Task.sleep(for: .seconds(timeout)) } catch { return false }
            process.terminate()
            return true
        }
        for await _ in finished {}
        watchdog.cancel()
        if await watchdog.value { throw TimedOut(command: arguments.joined(separator: " ")) }
        return Outcome(
            status: process.terminationStatus,
            standardOutput: (try? String(contentsOf: outPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: errPath, encoding: .utf8)) ?? "")
    }
}
