import Foundation
import RingerSync

/// The outcome of a finished child process.
struct CommandResult: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs `/usr/bin/env <arguments>` and returns its output; kills it after `timeout` seconds.
///
/// The blocking reads and waits run on their own threads: Dispatch's global queue is only as
/// wide as the CPU count on Linux and the Swift concurrency pool must stay free for the
/// servers' handler tasks.
func runCommand(_ arguments: [String], timeout: Double = 30) async throws -> CommandResult {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            process.standardInput = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
                return
            }
            let finished = Locked(false)
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(timeout)
                while Date() < deadline, !finished.snapshot { Thread.sleep(forTimeInterval: 0.05) }
                if !finished.snapshot, process.isRunning { process.terminate() }
            }
            let errorData = Locked(Data())
            let errorsRead = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let data = errors.fileHandleForReading.readDataToEndOfFile()
                errorData.withLock { $0 = data }
                errorsRead.signal()
            }
            let outputData = output.fileHandleForReading.readDataToEndOfFile()
            errorsRead.wait()
            process.waitUntilExit()
            finished.withLock { $0 = true }
            continuation.resume(returning: CommandResult(
                status: process.terminationStatus,
                stdout: String(decoding: outputData, as: UTF8.self),
                stderr: String(decoding: errorData.snapshot, as: UTF8.self)))
        }
    }
}

/// The path of a peer script in Tests/Peers, found from this file's location.
func peerScript(_ name: String) -> String {
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // LibWebSocketsTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Peers").appendingPathComponent(name).path
}

/// Decodes the JSON object a peer printed on its last stdout line.
func jsonObject(_ text: String) -> [String: Any]? {
    guard let line = text.split(separator: "\n").last,
          let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) else { return nil }
    return object as? [String: Any]
}

/// A long-running child process (a server peer) whose stdout lines can be awaited.
final class PeerProcess: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let lines = Locked<[String]>([])
    private let partial = Locked(Data())

    /// Starts `/usr/bin/env <arguments>`.
    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = input
        output.fileHandleForReading.readabilityHandler = { [lines, partial] handle in
            let chunk = handle.availableData
            if chunk.isEmpty { handle.readabilityHandler = nil; return }
            let complete: [String] = partial.withLock { buffer in
                buffer.append(chunk)
                var found: [String] = []
                while let newline = buffer.firstIndex(of: 0x0A) {
                    found.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
                return found
            }
            lines.withLock { $0.append(contentsOf: complete) }
        }
        try process.run()
    }

    /// The first stdout line, waiting up to `seconds`.
    func firstLine(within seconds: Double = 15) async -> String? {
        _ = await eventually(within: seconds) { !lines.snapshot.isEmpty }
        return lines.snapshot.first
    }

    /// Ends the process (closing stdin first, then SIGTERM) and waits for it.
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
