/// How much to send: the same for every sender in a run, so their figures compare.
public struct PushWorkload: Hashable, Sendable {
    /// Pushes to send in total.
    public var pushes: Int
    /// Requests in flight at once (each an HTTP/2 stream on the sender's one connection).
    public var concurrency: Int

    /// Creates a workload.
    /// - Parameters:
    ///   - pushes: total pushes, 1…10,000,000.
    ///   - concurrency: requests in flight, 1…10,000 (more than `pushes` is lowered to it).
    /// - Throws: ``BenchmarkError/invalidArgument(_:)`` for a value out of range.
    public init(pushes: Int, concurrency: Int) throws {
        guard (1...10_000_000).contains(pushes) else {
            throw BenchmarkError.invalidArgument("--pushes must be 1...10000000, not \(pushes)")
        }
        guard (1...10_000).contains(concurrency) else {
            throw BenchmarkError.invalidArgument("--concurrency must be 1...10000, not \(concurrency)")
        }
        self.pushes = pushes
        self.concurrency = min(concurrency, pushes)
    }
}
