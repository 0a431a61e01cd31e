/// What the ringing part (`ringer-lab bench --only ringing`) runs, read from its flags.
public struct RingingOptions: Hashable, Sendable {
    /// Levels of idle sockets (`--idle-sockets 0,5000,10000,max`).
    var levels: [SocketHolderPlan.Level]
    /// Callers and callees (`--ringing-pairs`): each a user with its own socket, callees with an iPhone.
    public var pairs: Int
    /// Seconds of each load step (`--ringing-step-seconds`).
    public var stepSeconds: Double
    /// The offered rate at which latency is measured, calls/s (`--ringing-rate`).
    public var latencyRate: Int
    /// Tests/Peers/bench_ringing.py (`--ringing-script`).
    public var loadScript: String
    /// Tests/Peers/bench_ws_holder.py (`--holder-script`).
    public var holderScript: String

    /// The flags this part reads, for the command line's list of known flags.
    public static let flagNames = [
        "idle-sockets", "ringing-pairs", "ringing-step-seconds", "ringing-rate",
        "ringing-script", "holder-script",
    ]

    /// The defaults: levels 0, 5000, 10000 and the largest; 100 pairs; 3 s steps; latency at 500 calls/s; the
    /// scripts under Tests/Peers.
    public init() {
        levels = [.count(0), .count(5000), .count(10_000), .largest]
        pairs = 100
        stepSeconds = 3
        latencyRate = 500
        loadScript = "Tests/Peers/bench_ringing.py"
        holderScript = "Tests/Peers/bench_ws_holder.py"
    }

    /// Reads the flags; a missing one keeps its default (``init()``).
    /// - Parameter flags: flag name (without `--`) to value.
    /// - Throws: ``BenchmarkError/invalidArgument(_:)`` naming the bad flag.
    public init(flags: [String: String]) throws {
        self.init()
        if let text = flags["idle-sockets"] { levels = try SocketHolderPlan.parseLevels(text) }
        pairs = try BenchmarkFlags.whole(flags, "ringing-pairs", pairs, 1...2000)
        latencyRate = try BenchmarkFlags.whole(flags, "ringing-rate", latencyRate, 1...100_000)
        stepSeconds = try BenchmarkFlags.stepSeconds(flags, "ringing-step-seconds", stepSeconds)
        loadScript = flags["ringing-script"] ?? loadScript
        holderScript = flags["holder-script"] ?? holderScript
    }
}
