import Foundation
import RingerSupport

/// The ``LocalStack``s this process runs and those still starting, so a command ending on `SIGINT` or `SIGTERM`
/// (``LocalStack/shutdownEveryStack()``) leaves no `ringer serve` node, scratch database or temporary folder behind.
/// Once the process is ending no stack starts, and one that finishes starting shuts itself down.
enum LiveStacks {
    private struct State {
        var stacks: [ObjectIdentifier: LocalStack] = [:]
        /// Stacks inside ``LocalStack/start(_:)``, and those shutting themselves down because the process ended
        /// while they started.
        var starting = 0
        var ending = false
    }

    private static let state = LockedValue(State())

    /// Whether ``shutdownAll()`` was called: starts in progress give up at their next wait.
    static var isEnding: Bool { state.withLock { $0.ending } }

    /// Counts a stack as starting.
    /// - Throws: ``LocalStackError`` once the process is ending.
    static func beginStart() throws {
        try state.withLock { state in
            guard !state.ending else { throw LocalStackError("not starting a stack: the process is ending") }
            state.starting += 1
        }
    }

    /// Lists a stack that started.
    /// - Returns: false when the process began ending meanwhile: the caller shuts the stack down and then calls
    ///   ``abandonStart()``.
    static func finishStart(_ stack: LocalStack) -> Bool {
        state.withLock { state in
            guard !state.ending else { return false }
            state.starting -= 1
            state.stacks[ObjectIdentifier(stack)] = stack
            return true
        }
    }

    /// Ends a start that failed, or one that ``finishStart(_:)`` refused, once its stack is shut down.
    static func abandonStart() {
        state.withLock { $0.starting -= 1 }
    }

    /// Unlists a stack that shut down.
    static func remove(_ stack: LocalStack) {
        _ = state.withLock { $0.stacks.removeValue(forKey: ObjectIdentifier(stack)) }
    }

    /// Refuses new stacks, shuts down the listed ones, and waits for the starting ones to give up.
    /// - Parameter seconds: real seconds to wait for starts in progress (each gives up at its next wait for a node).
    static func shutdownAll(within seconds: TimeInterval) async {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let (stacks, starting) = state.withLock { state in
                state.ending = true
                return (Array(state.stacks.values), state.starting)
            }
            for stack in stacks { await stack.shutdown() }
            if stacks.isEmpty, starting == 0 || ContinuousClock.now >= deadline { return }
            if stacks.isEmpty { try? await Task.sleep(for: .milliseconds(50)) }
        }
    }
}
