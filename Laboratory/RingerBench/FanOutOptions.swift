/// What the fan-out part (`ringer-lab bench --only fanout`) runs, read from its flags.
public struct FanOutOptions: Hashable, Sendable {
    /// Calls placed in the one burst, each to its own callee with ten devices (`--fanout-calls`).
    public var calls: Int
    /// Tests/Peers/bench_fanout.py (`--fanout-script`).
    public var script: String

    /// The flags this part reads, for the command line's list of known flags.
    public static let flagNames = ["fanout-calls", "fanout-script"]

    /// The defaults: 1,000 calls (issue 11's figure), the script under Tests/Peers.
    public init() {
        calls = 1000
        script = "Tests/Peers/bench_fanout.py"
    }

    /// Reads the flags; a missing one keeps its default (``init()``).
    /// - Parameter flags: flag name (without `--`) to value.
    /// - Throws: ``BenchmarkError/invalidArgument(_:)`` naming the bad flag.
    public init(flags: [String: String]) throws {
        self.init()
        if let text = flags["fanout-calls"] {
            // Each call's callee holds three sockets in the load generator's one process: 5,000 calls are
            // 15,000 descriptors, under the 20,000 a process may hold here.
            guard let number = Int(text), (1...5000).contains(number) else {
                throw BenchmarkError.invalidArgument("--fanout-calls must be a whole number in 1...5000")
            }
            calls = number
        }
        script = flags["fanout-script"] ?? script
    }
}
