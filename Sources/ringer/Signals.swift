import Dispatch
import Foundation

/// Waits for a termination signal without blocking a thread.
enum Signals {
    /// Replaces the default action of `signals` and returns the first one received.
    static func wait(for signals: [Int32]) async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let watch = SignalWatch()
            watch.queue.sync {
                for number in signals {
                    signal(number, SIG_IGN)
                    let source = DispatchSource.makeSignalSource(signal: number, queue: watch.queue)
                    // The handler holds `watch`, which holds the sources: they live as long as the process.
                    source.setEventHandler {
                        guard !watch.fired else { return }
                        watch.fired = true
                        continuation.resume(returning: number)
                    }
                    watch.sources.append(source)
                    source.resume()
                }
            }
        }
    }
}

/// The signal sources and whether one fired. Only touched on `queue`.
private final class SignalWatch: @unchecked Sendable {
    // @unchecked: every access happens on `queue`, a serial queue.
    let queue = DispatchQueue(label: "ringer.signals")
    var sources: [any DispatchSourceSignal] = []
    var fired = false
}
