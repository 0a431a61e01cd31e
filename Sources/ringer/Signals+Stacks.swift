import Foundation
import RingerScenarios

extension Signals {
    /// For `ringer scenario` and `ringer explore`: from now on `SIGINT` (Ctrl-C) or `SIGTERM` (`kill`, a CI job's
    /// timeout) shuts down every stack the command runs (``LocalStack/shutdownEveryStack()``: the `ringer serve` nodes,
    /// the run's database, the temporary folder) and exits 128 + the signal (130, 143), as a shell reports a process
    /// killed by it. A `SIGKILL` cannot be caught: the nodes then end themselves (`--test-parent-pid`).
    /// - Parameter command: the command's name, for the line on standard error.
    static func stopStacksOnTermination(command: String) {
        Task.detached {
            let number = await wait(for: [SIGINT, SIGTERM])
            let name = number == SIGINT ? "SIGINT" : "SIGTERM"
            try? FileHandle.standardError.write(contentsOf: Data("\(command): \(name): stopping the run's servers\n".utf8))
            await LocalStack.shutdownEveryStack()
            exit(128 + number)
        }
    }

    /// Once a signal is stopping the command (``stopStacksOnTermination(command:)``), never returns: the run that just
    /// ended was cut short by its stack's shutdown, so nothing more may be printed or counted, and the signal's task
    /// exits the process. Returns at once otherwise.
    static func waitForExitIfEnding() async {
        while LocalStack.isProcessEnding { try? await Task.sleep(for: .seconds(60)) }
    }
}
