import Foundation

/// Runs command-line tools (openssl, curl, h2load, python3) as child processes for the tests.
enum Tool {
    /// What a finished tool left behind.
    struct Result {
        let status: Int32
        let output: String
        let errorOutput: String
    }

    /// A tool that could not start or ran past its deadline.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `/usr/bin/env <arguments>` to completion; output goes to temporary files, so large output can
    /// never block the child on a full pipe.
    /// - Parameters:
    ///   - arguments: Tool name and arguments.
    ///   - directory: Working directory, or the current one.
    ///   - timeout: Seconds before the child is terminated and ``Failure`` thrown.
    /// - Returns: Exit status and output.
    static func run(_ arguments: [String], in directory: URL? = nil, timeout: Double = 60) async throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("h2server-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outputURL = scratch.appendingPathComponent("stdout")
        let errorURL = scratch.appendingPathComponent("stderr")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? errors.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let timedOut = Locked(false)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in continuation.resume(returning: finished.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if process.isRunning {
                    timedOut.withLock { $0 = true }
                    process.terminate()
                }
            }
        }
        let stdout = String(decoding: (try? Data(contentsOf: outputURL)) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: (try? Data(contentsOf: errorURL)) ?? Data(), as: UTF8.self)
        if timedOut.withLock({ $0 }) {
            throw Failure(description: "\(arguments.joined(separator: " ")) ran over \(timeout) s: \(stderr)")
        }
        return Result(status: status, output: stdout, errorOutput: stderr)
    }

    /// Like ``run(_:in:timeout:)`` but throws when the exit status is not 0.
    @discardableResult
    static func check(_ arguments: [String], in directory: URL? = nil, timeout: Double = 60) async throws -> Result {
        let result = try await run(arguments, in: directory, timeout: timeout)
        guard result.status == 0 else {
            throw Failure(description: "\(arguments.joined(separator: " ")) exited with \(result.status): \(result.errorOutput)")
        }
        return result
    }
}
