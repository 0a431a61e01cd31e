public import Foundation

/// Runs command-line tools (openssl, curl, h2load, Python peers) to completion for the tests.
///
/// Each run is `/usr/bin/env <arguments>`, so tools come from PATH. Output goes to temporary files, not
/// pipes, so a chatty tool can never block on a full pipe; stdin is `/dev/null`. Nothing blocks a
/// thread while the child runs: its termination handler resumes the caller, and the deadline is a
/// `Task.sleep`. Safe to call from any task, concurrently.
public enum ChildProcess {
    /// What a finished child left behind.
    public struct Outcome: Sendable {
        /// The exit status, or the signal number if a signal ended it.
        public let status: Int32
        /// Everything it wrote to stdout, decoded as UTF-8.
        public let standardOutput: String
        /// Everything it wrote to stderr, decoded as UTF-8.
        public let standardError: String
    }

    /// Runs `/usr/bin/env <arguments>` to completion, whatever its exit status.
    /// - Parameters:
    ///   - arguments: Tool name and arguments, e.g. `["openssl", "version"]`.
    ///   - directory: Working directory, or nil for the current one.
    ///   - timeout: Seconds before the child is sent SIGTERM (SIGKILL 5 s later) and the run fails.
    /// - Returns: Exit status and output.
    /// - Throws: ``TestSupportError`` when the child cannot start or runs past `timeout`.
    public static func run(
        _ arguments: [String], in directory: URL? = nil, timeout: Double = 60
    ) async throws -> Outcome {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("ringer-child-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outputURL = scratch.appendingPathComponent("stdout")
        let errorURL = scratch.appendingPathComponent("stderr")
        let output = try emptyFile(outputURL)
        let errors = try emptyFile(errorURL)
        defer {
            try? output.close()
            try? errors.close()
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        let exit = OneShot<Int32>()
        process.terminationHandler = { exit.fulfil($0.terminationStatus) }
        do {
            try process.run()
        } catch {
            throw TestSupportError.couldNotStart(arguments, error)
        }
        let watchdog = Watchdog(process, exit: exit, after: timeout)
        let status = await exit.value()
        let timedOut = await watchdog.cancel()

        let standardOutput = String(decoding: (try? Data(contentsOf: outputURL)) ?? Data(), as: UTF8.self)
        let standardError = String(decoding: (try? Data(contentsOf: errorURL)) ?? Data(), as: UTF8.self)
        if timedOut {
            throw TestSupportError.timedOut(arguments, after: timeout, standardError: standardError)
        }
        return Outcome(status: status, standardOutput: standardOutput, standardError: standardError)
    }

    /// Like ``run(_:in:timeout:)``, but a non-zero exit status is an error.
    /// - Parameters:
    ///   - arguments: Tool name and arguments.
    ///   - directory: Working directory, or nil for the current one.
    ///   - timeout: Seconds before the child is terminated and the run fails.
    /// - Returns: The outcome of a run that exited with status 0.
    /// - Throws: ``TestSupportError`` when the child cannot start, runs past `timeout` or exits non-zero;
    ///   the message quotes its stderr (and stdout).
    @discardableResult
    public static func check(
        _ arguments: [String], in directory: URL? = nil, timeout: Double = 60
    ) async throws -> Outcome {
        let outcome = try await run(arguments, in: directory, timeout: timeout)
        guard outcome.status == 0 else {
            throw TestSupportError.failed(
                arguments, status: outcome.status, standardError: outcome.standardError,
                standardOutput: outcome.standardOutput)
        }
        return outcome
    }

    /// Creates (or empties) `url` and opens it for writing.
    static func emptyFile(_ url: URL) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw TestSupportError.setup("cannot create \(url.path)")
        }
        return try FileHandle(forWritingTo: url)
    }
}
