public import Foundation

/// Runs command-line tools for the tests without blocking Swift's cooperative threads.
public enum ChildProcess {
    /// Failure of a tool run.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `/usr/bin/env <arguments>` to completion.
    /// - Parameters:
    ///   - arguments: Tool name and arguments, e.g. `["openssl", "version"]`.
    ///   - directory: Working directory.
    /// - Throws: ``Failure`` when the tool cannot start or exits non-zero (its stderr is included).
    public static func run(_ arguments: [String], in directory: URL) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in
                continuation.resume(returning: finished.terminationStatus)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard status == 0 else {
            throw Failure(description: "\(arguments.joined(separator: " ")) exited with \(status): \(message)")
        }
    }
}
