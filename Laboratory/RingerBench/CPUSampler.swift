import RingerTestKit
import Foundation
import RingerSupport

/// Samples a running process's CPU time every ``interval`` on its own thread, so the CPU it used within any
/// window the load generator reports (on the same CLOCK_MONOTONIC time line) can be read afterwards.
final class CPUSampler: Sendable {
    /// One reading: CLOCK_MONOTONIC seconds and the process's CPU seconds so far.
    struct Sample: Hashable, Sendable {
        var time: Double
        var cpuSeconds: Double
    }

    /// Seconds between samples.
    static let interval = 0.1

    private let samples = LockedValue([Sample]())
    private let stopped = LockedValue(false)

    /// Starts sampling `pid` until ``stop()``.
    convenience init(pid: pid_t) {
        self.init(name: "\(pid)") { ProcessUsage.cpuSecondsSoFar(pid: pid) }
    }

    /// Starts sampling whatever `read` returns (CPU seconds so far, e.g. of a process tree) until ``stop()``.
    /// - Parameters:
    ///   - name: for the sampling thread's name.
    ///   - read: CPU seconds so far; nil when it cannot be read at the moment.
    init(name: String, read: @escaping @Sendable () -> Double?) {
        let thread = Thread { [samples, stopped] in
            while !stopped.withLock({ $0 }) {
                // A failed read (the process ending) leaves a gap; interpolation spans it.
                if let cpu = read() {
                    samples.withLock { $0.append(Sample(time: ProcFiles.monotonicSeconds(), cpuSeconds: cpu)) }
                }
                Thread.sleep(forTimeInterval: Self.interval)
            }
        }
        thread.name = "bench-cpu-\(name)"
        thread.start()
    }

    /// Stops sampling.
    func stop() { stopped.withLock { $0 = true } }

    /// The CPU the process used from `start` to `end`, as a share of one core (1.0 = one core busy); waits
    /// until a sample after `end` has been taken, so both ends can be interpolated.
    /// - Returns: nil when the samples do not cover the window.
    func cores(from start: Double, to end: Double) async -> Double? {
        let wait = end + 3 * Self.interval - ProcFiles.monotonicSeconds()
        if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
        return Self.cores(samples.withLock { $0 }, from: start, to: end)
    }

    /// The CPU used between two times, over their distance: each end's CPU seconds interpolated linearly
    /// between the samples around it.
    /// - Parameters:
    ///   - samples: in time order.
    ///   - start: window start, seconds on the samples' clock.
    ///   - end: window end, after `start`.
    /// - Returns: cores busy on average, or nil when the samples do not reach both ends.
    static func cores(_ samples: [Sample], from start: Double, to end: Double) -> Double? {
        guard end > start, let atStart = cpu(samples, at: start), let atEnd = cpu(samples, at: end) else { return nil }
        return (atEnd - atStart) / (end - start)
    }

    private static func cpu(_ samples: [Sample], at time: Double) -> Double? {
        guard let after = samples.firstIndex(where: { $0.time >= time }) else { return nil }
        if samples[after].time == time { return samples[after].cpuSeconds }
        guard after > 0 else { return nil }
        let before = samples[after - 1]
        let next = samples[after]
        let fraction = (time - before.time) / (next.time - before.time)
        return before.cpuSeconds + fraction * (next.cpuSeconds - before.cpuSeconds)
    }
}
