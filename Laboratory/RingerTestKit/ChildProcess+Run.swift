public import Foundation

extension ChildProcess {
    /// What a finished child left behind.
    public struct Outcome: Sendable {
        /// The exit status, or 128 + the signal number if a signal ended it.
        public let status: Int32
        /// Everything it wrote to stdout, decoded as UTF-8.
        public let standardOutput: String
        /// Everything it wrote to stderr, decoded as UTF-8.
        public let standardError: String
    }

    /// Runs `/usr/bin/env <arguments>` to completion, whatever its exit status: command-line tools (openssl,
    /// curl, h2load, `pg_ctl`, Python scripts) found in PATH. Output goes to temporary files, which are read and
    /// deleted afterwards; stdin is `/dev/null`. Nothing blocks a thread of the cooperative pool while the child
    /// runs. Safe to call from any task, concurrently.
    /// - Parameters:
    ///   - arguments: Tool name and arguments, e.g. `["openssl", "version"]`.
    ///   - directory: Working directory (`env --chdir`), or nil for the current one.
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
        let child = try ChildProcess(
            ["/usr/bin/env"] + (directory.map { ["--chdir=\($0.path)"] } ?? []) + arguments,
            standardOutput: outputURL, standardError: errorURL)
        let exit = await child.finish(within: .seconds(timeout), grace: .seconds(5))
        let standardOutput = String(decoding: (try? Data(contentsOf: outputURL)) ?? Data(), as: UTF8.self)
        let standardError = String(decoding: (try? Data(contentsOf: errorURL)) ?? Data(), as: UTF8.self)
        if exit.timedOut {
            throw TestSupportError.timedOut(arguments, after: timeout, standardError: standardError)
        }
        return Outcome(status: exit.status, standardOutput: standardOutput, standardError: standardError)
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
}
