import DevCertificates
import Foundation
import RingerTestKit
import RingerSupport

/// The ringing load generator (Tests/Peers/bench_ringing.py) as a child process that sets up its callers and
/// callees once and then runs one step per command: the commands go to its stdin through a pipe, each answer
/// is the next JSON line of its stdout file.
final class RingingLoadProcess: Sendable {
    /// Connections in the load generator's HTTP pool (aiohttp's connector limit).
    static let connections = 64
    /// Calls a step may have unanswered before it skips arrivals (the open loop's bound).
    static let maxInFlight = 2000
    /// Seconds a POST /v1/calls may take before the load generator counts it failed.
    static let requestTimeoutSeconds = 10
    /// The same in ms: what a call without an answer counts as in the latency percentiles.
    static let requestTimeoutMilliseconds = Double(requestTimeoutSeconds * 1000)

    let process: ChildProcess
    /// Its CPU, sampled from its start, so the first step's window is covered.
    let cpu: CPUSampler
    private let commands: FileHandle
    /// How many stdout lines were read.
    private let linesRead = LockedValue(0)

    /// Starts it and waits until its sockets are open.
    /// - Parameters:
    ///   - python: the interpreter.
    ///   - script: bench_ringing.py.
    ///   - server: the running server.
    ///   - sandboxPort: the APNs sandbox's port on 127.0.0.1.
    ///   - fixture: the CA, and the folder for its output.
    ///   - pairs: callers and callees.
    ///   - prefix: user-id prefix, unique per start.
    /// - Throws: ``BenchmarkError`` when it cannot start or set up within 300 s (a server with thousands of idle
    ///   sockets answers slowly).
    convenience init(
        python: String, script: String, server: RingerServeProcess, sandboxPort: Int, fixture: BenchmarkFixture,
        pairs: Int, prefix: String
    ) async throws {
        try await self.init(
            python: python, script: script, servers: [server], sandboxPort: sandboxPort, fixture: fixture,
            pairs: pairs, prefix: prefix)
    }

    /// Starts it against the nodes of a cluster and waits until its sockets are open: pair i's caller is on
    /// node i mod N, its callee on node i+1 mod N (so with N > 1 every call crosses nodes), and the calls go
    /// round-robin over the pairs, hence over the nodes.
    /// - Parameters:
    ///   - servers: the nodes, at least one, sharing one admin key (the first one's file is passed).
    ///   - the rest: as ``init(python:script:server:sandboxPort:fixture:pairs:prefix:)``.
    /// - Throws: ``BenchmarkError`` when there is no node, or as that initialiser.
    init(
        python: String, script: String, servers: [RingerServeProcess], sandboxPort: Int, fixture: BenchmarkFixture,
        pairs: Int, prefix: String
    ) async throws {
        guard let first = servers.first else {
            throw BenchmarkError.invalidArgument("the load generator needs a server")
        }
        var ends: [Int32] = [0, 0]
        // Close-on-exec on both ends: the child gets the read end only as its stdin (dup2 clears the flag).
        guard pipe(&ends) == 0 else { throw BenchmarkError.setup("pipe failed: errno \(errno)") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let stem = fixture.directory.appendingPathComponent("load-\(prefix)")
        let process: ChildProcess
        do {
            process = try ChildProcess(
                [python, script] + servers.flatMap { ["--url", $0.url] } + [
                    "--admin-key-file", first.adminKeyFile.path,
                    "--sandbox-url", "https://127.0.0.1:\(sandboxPort)", "--ca-file",
                    fixture.certificates.caCertificate.path,
                    "--bundle-id", BenchmarkFixture.bundleID, "--prefix", prefix, "--pairs", String(pairs),
                    "--connections", String(Self.connections), "--max-in-flight", String(Self.maxInFlight),
                    "--request-timeout", String(Self.requestTimeoutSeconds),
                ],
                standardOutput: stem.appendingPathExtension("out"), standardError: stem.appendingPathExtension("err"),
                standardInput: ends[0])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[0])
        self.process = process
        cpu = CPUSampler(pid: process.pid)
        commands = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        do {
            _ = try await nextLine(within: .seconds(300), what: "open its sockets")
        } catch {
            _ = await stop()
            throw error
        }
    }

    /// Runs one step.
    /// - Returns: what it measured.
    /// - Throws: ``BenchmarkError`` when the generator dies, answers with an error or takes longer than the
    ///   step plus a minute.
    func run(_ command: RingingStep.Command) async throws -> RingingStep {
        do {
            try commands.write(contentsOf: Data((command.line + "\n").utf8))
        } catch {
            throw BenchmarkError.sender("ringing load generator", "cannot send a step: \(error)")
        }
        let line = try await nextLine(within: .seconds(Int64(command.seconds) + 60), what: "answer \(command.line)")
        return RingingStep(command: command, result: try RingingStep.Result.decode(line: line))
    }

    /// Tells it to quit and waits (SIGKILL after 10 s).
    /// - Returns: its CPU time and peak memory.
    func stop() async -> ProcessUsage {
        try? commands.write(contentsOf: Data("quit\n".utf8))
        try? commands.close()
        let usage = await process.finish(within: .seconds(10)).usage
        cpu.stop()
        return usage
    }

    /// The next stdout line not yet read.
    private func nextLine(within limit: Duration, what: String) async throws -> String {
        let index = linesRead.withLock { $0 }
        let line = try await process.awaitOutput(in: process.standardOutput, within: limit, what: what) {
            text -> String? in
            let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
            // Only whole lines: the last one counts once its newline is written.
            let complete = text.hasSuffix("\n") ? lines.count : lines.count - 1
            return complete > index ? String(lines[index]) : nil
        }
        linesRead.withLock { $0 += 1 }
        if line.contains("\"error\"") {
            throw BenchmarkError.sender("ringing load generator", line)
        }
        return line
    }
}
