import Foundation

/// Ends a child that outlives its deadline: SIGTERM, then SIGKILL five seconds later if it still runs.
///
/// A guard, not synchronisation: the caller awaits the child's exit and then cancels the watchdog.
/// It sleeps with `Task.sleep`, so it holds no thread while it waits.
struct Watchdog: Sendable {
    private let task: Task<Bool, Never>

    /// Starts watching.
    /// - Parameters:
    ///   - process: A running child.
    ///   - exit: Fulfilled with the exit status by the child's termination handler.
    ///   - seconds: Delay before SIGTERM, in seconds; 0 signals at once.
    init(_ process: Process, exit: OneShot<Int32>, after seconds: Double) {
        task = Task {
            do { try await Task.sleep(for: .seconds(seconds)) } catch { return false }
            guard !exit.isFulfilled else { return false }
            process.terminate()
            do { try await Task.sleep(for: .seconds(5)) } catch { return true }
            if !exit.isFulfilled { kill(process.processIdentifier, SIGKILL) }
            return true
        }
    }

    /// Stops watching.
    /// - Returns: true if the watchdog had to signal the child.
    func cancel() async -> Bool {
        task.cancel()
        return await task.value
    }
}
