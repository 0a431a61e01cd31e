import Foundation

/// CPU time of a server that forks a process per connection (PostgreSQL's postmaster and its backends), read
/// from `/proc` (proc(5)): the parent's own `utime + stime`, plus `cutime + cstime` (the children it has
/// already reaped: backends that ended), plus each live child's `utime + stime`. Sampled before and after a
/// step, the difference is what the whole tree used in between, backends that came and went included.
enum ProcessTreeCPU {
    /// One `/proc/<pid>/stat` line's fields that count here.
    struct Stat: Hashable, Sendable {
        /// Field 4.
        var parent: pid_t
        /// Fields 14 + 15, clock ticks.
        var ownTicks: Double
        /// Fields 16 + 17 (reaped children), clock ticks.
        var childTicks: Double
    }

    /// CPU seconds the tree under `pid` has used so far.
    /// - Parameter pid: the parent (the postmaster).
    /// - Returns: seconds, or nil when the parent's stat cannot be read (it has ended, or this is not Linux).
    static func secondsSoFar(pid: pid_t) -> Double? {
        guard let parent = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        // A child may end between the listing and the read: it is skipped, its time then shows in cutime.
        let others = entries.filter { $0.first?.isNumber == true && $0 != String(pid) }
            .compactMap { try? String(contentsOfFile: "/proc/\($0)/stat", encoding: .utf8) }
        return seconds(parent: parent, pid: pid, others: others, ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The tree's CPU from stat lines.
    /// - Parameters:
    ///   - parent: the parent's `/proc/<pid>/stat` text.
    ///   - pid: the parent's pid.
    ///   - others: other processes' stat texts; those whose parent is `pid` count.
    ///   - ticksPerSecond: `sysconf(_SC_CLK_TCK)`.
    /// - Returns: seconds, or nil when the parent's text is malformed; a malformed other line is skipped.
    static func seconds(parent: String, pid: pid_t, others: [String], ticksPerSecond: Double) -> Double? {
        guard ticksPerSecond > 0, let own = stat(parent) else { return nil }
        let children = others.compactMap(stat).filter { $0.parent == pid }.reduce(0) { $0 + $1.ownTicks }
        return (own.ownTicks + own.childTicks + children) / ticksPerSecond
    }

    /// Parses one stat line: fields after the command name, which is in parentheses and may itself contain
    /// spaces and parentheses, hence the split at the last `)`.
    /// - Returns: nil for malformed text.
    static func stat(_ text: String) -> Stat? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        // After ")": field 3 (state) is the first.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 14, let parent = pid_t(fields[1]), let user = Double(fields[11]),
            let system = Double(fields[12]), let childUser = Double(fields[13]), let childSystem = Double(fields[14])
        else { return nil }
        return Stat(parent: parent, ownTicks: user + system, childTicks: childUser + childSystem)
    }
}
