public import Foundation

/// A long-lived child process, usually a Python peer server, that announces itself with its first
/// stdout line (e.g. `PORT 41234`) and runs until the test stops it.
///
/// It is `/usr/bin/env <arguments>` with stdin a pipe that only this object writes to: peers exit
/// when their stdin closes, so they never outlive the test process even if it crashes. Stdout is read on
/// a dedicated thread (never the cooperative pool or Dispatch's global queue) and drained after the first
/// line so the peer cannot block on a full pipe; stderr goes to a temporary file quoted in errors.
/// Thread-safe: immutable after ``start(_:in:timeout:)``.
public final class PeerProcess: Sendable {
    /// The first line the peer printed, without its newline.
    public let firstLine: String

    /// Sends a signal to the peer, for peers that change behaviour on one (`freezing_proxy.py`: SIGUSR1, SIGUSR2).
    /// - Parameter number: the signal, e.g. `SIGUSR1`.
    public func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }
    private let process: Process
    private let input: Pipe
    private let exit: OneShot<Int32>
    private let scratch: URL

    private init(firstLine: String, process: Process, input: Pipe, exit: OneShot<Int32>, scratch: URL) {
        self.firstLine = firstLine
        self.process = process
        self.input = input
        self.exit = exit
        self.scratch = scratch
    }

    /// Starts `/usr/bin/env <arguments>` and waits for its first stdout line.
    /// - Parameters:
    ///   - arguments: Tool name and arguments, e.g. `["python3", PeerScripts.path("h2_peer.py")]`.
    ///   - directory: Working directory, or nil for the current one.
    ///   - timeout: Seconds to wait for the first line before the peer is killed.
    /// - Returns: The running peer; call ``stop(grace:)`` when done.
    /// - Throws: ``TestSupportError`` when it cannot start, or ends or stays silent before a full line.
    public static func start(
        _ arguments: [String], in directory: URL? = nil, timeout: Double = 60
    ) async throws
        -> PeerProcess
    {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("ringer-peer-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let errorURL = scratch.appendingPathComponent("stderr")
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        let exit = OneShot<Int32>()
        do {
            guard FileManager.default.createFile(atPath: errorURL.path, contents: nil) else {
                throw TestSupportError.setup("cannot create \(errorURL.path)")
            }
            let errors = try FileHandle(forWritingTo: errorURL)
            defer { try? errors.close() }  // the child keeps its own descriptor
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            if let directory { process.currentDirectoryURL = directory }
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            process.terminationHandler = { exit.fulfil($0.terminationStatus) }
            do {
                try process.run()
            } catch {
                throw TestSupportError.couldNotStart(arguments, "\(error)")
            }
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }

        let line = OneShot<String?>()
        let reader = output.fileHandleForReading
        Thread.detachNewThread { readFirstLine(from: reader, into: line) }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(timeout))
            if line.fulfil(nil) { kill(process.processIdentifier, SIGKILL) }
        }
        let first = await line.value()
        watchdog.cancel()
        guard let first else {
            if !exit.isFulfilled { kill(process.processIdentifier, SIGKILL) }
            let status = await exit.value()
            let standardError = String(decoding: (try? Data(contentsOf: errorURL)) ?? Data(), as: UTF8.self)
            try? FileManager.default.removeItem(at: scratch)
            throw TestSupportError.noFirstLine(arguments, status: status, standardError: standardError)
        }
        return PeerProcess(firstLine: first, process: process, input: input, exit: exit, scratch: scratch)
    }

    /// Starts a peer, runs `body` with it, and always stops the peer afterwards.
    /// - Parameters:
    ///   - arguments: Tool name and arguments.
    ///   - directory: Working directory, or nil for the current one.
    ///   - timeout: Seconds to wait for the first line.
    ///   - body: The test, given the running peer.
    /// - Returns: What `body` returns.
    /// - Throws: What ``start(_:in:timeout:)`` or `body` throws.
    public static func with<T>(
        _ arguments: [String], in directory: URL? = nil, timeout: Double = 60,
        _ body: (PeerProcess) async throws -> T
    ) async throws -> T {
        let peer = try await start(arguments, in: directory, timeout: timeout)
        do {
            let result = try await body(peer)
            await peer.stop()
            return result
        } catch {
            await peer.stop()
            throw error
        }
    }

    /// Closes the peer's stdin (its signal to exit) and waits for it to exit; after `grace` seconds it is
    /// sent SIGTERM, and SIGKILL 5 s later. Deletes its stderr file. Calling it again just returns the status.
    /// - Parameter grace: Seconds the peer may take to exit on its own; 0 sends SIGTERM at once.
    /// - Returns: The exit status (or the signal number that ended it).
    @discardableResult
    public func stop(grace: Double = 10) async -> Int32 {
        try? input.fileHandleForWriting.close()
        let watchdog = Watchdog(process, exit: exit, after: grace)
        let status = await exit.value()
        _ = await watchdog.cancel()
        try? FileManager.default.removeItem(at: scratch)
        return status
    }
}

/// Delivers the first line on `handle` (nil at EOF without one), then drains it to EOF so the child never
/// blocks on a full pipe. Runs on its own thread: the reads block. Uses `read(2)`, which returns whatever
/// is available, because `FileHandle.read(upToCount:)` waits for the full count or EOF.
private func readFirstLine(from handle: FileHandle, into line: OneShot<String?>) {
    var buffer = Data()
    var delivered = false
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        guard !delivered else { continue }
        buffer.append(contentsOf: chunk[0..<count])
        if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            line.fulfil(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
            delivered = true
            buffer = Data()
        }
    }
    line.fulfil(nil)
    try? handle.close()
}
