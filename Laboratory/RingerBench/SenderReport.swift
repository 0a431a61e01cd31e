import Foundation

/// What one sender measured, printed as one JSON line by `ringer-lab bench --send` and by the aioapns peer
/// (Tests/Peers/bench_aioapns.py), so both are read the same way.
///
/// Times are the sender's own: from just before its first request (connection set-up included) to its
/// last answer.
public struct SenderReport: Codable, Hashable, Sendable {
    /// The sending library and version, e.g. `Ringer APNsClient` or `aioapns 4.0`.
    public var sender: String
    /// Pushes attempted.
    public var pushes: Int
    /// Pushes APNs (the sandbox) answered with 200.
    public var accepted: Int
    /// The first non-200 answer or error, for diagnosis (`403 InvalidProviderToken`, a transport error).
    public var firstFailure: String?
    /// Wall-clock seconds for the whole workload.
    public var seconds: Double
    /// Median time from sending a push to its answer, milliseconds; nil when the sender does not say.
    public var p50Ms: Double?
    /// 99th-percentile time from sending a push to its answer, milliseconds; nil when the sender does not say.
    public var p99Ms: Double?

    /// Creates a report.
    /// - Parameters:
    ///   - sender: library name and version.
    ///   - pushes: pushes attempted.
    ///   - accepted: pushes answered with 200.
    ///   - firstFailure: the first other answer or error, if any.
    ///   - seconds: wall-clock seconds for the workload.
    ///   - latencies: per-push seconds from send to answer (any order), summarised as p50 and p99;
    ///     empty when the sender does not measure them.
    public init(sender: String, pushes: Int, accepted: Int, firstFailure: String?, seconds: Double, latencies: [Double])
    {
        self.sender = sender
        self.pushes = pushes
        self.accepted = accepted
        self.firstFailure = firstFailure
        self.seconds = seconds
        let sorted = latencies.sorted()
        p50Ms = sorted.isEmpty ? nil : Self.percentile(0.50, of: sorted) * 1000
        p99Ms = sorted.isEmpty ? nil : Self.percentile(0.99, of: sorted) * 1000
    }

    /// Accepted pushes per second of wall-clock time.
    public var pushesPerSecond: Double { seconds > 0 ? Double(accepted) / seconds : 0 }

    /// Reads the last line of a sender's stdout.
    /// - Parameter output: everything the sender printed.
    /// - Returns: the report.
    /// - Throws: `DecodingError` when the last non-empty line is not a report.
    public static func decode(fromOutput output: String) throws -> SenderReport {
        let line = output.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(SenderReport.self, from: Data(line.utf8))
    }

    /// The report as one JSON line (snake_case keys, as the Python peer writes them).
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Nearest-rank percentile of sorted values; 0 for none.
    static func percentile(_ fraction: Double, of sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

extension SenderReport {
    /// The report a sender process printed as its last line.
    /// - Parameters:
    ///   - output: its stdout.
    ///   - sender: its name, for the error.
    /// - Returns: the report.
    /// - Throws: ``BenchmarkError/sender(_:_:)`` when the output holds no result.
    static func result(in output: String, of sender: String) throws -> SenderReport {
        do {
            return try decode(fromOutput: output)
        } catch {
            throw BenchmarkError.sender(sender, "no JSON result line in its output")
        }
    }
}
