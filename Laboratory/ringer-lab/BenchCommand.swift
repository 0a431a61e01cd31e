import Foundation
import RingerBench
import RingerCommandLine
import RingerServer

/// `ringer-lab bench`: VoIP pushes per second from Ringer's APNs client, aioapns and h2load to a separate
/// `ringer-lab sandbox` process, then FCM ringing messages per second from Ringer's FCM client, firebase-admin and
/// h2load to another, then calls placed on `ringer serve` with idle WebSockets open (the ringing part), then a
/// burst of calls to users with ten devices each (the fan-out part), then a burst of group calls answered once each
/// (the group part), then calls on 1 to 3 nodes on SQLite, PostgreSQL and PostgreSQL + Redis (the cluster part), then
/// what one call costs the server beside a minimal Python gateway (the calls part); each part ends with its `RESULT …`
/// line (`--only apns|fcm|ringing|fanout|group|cluster|calls` runs one).
/// `ringer-lab bench --send URL …` and `ringer-lab bench --send-fcm URL …` are one sender on its own (the harness runs
/// it as a child process so its CPU time and memory are its own).
enum BenchCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            let options = try CommandLineOptions(
                arguments: arguments, environment: [:],
                known: Set(
                    [
                        "pushes", "concurrency", "python", "aioapns-script", "h2load", "send", "ca-file", "key-file",
                        "key-id", "team-id", "device", "topic", "payload-file", "connections", "fcm-messages", "only",
                        "firebase-admin-script", "send-fcm", "service-account", "fcm-token", "ringer-file",
                        "collapse-key", "rounds",
                    ] + RingingOptions.flagNames + FanOutOptions.flagNames + GroupOptions.flagNames
                        + ClusterOptions.flagNames + CallsOptions.flagNames))
            let connections = try number(options, "connections", default: 2)
            guard (1...16).contains(connections) else { throw ConfigurationError("--connections must be 1...16") }
            let rounds = try number(options, "rounds", default: 3)
            guard (1...20).contains(rounds) else { throw ConfigurationError("--rounds must be 1...20") }
            let workload = try PushWorkload(
                pushes: try number(options, "pushes", default: 20_000),
                concurrency: try number(options, "concurrency", default: 200))
            if let url = options["send"] {
                return try await send(to: url, options: options, workload: workload, connections: connections)
            }
            if let url = options["send-fcm"] {
                return try await sendFCM(to: url, options: options, workload: workload, connections: connections)
            }
            let fcmWorkload = try PushWorkload(
                pushes: try number(options, "fcm-messages", default: workload.pushes),
                concurrency: workload.concurrency)
            let parts: Set<BenchmarkPart>
            switch options["only"] {
            case nil: parts = Set(BenchmarkPart.allCases)
            case let name?:
                guard let part = BenchmarkPart(rawValue: name) else {
                    throw ConfigurationError("--only must be apns, fcm, ringing, fanout, group, cluster or calls")
                }
                parts = [part]
            }
            let benchmark = Benchmark(
                options: .init(
                    workload: workload, fcmWorkload: fcmWorkload, parts: parts, executable: try executablePath(),
                    python: options["python"] ?? "python3",
                    aioapnsScript: options["aioapns-script"] ?? "Tests/Peers/bench_aioapns.py",
                    firebaseAdminScript: options["firebase-admin-script"] ?? "Tests/Peers/bench_firebase_admin.py",
                    h2load: options["h2load"] ?? "h2load", ringerConnections: connections, rounds: rounds,
                    ringing: try RingingOptions(
                        flags: Dictionary(
                            uniqueKeysWithValues: RingingOptions.flagNames.compactMap { name in
                                options[name].map { (name, $0) }
                            })),
                    fanout: try FanOutOptions(
                        flags: Dictionary(
                            uniqueKeysWithValues: FanOutOptions.flagNames.compactMap { name in
                                options[name].map { (name, $0) }
                            })),
                    group: try GroupOptions(
                        flags: Dictionary(
                            uniqueKeysWithValues: GroupOptions.flagNames.compactMap { name in
                                options[name].map { (name, $0) }
                            })),
                    cluster: try ClusterOptions(
                        flags: Dictionary(
                            uniqueKeysWithValues: ClusterOptions.flagNames.compactMap { name in
                                options[name].map { (name, $0) }
                            })),
                    calls: try CallsOptions(
                        flags: Dictionary(
                            uniqueKeysWithValues: CallsOptions.flagNames.compactMap { name in
                                options[name].map { (name, $0) }
                            }))))
            let report = try await benchmark.run { line in
                try? FileHandle.standardError.write(contentsOf: Data("bench: \(line)\n".utf8))
            }
            print(report.render())
            return 0
        } catch {
            try? FileHandle.standardError.write(contentsOf: Data("ringer-lab bench: \(error)\n".utf8))
            return error is ConfigurationError || (error as? BenchmarkError)?.isUsageError == true ? 2 : 1
        }
    }

    /// The value of flag `name`, which `mode` (`--send`, `--send-fcm`) needs.
    /// - Throws: ``ConfigurationError`` "`mode` needs --`name`" when it is not given.
    private static func required(_ name: String, _ options: CommandLineOptions, by mode: String) throws -> String {
        guard let value = options[name] else { throw ConfigurationError("\(mode) needs --\(name)") }
        return value
    }

    /// One sender: prints its figures as one JSON line.
    private static func send(
        to url: String, options: CommandLineOptions, workload: PushWorkload,
        connections: Int
    ) async throws -> Int32 {
        func required(_ name: String) throws -> String { try Self.required(name, options, by: "--send") }
        let run = RingerClientRun(
            url: url, caFile: try required("ca-file"), keyFile: try required("key-file"),
            keyID: try required("key-id"), teamID: try required("team-id"),
            deviceToken: try required("device"), topic: try required("topic"),
            payloadFile: try required("payload-file"), workload: workload,
            connections: connections)
        print(try await run.run().jsonLine())
        return 0
    }

    /// One FCM sender: prints its figures as one JSON line.
    private static func sendFCM(
        to url: String, options: CommandLineOptions, workload: PushWorkload,
        connections: Int
    ) async throws -> Int32 {
        func required(_ name: String) throws -> String { try Self.required(name, options, by: "--send-fcm") }
        let run = FCMClientRun(
            url: url, caFile: try required("ca-file"), serviceAccountFile: try required("service-account"),
            token: try required("fcm-token"), ringerFile: try required("ringer-file"),
            collapseKey: try required("collapse-key"), workload: workload, connections: connections)
        print(try await run.run().jsonLine())
        return 0
    }

    private static func number(_ options: CommandLineOptions, _ name: String, default value: Int) throws -> Int {
        guard let text = options[name] else { return value }
        guard let number = Int(text) else { throw ConfigurationError("--\(name) must be a whole number") }
        return number
    }

    /// This binary, to start `ringer-lab sandbox` and `ringer-lab bench --send` from.
    private static func executablePath() throws -> String {
        do {
            return try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        } catch {
            throw ConfigurationError("cannot find this program's path (/proc/self/exe): \(error)")
        }
    }
}
