import Foundation
import RingerBench
import RingerServer

/// `ringer bench`: VoIP pushes per second from Ringer's APNs client, aioapns and h2load to a separate
/// `ringer sandbox` process; ends with one `RESULT …` line. `ringer bench --send URL …` is one sender on
/// its own (the harness runs it as a child process so its CPU time and memory are its own).
enum BenchCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            let options = try CommandLineOptions(
                arguments: arguments, environment: [:],
                known: ["pushes", "concurrency", "python", "aioapns-script", "h2load", "send", "ca-file", "key-file",
                        "key-id", "team-id", "device", "topic", "payload-file", "connections"])
            let connections = try number(options, "connections", default: 2)
            guard (1...16).contains(connections) else { throw ConfigurationError("--connections must be 1...16") }
            let workload = try PushWorkload(pushes: try number(options, "pushes", default: 20_000),
                                            concurrency: try number(options, "concurrency", default: 200))
            if let url = options["send"] {
                return try await send(to: url, options: options, workload: workload, connections: connections)
            }
            let benchmark = Benchmark(options: .init(
                workload: workload, executable: try executablePath(), python: options["python"] ?? "python3",
                aioapnsScript: options["aioapns-script"] ?? "Tests/Peers/bench_aioapns.py",
                h2load: options["h2load"] ?? "h2load", ringerConnections: connections))
            let report = try await benchmark.run { line in
                try? FileHandle.standardError.write(contentsOf: Data("bench: \(line)\n".utf8))
            }
            print(report.render())
            return 0
        } catch {
            try? FileHandle.standardError.write(contentsOf: Data("ringer bench: \(error)\n".utf8))
            return error is ConfigurationError || (error as? BenchmarkError)?.isUsageError == true ? 2 : 1
        }
    }

    /// One sender: prints its figures as one JSON line.
    private static func send(to url: String, options: CommandLineOptions, workload: PushWorkload,
                             connections: Int) async throws -> Int32 {
        func required(_ name: String) throws -> String {
            guard let value = options[name] else { throw ConfigurationError("--send needs --\(name)") }
            return value
        }
        let run = RingerClientRun(url: url, caFile: try required("ca-file"), keyFile: try required("key-file"),
                                  keyID: try required("key-id"), teamID: try required("team-id"),
                                  deviceToken: try required("device"), topic: try required("topic"),
                                  payloadFile: try required("payload-file"), workload: workload,
                                  connections: connections)
        print(try await run.run().jsonLine())
        return 0
    }

    private static func number(_ options: CommandLineOptions, _ name: String, default value: Int) throws -> Int {
        guard let text = options[name] else { return value }
        guard let number = Int(text) else { throw ConfigurationError("--\(name) must be a whole number") }
        return number
    }

    /// This binary, to start `ringer sandbox` and `ringer bench --send` from.
    private static func executablePath() throws -> String {
        do {
            return try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        } catch {
            throw ConfigurationError("cannot find this program's path (/proc/self/exe): \(error)")
        }
    }
}
