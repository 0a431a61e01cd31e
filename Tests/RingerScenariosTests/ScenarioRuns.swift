import Foundation
import RingerScenarios
import Testing

/// The suites that play scenarios on a scaled clock, run one at a time: each run is timing-sensitive,
/// and two at once on a 2-core machine would stretch each other's scenario seconds.
@Suite(.serialized) enum ScenarioRuns {
    /// Time scales a scenario is tried at: 100 times faster than real time first. A run that does not
    /// match is repeated slower before it counts as a failure, because `make test` runs every other
    /// suite alongside and a 250 ms stall on a loaded machine is 25 scenario seconds at 0.01, enough
    /// to reorder steps that are seconds apart. A real regression fails at every scale.
    static let scales = [0.01, 0.05, 0.25]

    /// Time scales a scenario is tried at on a cluster: 10 times faster than real time first. An event that crosses
    /// nodes takes a commit, a Redis publish and the other node's write, 50–80 ms on this machine, and a scenario
    /// allows 1 scenario second for a phone to stop ringing after an answer elsewhere (50 ms at 0.05); and a node
    /// whose heartbeat is 10 scenario seconds old is taken for dead, 100 ms at 0.01.
    static let clusterScales = [0.1, 0.25]

    /// Runs `scenario` at each of ``scales`` (``clusterScales`` on a cluster) until one run matches.
    /// - Parameters:
    ///   - cluster: `ringer serve` processes to run it on; nil for one in-process server.
    /// - Returns: the last result and a report of every failed attempt (empty when the first matched).
    static func run(
        _ scenario: Scenario, cluster: LocalStack.Cluster? = nil
    ) async -> (result: ScenarioResult, report: String) {
        var failures: [String] = []
        let scales = cluster == nil ? scales : clusterScales
        func runner(_ scale: Double) -> ScenarioRunner {
            var runner = ScenarioRunner(timeScale: scale)
            runner.cluster = cluster
            return runner
        }
        var result = await runner(scales[0]).run(scenario)
        for slower in scales.dropFirst() where !result.passed {
            failures.append(
                "at time scale \(result.timeScale):\n\(result.summary)\n\(result.trace.joined(separator: "\n"))")
            result = await runner(slower).run(scenario)
        }
        if !result.passed {
            failures.append(
                "at time scale \(result.timeScale):\n\(result.summary)\n\(result.trace.joined(separator: "\n"))")
        } else if !failures.isEmpty {
            print(
                "note: \(scenario.name) matched only at time scale \(result.timeScale); before:\n"
                    + failures.joined(separator: "\n"))
        }
        return (result, failures.joined(separator: "\n\n"))
    }
}
