import Foundation
import RingerCommandLine
import RingerSupport
import RingerScenarios
import RingerServer

/// `ringer-lab node`: `ringer serve` for the server nodes of a scenario or explore run on a cluster, with what only a
/// test may ask of a server: a clock running faster than real time, shared by every node of the run, and an end
/// when the run's process is gone, so no node outlives its run (even after `SIGKILL`).
///
/// Flags, besides every `ringer serve` flag: `--test-time-scale S` (real seconds per server second, more than 0 and
/// at most 1), `--test-time-origin UNIX_MS` (the instant from which server time runs faster; needs the scale),
/// `--test-parent-pid PID` (must be this process's parent).
enum NodeCommand {
    /// The flags `node` adds to `serve`'s, without dashes.
    static let testFlags: Set<String> = ["test-time-scale", "test-time-origin", "test-parent-pid"]

    static func run(_ arguments: [String]) async -> Int32 {
        let log = Logger(label: "ringer.server")
        let configuration: ServerConfiguration
        let clock: any ServerClock
        var parent: Int32?
        do {
            // One parse of both sets of flags. The test flags are flags only: their `RINGER_*` variables are not read.
            let testVariables = Set(testFlags.map(CommandLineOptions.variable(of:)))
            let environment = ProcessInfo.processInfo.environment.filter { !testVariables.contains($0.key) }
            let options = try CommandLineOptions(
                arguments: arguments, environment: environment, known: ServerConfiguration.flagNames.union(testFlags))
            if let text = options["test-parent-pid"] {
                guard let pid = Int32(text), pid > 1 else {
                    throw ConfigurationError(
                        "--test-parent-pid must be the process id of this server's parent, got \(text)")
                }
                guard getppid() == pid else {
                    throw ConfigurationError(
                        "--test-parent-pid \(pid) is not this server's parent (process \(getppid()) is)")
                }
                parent = pid
            }
            clock = try testClock(scale: options["test-time-scale"], origin: options["test-time-origin"])
            configuration = try ServerConfiguration.parse(options: options)
        } catch {
            log.error("\(error)")
            return 2
        }
        if let clock = clock as? ScenarioClock {
            log.warning("test-only time: server time runs \(1 / clock.scale) times faster than real time")
        }
        return await ServeCommand.run(configuration: configuration, clock: clock, parentProcess: parent, log: log)
    }

    /// The node's clock: a ``ScenarioClock`` for `--test-time-scale` (and `--test-time-origin`), else the system's.
    /// - Parameters:
    ///   - scale: `--test-time-scale`'s value, if given.
    ///   - origin: `--test-time-origin`'s value, if given.
    /// - Throws: ``ConfigurationError`` for a bad value, or an origin without a scale.
    static func testClock(scale: String?, origin: String?) throws -> any ServerClock {
        guard let text = scale else {
            if origin != nil { throw ConfigurationError("--test-time-origin needs --test-time-scale") }
            return SystemServerClock()
        }
        guard let scale = Double(text), scale > 0, scale <= 1 else {
            throw ConfigurationError(
                "--test-time-scale must be real seconds per server second, more than 0 and at most 1, got \(text)")
        }
        var start = Date()
        if let text = origin {
            guard let milliseconds = Int64(text), milliseconds > 0 else {
                throw ConfigurationError("--test-time-origin must be unix milliseconds, got \(text)")
            }
            start = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
        return ScenarioClock(scale: scale, origin: start)
    }
}
