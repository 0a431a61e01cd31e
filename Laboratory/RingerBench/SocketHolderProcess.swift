import Foundation
import RingerTestKit

/// One socket holder (Tests/Peers/bench_ws_holder.py) as a child process: it opens its idle, authenticated
/// `/v1/events` sockets from one loopback source address, says so on stdout, and holds them until stopped.
struct SocketHolderProcess: Sendable {
    let process: ChildProcess
    /// Sockets it holds.
    let count: Int

    /// Starts it and waits until every socket is open.
    /// - Parameters:
    ///   - python: the interpreter.
    ///   - script: bench_ws_holder.py.
    ///   - server: the running server.
    ///   - count: sockets to open.
    ///   - index: the holder's number: its users' prefix and its source address
    ///     (``SocketHolderPlan/sourceAddress(holder:)``).
    ///   - directory: where its output goes.
    /// - Throws: ``BenchmarkError`` when it fails or has not opened them all within 10 minutes.
    static func start(
        python: String, script: String, server: RingerServeProcess, count: Int, index: Int,
        directory: URL
    ) async throws -> SocketHolderProcess {
        let stem = directory.appendingPathComponent("holder-\(index)")
        let process = try ChildProcess(
            [
                python, script, "--url", server.url, "--admin-key-file", server.adminKeyFile.path, "--count",
                String(count),
                "--source", try SocketHolderPlan.sourceAddress(holder: index), "--prefix", "idle-\(index)-",
            ],
            standardOutput: stem.appendingPathExtension("out"), standardError: stem.appendingPathExtension("err"))
        do {
            let line = try await process.awaitOutput(
                in: process.standardOutput, within: .seconds(600),
                what: "open \(count) sockets"
            ) { text in
                text.hasSuffix("\n") ? text.split(separator: "\n").first.map(String.init) : nil
            }
            guard line == "{\"open\": \(count)}" else {
                throw BenchmarkError.sender("socket holder \(index)", line)
            }
        } catch {
            _ = await process.finish(within: .zero)
            throw error
        }
        return SocketHolderProcess(process: process, count: count)
    }

    /// - Throws: ``BenchmarkError/sender(_:_:)`` if the holder has died (its sockets are gone).
    func checkRunning() throws {
        if let exit = process.exitIfEnded {
            throw BenchmarkError.sender(
                "socket holder", "died with status \(exit.status): \(process.standardErrorTail())")
        }
    }

    /// Stops it with SIGTERM (SIGKILL after 10 s).
    /// - Returns: how many of its sockets the server closed while they were held (nil when it did not say).
    func stop() async -> Int? {
        process.send(SIGTERM)
        _ = await process.finish(within: .seconds(10))
        let text = (try? String(contentsOf: process.standardOutput, encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").last, line.hasPrefix("{\"closed_early\": ") else { return nil }
        return Int(line.dropFirst("{\"closed_early\": ".count).dropLast())
    }
}
