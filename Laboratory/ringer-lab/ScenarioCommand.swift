import Foundation
import RingerCommandLine
import RingerSupport
import RingerScenarios

/// `ringer-lab scenario [--time-scale S] [--nodes N --database URL --redis URL] [--trace] [--verbose]
/// FILE.json|FOLDER…`:
/// validates every file first (exit 2 on the first bad file or flag), runs them one by one (on a cluster of N
/// `ringer serve` processes with `--nodes`), prints PASS/FAIL with each difference (and the trace of a failed run),
/// and exits 0 only when every scenario matched, 1 otherwise. Android phones run in the phone host, the real Kotlin
/// SDK (docs/android-phone-host.md): a file with one exits 2 before anything runs when the host is not built
/// (`make -C android lab`).
enum ScenarioCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        var givenScale: Double?
        var trace = false
        var verbose = false
        var paths: [String] = []
        var clusterFlags = ClusterFlags()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            do {
                let taken = try clusterFlags.take(argument) {
                    index += 1
                    return index < arguments.count ? arguments[index] : nil
                }
                if taken {
                    index += 1
                    continue
                }
            } catch {
                return usage("\(error)")
            }
            switch argument {
            case "--time-scale":
                index += 1
                guard index < arguments.count, let value = Double(arguments[index]), value > 0, value <= 1 else {
                    return usage("--time-scale needs real seconds per scenario second, more than 0 and at most 1")
                }
                givenScale = value
            case "--trace": trace = true
            case "--verbose": verbose = true
            default:
                guard !argument.hasPrefix("--") else { return usage("unknown flag \(argument)") }
                paths.append(argument)
            }
            index += 1
        }
        guard !paths.isEmpty else { return usage("name at least one scenario file or folder") }
        let cluster: LocalStack.Cluster?
        do {
            cluster = try clusterFlags.cluster(environment: ProcessInfo.processInfo.environment)
        } catch {
            return usage("\(error)")
        }

        let scenarios: [Scenario]
        do {
            scenarios = try Scenario.files(in: paths).map { try Scenario.load(path: $0) }
        } catch {
            return usage("\(error)", showUsage: false)
        }
        if scenarios.contains(where: \.hasAndroidPhones) {
            do {
                _ = try AndroidPhoneHost.classpathFile()
            } catch let error as AndroidPhoneHost.HostError {
                return usage(
                    "the scenarios have Android phones, which run in the Android phone host, and it is not built: "
                        + error.message, showUsage: false)
            } catch {
                return usage("\(error)", showUsage: false)
            }
        }
        if let cluster {
            do {
                try ClusterFlags.checkReachable(cluster)
            } catch {
                return usage("\(error)", showUsage: false)
            }
        }
        let scale = givenScale ?? (cluster == nil ? 0.01 : ClusterFlags.defaultTimeScale)
        let logger = verbose ? Logger(label: "ringer.scenario", level: .info) : Logger.silent()
        Signals.stopStacksOnTermination(command: "ringer-lab scenario")
        var runner = ScenarioRunner(timeScale: scale, logger: logger)
        runner.cluster = cluster
        var failed = 0
        for scenario in scenarios {
            let result = await runner.run(scenario)
            await Signals.waitForExitIfEnding()
            write(result.summary)
            if trace || !result.passed { write(result.trace.map { "    " + $0 }.joined(separator: "\n")) }
            if !result.passed { failed += 1 }
        }
        let on = cluster.map { ", \($0.nodes) server node(s) on PostgreSQL and Redis" } ?? ""
        write("\(scenarios.count - failed) of \(scenarios.count) scenarios passed (time scale \(scale)\(on)).")
        return failed == 0 ? 0 : 1
    }

    private static func write(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
    }

    private static func usage(_ message: String, showUsage: Bool = true) -> Int32 {
        let text = "ringer-lab scenario: \(message)\n" + (showUsage ? "\n\(LabUsage.text)\n" : "")
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
        return 2
    }
}
