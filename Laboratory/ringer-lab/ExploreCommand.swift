import Foundation
import RingerCommandLine
import RingerSupport
import RingerScenarios

/// `ringer-lab explore [--seed N] [--runs K] [--group] [--time-scale S] [--nodes N --database URL --redis URL] [--trace]
/// [--verbose]`:
/// plays race exploration runs for seeds N … N+K-1 (docs/scenarios.md "Race exploration"; with `--group`, group calls
/// to 2–4 callees; with `--nodes`, on a cluster of `ringer serve` processes whose nodes the scripts kill), prints PASS/FAIL for each and, for
/// a failure, the violated invariants, the script, the replay command and the time line. Exits 0 when
/// every run kept the invariants, 1 otherwise, 2 on a bad flag, or before anything runs when a script has an Android
/// phone and the phone host that plays it is not built (`make -C android lab`).
enum ExploreCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        var seed: UInt64 = 1
        var runs = 1
        var givenScale: Double?
        var trace = false
        var verbose = false
        var group = false
        var clusterFlags = ClusterFlags()
        var index = 0
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            do {
                if try clusterFlags.take(arguments[index], value: value) {
                    index += 1
                    continue
                }
            } catch {
                return usage("\(error)")
            }
            switch arguments[index] {
            case "--seed":
                guard let text = value(), let number = UInt64(text) else {
                    return usage("--seed needs a whole number ≥ 0")
                }
                seed = number
            case "--runs":
                guard let text = value(), let number = Int(text), number > 0 else {
                    return usage("--runs needs a number ≥ 1")
                }
                runs = number
            case "--time-scale":
                guard let text = value(), let number = Double(text), number > 0, number <= 1 else {
                    return usage("--time-scale needs real seconds per scenario second, more than 0 and at most 1")
                }
                givenScale = number
            case "--trace": trace = true
            case "--verbose": verbose = true
            case "--group": group = true
            default: return usage("unknown argument \(arguments[index])")
            }
            index += 1
        }
        let cluster: LocalStack.Cluster?
        do {
            cluster = try clusterFlags.cluster(environment: ProcessInfo.processInfo.environment)
        } catch {
            return usage("\(error)")
        }
        if let cluster {
            do {
                try ClusterFlags.checkReachable(cluster)
            } catch {
                return usage("\(error)", showUsage: false)
            }
        }
        // A script's Android phones run in the phone host: say how to build it before any run fails for want of it.
        let seeds = (0..<runs).lazy.map { seed.addingReportingOverflow(UInt64($0)) }.prefix { !$0.overflow }
        if seeds.contains(where: {
            let nodes = cluster?.nodes ?? 1
            let seed = $0.partialValue
            return
                (group
                ? RaceScript.generateGroup(seed: seed, nodes: nodes) : RaceScript.generate(seed: seed, nodes: nodes))
                .hasAndroidPhones
        }) {
            do {
                _ = try AndroidPhoneHost.classpathFile()
            } catch let error as AndroidPhoneHost.HostError {
                return usage(
                    "the runs have Android phones, which run in the Android phone host, and it is not built: "
                        + error.message, showUsage: false)
            } catch {
                return usage("\(error)", showUsage: false)
            }
        }
        let scale = givenScale ?? (cluster == nil ? 0.04 : ClusterFlags.defaultTimeScale)
        let logger = verbose ? Logger(label: "ringer.explore", level: .info) : Logger.silent()
        var explorer = RaceExplorer(timeScale: scale, logger: logger)
        explorer.cluster = cluster
        explorer.group = group
        Signals.stopStacksOnTermination(command: "ringer-lab explore")
        var failed = 0
        var played = 0
        for offset in 0..<runs {
            // Seeds stop at UInt64.max: a run never wraps round to seed 0.
            let (next, overflow) = seed.addingReportingOverflow(UInt64(offset))
            guard !overflow else { break }
            played += 1
            let outcome = await explorer.run(seed: next)
            await Signals.waitForExitIfEnding()
            if outcome.passed {
                write(outcome.summary)
                if trace {
                    write(
                        (outcome.script.lines.map { "  " + $0 } + ["  trace:"] + outcome.trace.map { "    " + $0 })
                            .joined(separator: "\n"))
                }
            } else {
                failed += 1
                write(outcome.report)
            }
        }
        let on =
            (group ? ", group calls" : "")
            + (explorer.cluster.map { ", \($0.nodes) server node(s) on PostgreSQL and Redis" } ?? "")
        let noun = played == 1 ? "run" : "runs"
        write("\(played - failed) of \(played) \(noun) kept every invariant (time scale \(scale)\(on)).")
        return failed == 0 ? 0 : 1
    }

    private static func write(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
    }

    private static func usage(_ message: String, showUsage: Bool = true) -> Int32 {
        let text = "ringer-lab explore: \(message)\n" + (showUsage ? "\n\(LabUsage.text)\n" : "")
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
        return 2
    }
}
