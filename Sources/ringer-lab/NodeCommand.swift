import Foundation
import RingerCommandLine
import RingerLogging
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
        let (test, serve): ([String: String], [String])
        let clock: any ServerClock
        var parent: Int32?
        do {
            (test, serve) = try split(arguments)
            if let text = test["test-parent-pid"] {
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
            clock = try testClock(test)
        } catch {
            log.error("\(error)")
            return 2
        }
        if let clock = clock as? ScenarioClock {
            log.warning("test-only time: server time runs \(1 / clock.scale) times faster than real time")
        }
        return await ServeCommand.run(serve, clock: clock, parentProcess: parent, log: log)
    }

    /// Separates the test-only flags (`--name value` or `--name=value`) from `serve`'s.
    /// - Throws: ``ConfigurationError`` for a test flag without a value.
    static func split(_ arguments: [String]) throws -> (test: [String: String], serve: [String]) {
        var test: [String: String] = [:]
        var serve: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let body = argument.hasPrefix("--") ? String(argument.dropFirst(2)) : ""
            let name = body.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            guard testFlags.contains(name) else {
                serve.append(argument)
                index += 1
                continue
            }
            if let equals = body.firstIndex(of: "=") {
                test[name] = String(body[body.index(after: equals)...])
            } else {
                guard index + 1 < arguments.count else { throw ConfigurationError("--\(name) needs a value") }
                index += 1
                test[name] = arguments[index]
            }
            index += 1
        }
        return (test, serve)
    }

    /// The node's clock: a ``ScenarioClock`` for `--test-time-scale` (and `--test-time-origin`), else the system's.
    /// - Throws: ``ConfigurationError`` for a bad value, or an origin without a scale.
    static func testClock(_ test: [String: String]) throws -> any ServerClock {
        guard let text = test["test-time-scale"] else {
            if test["test-time-origin"] != nil {
                throw ConfigurationError("--test-time-origin needs --test-time-scale")
            }
            return SystemServerClock()
        }
        guard let scale = Double(text), scale > 0, scale <= 1 else {
            throw ConfigurationError(
                "--test-time-scale must be real seconds per server second, more than 0 and at most 1, got \(text)")
        }
        var origin = Date()
        if let text = test["test-time-origin"] {
            guard let milliseconds = Int64(text), milliseconds > 0 else {
                throw ConfigurationError("--test-time-origin must be unix milliseconds, got \(text)")
            }
            origin = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
        return ScenarioClock(scale: scale, origin: origin)
    }
}
