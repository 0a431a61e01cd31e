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
        _ = try await output(arguments, in: directory)
    }

    /// Runs `/usr/bin/env <arguments>` to completion and returns its standard output.
    /// - Throws: ``Failure`` when the tool cannot start or exits non-zero (its stderr is included).
    public static func output(_ arguments: [String], in directory: URL) async throws -> String {
        // Output goes to temporary files, not pipes, so a chatty tool can never block on a full pipe.
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("ringer-child-\(UUID().uuidString)")
        let outURL = base.appendingPathExtension("out"), errURL = base.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
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
        let output = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
        guard status == 0 else {
            let message = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
            throw Failure(description: "\(arguments.joined(separator: " ")) exited with \(status): \(message)\(output)")
        }
        return output
    }
}
