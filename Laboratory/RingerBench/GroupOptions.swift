/// What the group part (`ringer-lab bench --only group`) runs, read from its flags.
public struct GroupOptions: Hashable, Sendable {
    /// Group calls placed in the one burst (`--group-calls`).
    public var calls: Int
    /// Callees of each call, each with three devices (`--group-callees`).
    public var callees: Int
    /// Tests/Peers/bench_group.py (`--group-script`).
    public var script: String

    /// The flags this part reads, for the command line's list of known flags.
    public static let flagNames = ["group-calls", "group-callees", "group-script"]

    /// The defaults: 200 calls of 8 callees (issue 30's figures), the script under Tests/Peers.
    public init() {
        calls = 200
        callees = 8
        script = "Tests/Peers/bench_group.py"
    }

    /// Reads the flags; a missing one keeps its default (``init()``).
    /// - Parameter flags: flag name (without `--`) to value.
    /// - Throws: ``BenchmarkError/invalidArgument(_:)`` naming the bad flag.
    public init(flags: [String: String]) throws {
        self.init()
        if let text = flags["group-calls"] {
            // Each callee holds one socket in the load generator's one process: 1,000 calls of 16 are 16,000
            // descriptors, under the 20,000 a process may hold here.
            guard let number = Int(text), (1...1000).contains(number) else {
                throw BenchmarkError.invalidArgument("--group-calls must be a whole number in 1...1000")
            }
            calls = number
        }
        if let text = flags["group-callees"] {
            // The server's default --max-callees-per-call.
            guard let number = Int(text), (2...16).contains(number) else {
                throw BenchmarkError.invalidArgument("--group-callees must be a whole number in 2...16")
            }
            callees = number
        }
        guard calls * callees <= 16_000 else {
            throw BenchmarkError.invalidArgument("--group-calls x --group-callees must be at most 16000 sockets")
        }
        script = flags["group-script"] ?? script
    }
}
