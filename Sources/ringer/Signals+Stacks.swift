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
}
