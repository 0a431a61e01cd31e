import Foundation
import RingerCommandLine
import RingerScenarios

extension Signals {
    /// For `ringer-lab scenario` and `ringer-lab explore`: from now on `SIGINT` (Ctrl-C), `SIGTERM` (`kill`, a CI job's
    /// timeout) or `SIGHUP` (the terminal closed) shuts down every stack the command runs
    /// (``LocalStack/shutdownEveryStack()``: the `ringer serve` nodes with `SIGTERM`, the run's database, the temporary
    /// folder) and exits 128 + the signal (130, 143, 129), as a shell reports a process killed by it. A second signal
    /// while that runs exits at once: the nodes then end themselves (`--test-parent-pid`), the database and folder stay.
    /// A `SIGKILL` cannot be caught: the same holds for it.
    /// - Parameter command: the command's name, for the lines on standard error.
    static func stopStacksOnTermination(command: String) {
        // Only touched by the handler, which runs one call at a time.
        nonisolated(unsafe) var stopping = false
        onEach([SIGINT, SIGTERM, SIGHUP]) { number in
            guard !stopping else {
                say(
                    "\(command): \(name(of: number)) again: stopping now; the nodes end on their own, the run's database "
                        + "and temporary folder stay")
                exit(128 + number)
            }
            stopping = true
            say("\(command): \(name(of: number)): stopping the run's servers (again to stop at once)")
            Task.detached {
                await LocalStack.shutdownEveryStack()
                exit(128 + number)
            }
        }
    }

    /// Once a signal is stopping the command (``stopStacksOnTermination(command:)``), never returns: the run that just
    /// ended was cut short by its stack's shutdown, so nothing more may be printed or counted, and the signal's task
    /// exits the process. Returns at once otherwise.
    static func waitForExitIfEnding() async {
        while LocalStack.isProcessEnding { try? await Task.sleep(for: .seconds(60)) }
    }

    private static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }

    private static func say(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
    }
}
