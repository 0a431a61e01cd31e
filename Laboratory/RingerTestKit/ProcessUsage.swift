public import Foundation

/// CPU time and peak memory of one finished process, from the `rusage` that `wait4` returns for it.
public struct ProcessUsage: Hashable, Sendable {
    /// User plus system CPU time, seconds.
    public var cpuSeconds: Double
    /// Peak resident set size, KiB (`ru_maxrss`, which Linux reports in kilobytes).
    public var maxRSSKiB: Int

    /// Creates a usage record.
    /// - Parameters:
    ///   - cpuSeconds: user plus system CPU time, seconds.
    ///   - maxRSSKiB: peak resident set size, KiB.
    public init(cpuSeconds: Double, maxRSSKiB: Int) {
        self.cpuSeconds = cpuSeconds
        self.maxRSSKiB = maxRSSKiB
    }

    init(_ usage: rusage) {
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        cpuSeconds = seconds(usage.ru_utime) + seconds(usage.ru_stime)
        maxRSSKiB = Int(usage.ru_maxrss)
    }

    /// CPU time a running process has used so far, seconds: `utime + stime` from `/proc/<pid>/stat`
    /// (proc(5), fields 14 and 15, in clock ticks). Sampled before and after a phase, it tells how busy
    /// the sandbox was while one sender drove it.
    /// - Parameter pid: the process.
    /// - Returns: seconds, or nil when the process is gone or the file cannot be read (not Linux).
    public static func cpuSecondsSoFar(pid: pid_t) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        return cpuSeconds(procStat: text, ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// Parses a `/proc/<pid>/stat` line: fields after the command name, which is in parentheses and may
    /// itself contain spaces and parentheses, hence the split at the last `)`.
    /// - Parameters:
    ///   - procStat: the file's text.
    ///   - ticksPerSecond: `sysconf(_SC_CLK_TCK)`.
    /// - Returns: `(utime + stime) / ticksPerSecond`, or nil for malformed text.
    public static func cpuSeconds(procStat: String, ticksPerSecond: Double) -> Double? {
        guard ticksPerSecond > 0, let close = procStat.lastIndex(of: ")") else { return nil }
        // After ")": field 3 (state) is the first; utime and stime are fields 14 and 15.
        let fields = procStat[procStat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }
}
