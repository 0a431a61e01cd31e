/// What the calls part (`ringer-lab bench --only calls`) runs, read from its flags.
public struct CallsOptions: Hashable, Sendable {
    /// Callers and callees (`--calls-pairs`): each callee has one iPhone; calls go round-robin over the pairs.
    public var pairs: Int
    /// Seconds of each load step (`--calls-step-seconds`).
    public var stepSeconds: Double
    /// The open-loop rates at which server CPU per call is read, calls/s (issue 33: 200 and 500).
    public var rates: [Int]
    /// Calls in flight in the closed loop (`--calls-concurrency`).
    public var concurrency: Int
    /// Tests/Peers/bench_calls_setup.py (`--calls-setup-script`).
    public var setupScript: String
    /// Tests/Peers/bench_gateway.py (`--calls-gateway-script`).
    public var gatewayScript: String

    /// The flags this part reads, for the command line's list of known flags.
    public static let flagNames = [
        "calls-pairs", "calls-step-seconds", "calls-concurrency", "calls-setup-script", "calls-gateway-script",
    ]

    /// The defaults: 100 pairs, 5 s steps at 200 and 500 calls/s, 64 in flight, the scripts under Tests/Peers.
    public init() {
        pairs = 100
        stepSeconds = 5
        rates = [200, 500]
        concurrency = 64
        setupScript = "Tests/Peers/bench_calls_setup.py"
        gatewayScript = "Tests/Peers/bench_gateway.py"
    }

    /// Reads the flags; a missing one keeps its default (``init()``).
    /// - Parameter flags: flag name (without `--`) to value.
    /// - Throws: ``BenchmarkError/invalidArgument(_:)`` naming the bad flag.
    public init(flags: [String: String]) throws {
        self.init()
        pairs = try BenchmarkFlags.whole(flags, "calls-pairs", pairs, 1...2000)
        concurrency = try BenchmarkFlags.whole(flags, "calls-concurrency", concurrency, 1...512)
        stepSeconds = try BenchmarkFlags.stepSeconds(flags, "calls-step-seconds", stepSeconds)
        setupScript = flags["calls-setup-script"] ?? setupScript
        gatewayScript = flags["calls-gateway-script"] ?? gatewayScript
    }
}
