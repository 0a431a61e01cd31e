/// What the cluster part (`ringer-lab bench --only cluster`) runs, read from its flags.
public struct ClusterOptions: Hashable, Sendable {
    /// Callers and callees (`--cluster-pairs`), spread over the nodes.
    public var pairs: Int
    /// Seconds of each load step (`--cluster-step-seconds`).
    public var stepSeconds: Double
    /// The offered rate at which every set-up's latency and CPU per call are measured, calls/s
    /// (`--cluster-rate`): the same for all, so their costs compare; below what the slowest sustains.
    public var latencyRate: Int
    /// Tests/Peers/bench_ringing.py (`--ringing-script`, shared with the ringing part).
    public var loadScript: String

    /// The flags this part reads, for the command line's list of known flags (`ringing-script` is the ringing
    /// part's too).
    public static let flagNames = ["cluster-pairs", "cluster-step-seconds", "cluster-rate", "ringing-script"]

    /// The defaults: 100 pairs, 3 s steps, latency at 100 calls/s, the script under Tests/Peers.
    public init() {
        pairs = 100
        stepSeconds = 3
        latencyRate = 100
        loadScript = "Tests/Peers/bench_ringing.py"
    }

    /// Reads the flags; a missing one keeps its default (``init()``).
    /// - Parameter flags: flag name (without `--`) to value.
    /// - Throws: ``BenchmarkError/invalidArgument(_:)`` naming the bad flag.
    public init(flags: [String: String]) throws {
        self.init()
        func whole(_ name: String, _ value: Int, _ range: ClosedRange<Int>) throws -> Int {
            guard let text = flags[name] else { return value }
            guard let number = Int(text), range.contains(number) else {
                throw BenchmarkError.invalidArgument(
                    "--\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
            }
            return number
        }
        pairs = try whole("cluster-pairs", pairs, 1...2000)
        latencyRate = try whole("cluster-rate", latencyRate, 1...100_000)
        if let text = flags["cluster-step-seconds"] {
            guard let seconds = Double(text), seconds >= 0.5, seconds <= 600 else {
                throw BenchmarkError.invalidArgument("--cluster-step-seconds must be seconds in 0.5...600")
            }
            stepSeconds = seconds
        }
        loadScript = flags["ringing-script"] ?? loadScript
    }
}
