/// One sender measured in several rounds, interleaved with the others (round 1 runs every such sender once,
/// then round 2, …), so that a spell of noise on a shared machine (another tenant, a frequency change) hits
/// the sender and its ceiling alike rather than one of them. The report's table and `RESULT` line use each
/// sender's median round; every round's throughput is printed beside them.
public struct SenderRounds: Hashable, Sendable {
    /// The row label, e.g. `Ringer FCM, pool of 2`.
    public var label: String
    /// Accepted requests per second of each round, in the order run.
    public var perSecond: [Double]

    /// Creates the rounds of one sender.
    /// - Parameters:
    ///   - label: the sender's name.
    ///   - perSecond: each round's throughput, in order.
    public init(label: String, perSecond: [Double]) {
        self.label = label
        self.perSecond = perSecond
    }

    /// The run of median throughput: the middle one of an odd count, the lower middle of an even count (so
    /// the figure is always one that was measured, with its own CPU and latency).
    /// - Parameter runs: the rounds of one sender; not empty.
    /// - Returns: one of `runs`.
    public static func median(of runs: [SenderFigures]) -> SenderFigures {
        let sorted = runs.sorted { $0.pushesPerSecond < $1.pushesPerSecond }
        return sorted[(sorted.count - 1) / 2]
    }

    /// Requests sent in rounds beyond the first, over all senders: what the report's "all N accepted" adds.
    /// - Parameter rounds: every sender's rounds.
    public static func extraRuns(_ rounds: [SenderRounds]) -> Int {
        rounds.reduce(0) { $0 + max($1.perSecond.count - 1, 0) }
    }

    /// The report's lines: a heading and one line per sender, e.g.
    /// `  Ringer FCM, pool of 2: 15867 13921 16776 (median 15867)`; nothing for a single round.
    /// - Parameters:
    ///   - rounds: every sender's rounds.
    ///   - unit: `pushes/s` or `messages/s`.
    public static func render(_ rounds: [SenderRounds], unit: String) -> [String] {
        guard let count = rounds.map(\.perSecond.count).max(), count > 1 else { return [] }
        var lines = [
            "\(count) interleaved rounds (\(unit), in the order run; the table shows each sender's median round):"
        ]
        for sender in rounds {
            let median = sender.perSecond.sorted()[(sender.perSecond.count - 1) / 2]
            lines.append(
                "  \(sender.label): " + sender.perSecond.map(BenchmarkReport.whole).joined(separator: " ")
                    + " (median \(BenchmarkReport.whole(median)))")
        }
        return lines
    }
}
