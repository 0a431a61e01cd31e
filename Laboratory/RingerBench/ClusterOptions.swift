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
        pairs = try BenchmarkFlags.whole(flags, "cluster-pairs", pairs, 1...2000)
        latencyRate = try BenchmarkFlags.whole(flags, "cluster-rate", latencyRate, 1...100_000)
        stepSeconds = try BenchmarkFlags.stepSeconds(flags, "cluster-step-seconds", stepSeconds)
        loadScript = flags["ringing-script"] ?? loadScript
    }
}
