import Foundation

/// One step of the ringing load generator (Tests/Peers/bench_ringing.py): what it was told, and what it
/// measured, decoded from its JSON answer line.
struct RingingStep: Hashable, Sendable {
    /// What the load generator is told to do, as one stdin line.
    enum Command: Hashable, Sendable {
        /// A closed loop: `concurrency` calls in flight for `seconds` (the capacity probe).
        case closed(concurrency: Int, seconds: Double)
        /// An open loop: `rate` calls a second on a fixed schedule for `seconds`.
        case open(rate: Int, seconds: Double)

        /// The stdin line, e.g. `open 500 3.0`.
        var line: String {
            switch self {
            case .closed(let concurrency, let seconds): return "closed \(concurrency) \(seconds)"
            case .open(let rate, let seconds): return "open \(rate) \(seconds)"
            }
        }

        /// The seconds of arrivals.
        var seconds: Double {
            switch self {
            case .closed(_, let seconds), .open(_, let seconds): return seconds
            }
        }
    }

    /// The load generator's answer, as it prints it (snake_case JSON).
    struct Result: Hashable, Sendable, Decodable {
        /// CLOCK_MONOTONIC seconds when the first call was placed.
        var windowStart: Double
        /// CLOCK_MONOTONIC seconds when the last call was answered (or given up).
        var windowEnd: Double
        /// Calls due by the schedule (open) or placed (closed).
        var offered: Int
        /// Arrivals skipped because the in-flight bound was reached.
        var skipped: Int
        /// Calls answered 201 with a ringing call.
        var ok: Int
        /// The first failure (status and body, or the error), if any.
        var firstFailure: String?
        /// POST /v1/calls -> 201, ms, one per call answered 201.
        var postMs: [Double]
        /// POST -> `call.incoming` on the callee's socket, ms.
        var incomingMs: [Double]
        /// POST -> the VoIP push accepted by the sandbox (its `received_at`), ms.
        var pushMs: [Double]
        /// Calls answered 201 whose `call.incoming` never arrived within the settle time.
        var missingIncoming: Int
        /// Calls answered 201 whose push never reached the sandbox within the settle time.
        var missingPush: Int
        /// VoIP pushes beyond the first for this step's calls (each call must reach the sandbox exactly once);
        /// nil from a load generator that does not count them.
        var duplicatePush: Int?

        /// Decodes one answer line.
        /// - Throws: ``BenchmarkError/sender(_:_:)`` for a line that is not an answer (e.g. `{"error": …}`).
        static func decode(line: String) throws -> Result {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            do {
                return try decoder.decode(Result.self, from: Data(line.utf8))
            } catch {
                throw BenchmarkError.sender("ringing load generator", "unexpected answer \(line.prefix(300)): \(error)")
            }
        }
    }

    /// What was run.
    var command: Command
    /// What it measured.
    var result: Result

    /// Seconds from the first call to the last answer.
    var windowSeconds: Double { max(result.windowEnd - result.windowStart, 1e-9) }

    /// Calls answered 201 per second of the window.
    var callsPerSecond: Double { Double(result.ok) / windowSeconds }

    /// True when the server kept up with an open-loop step: every due call was placed (none skipped at
    /// the bound), answered 201, rang its callee's socket and reached the sandbox, and the last answer came
    /// within ``drainAllowance`` seconds of the last arrival (no queue left building). A closed step is
    /// never "sustained": it only estimates capacity.
    var isSustained: Bool {
        guard case .open = command else { return false }
        return result.skipped == 0 && result.ok == result.offered && result.firstFailure == nil
            && result.missingIncoming == 0 && result.missingPush == 0
            && windowSeconds <= command.seconds + Self.drainAllowance
    }

    /// Seconds after the last scheduled arrival within which the last answer must come for a step to count
    /// as sustained.
    static let drainAllowance = 1.0
}

/// Percentiles of latencies, ms (nearest rank, as ``SenderReport`` computes them), over every call placed:
/// a call with no answer (failed, timed out, never rang) counts as the load generator's timeout, so a
/// percentile that lands on one is a lower bound (``p50IsLowerBound``, ``p99IsLowerBound``), never a figure
/// that leaves the slowest calls out.
public struct LatencySummary: Hashable, Sendable {
    /// The median, ms.
    public var p50: Double
    /// The 99th percentile, ms.
    public var p99: Double
    /// True when the median is a call without an answer: the real one is at least ``p50``.
    public var p50IsLowerBound = false
    /// True when the 99th percentile is a call without an answer: the real one is at least ``p99``.
    public var p99IsLowerBound = false
    /// How many latencies were measured.
    public var count: Int

    /// Summarises latencies.
    /// - Parameters:
    ///   - values: ms, any order.
    ///   - unanswered: calls placed that have no value; each counts as `bound`.
    ///   - bound: ms a call without an answer counts as (the load generator's request timeout).
    /// - Returns: nil when there is nothing to summarise.
    init?(_ values: [Double], unanswered: Int = 0, bound: Double = RingingLoadProcess.requestTimeoutMilliseconds) {
        let missing = max(unanswered, 0)
        guard !values.isEmpty || missing > 0 else { return nil }
        let sorted = values.sorted()
        let total = sorted + Array(repeating: Swift.max(bound, sorted.last ?? 0), count: missing)
        p50 = SenderReport.percentile(0.50, of: total)
        p99 = SenderReport.percentile(0.99, of: total)
        // Nearest rank: percentile f is element ceil(f * n); past the measured ones it is an unanswered call.
        func landsOnMissing(_ fraction: Double) -> Bool {
            missing > 0 && Int((fraction * Double(total.count)).rounded(.up)) > sorted.count
        }
        p50IsLowerBound = landsOnMissing(0.50)
        p99IsLowerBound = landsOnMissing(0.99)
        count = values.count
    }
}
