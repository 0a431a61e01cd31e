import Dispatch
import Foundation

/// Waits for a termination signal, or for the parent process to go, without blocking a thread.
public enum Signals {
    /// Why a wait ended.
    public enum Termination: Sendable, Equatable {
        /// The signal arrived (`SIGINT`, `SIGTERM`).
        case signal(Int32)
        /// The watched parent is no longer this process's parent: it exited or was killed, and the process was
        /// handed to init or a subreaper (POSIX: getppid).
        case parentGone(Int32)
    }

    /// Replaces the default action of `signals` and returns the first one received.
    public static func wait(for signals: [Int32]) async -> Int32 {
        // With no parent watched, only a signal ends the wait.
        guard case .signal(let number) = await wait(for: signals, orParentGone: nil) else {
            preconditionFailure("no parent was watched")
        }
        return number
    }

    /// Replaces the default action of `signals` and returns on the first one received, or once `parent` is no longer
    /// this process's parent (polled every 250 ms: Linux's PR_SET_PDEATHSIG follows the parent's forking *thread*,
    /// which in a Dispatch or Swift concurrency pool may end while the parent lives).
    /// - Parameter parent: the process id to watch; nil for signals alone.
    public static func wait(for signals: [Int32], orParentGone parent: Int32?) async -> Termination {
        await withCheckedContinuation { (continuation: CheckedContinuation<Termination, Never>) in
            let watch = SignalWatch()
            watch.queue.sync {
                func finish(_ termination: Termination) {
                    guard !watch.fired else { return }
                    watch.fired = true
                    continuation.resume(returning: termination)
                }
                watch.add(signals) { finish(.signal($0)) }
                if let parent {
                    let timer = DispatchSource.makeTimerSource(queue: watch.queue)
                    timer.schedule(deadline: .now(), repeating: .milliseconds(250))
                    timer.setEventHandler { if getppid() != parent { finish(.parentGone(parent)) } }
                    watch.sources.append(timer)
                    timer.resume()
                }
            }
        }
    }
}

extension Signals {
    /// Replaces the default action of `signals` and calls `handler` with each one received, for the life of the
    /// process, one call at a time.
    public static func onEach(_ signals: [Int32], _ handler: @escaping @Sendable (Int32) -> Void) {
        let watch = SignalWatch()
        watch.queue.sync { watch.add(signals, handler) }
    }
}

/// The dispatch sources and whether one fired. Only touched on `queue`.
private final class SignalWatch: @unchecked Sendable {
    // @unchecked: every access happens on `queue`, a serial queue.
    let queue = DispatchQueue(label: "ringer.signals")
    var sources: [any DispatchSourceProtocol] = []
    var fired = false

    /// Replaces the default action of `signals` with a source each that calls `handler`. Call on `queue`.
    func add(_ signals: [Int32], _ handler: @escaping (Int32) -> Void) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            // The handler holds `self`, which holds the sources: they live as long as the process.
            source.setEventHandler { withExtendedLifetime(self) { handler(number) } }
            sources.append(source)
            source.resume()
        }
    }
}
