import Foundation

/// The closed loop both of Ringer's senders run: `workload.concurrency` requests in flight, a new one started
/// as soon as one is answered, until `workload.pushes` were sent; each request's latency measured.
enum ClosedLoopLoad {
    /// Runs the loop.
    /// - Parameters:
    ///   - workload: counts.
    ///   - sender: the name the report gives the sender.
    ///   - send: sends one request; returns nil when it was accepted, else why not (status and reason, or the
    ///     error). It never throws, so one bad answer does not hide the others.
    /// - Returns: the figures; a request that failed or was refused counts as not accepted.
    static func run(
        _ workload: PushWorkload, sender: String,
        send: @escaping @Sendable () async -> String?
    ) async -> SenderReport {
        let clock = ContinuousClock()
        let start = clock.now
        var latencies: [Double] = []
        latencies.reserveCapacity(workload.pushes)
        var accepted = 0
        var firstFailure: String?
        await withTaskGroup(of: (seconds: Double, failure: String?).self) { group in
            let timed: @Sendable () async -> (seconds: Double, failure: String?) = {
                let begun = clock.now
                let failure = await send()
                return (seconds(begun.duration(to: clock.now)), failure)
            }
            var started = 0
            while started < min(workload.concurrency, workload.pushes) {
                group.addTask(operation: timed)
                started += 1
            }
            while let outcome = await group.next() {
                latencies.append(outcome.seconds)
                if let failure = outcome.failure {
                    if firstFailure == nil { firstFailure = failure }
                } else {
                    accepted += 1
                }
                if started < workload.pushes {
                    group.addTask(operation: timed)
                    started += 1
                }
            }
        }
        return SenderReport(
            sender: sender, pushes: workload.pushes, accepted: accepted, firstFailure: firstFailure,
            seconds: seconds(start.duration(to: clock.now)), latencies: latencies)
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
