import Foundation

/// What a burst load generator (Tests/Peers/burst.py and its callers) measured, decoded from its one JSON line
/// (snake_case keys): ``FanOutRun``, ``GroupRun``.
protocol BurstRun: Decodable, Sendable {
    /// CLOCK_MONOTONIC seconds: the burst's first POST, and its last answer.
    var windowStart: Double { get }
    var windowEnd: Double { get }
    /// The generator's name in errors (`fan-out load generator`).
    static var generatorName: String { get }
}

extension BurstRun {
    /// Decodes the load generator's line.
    /// - Throws: ``BenchmarkError/sender(_:_:)`` for a line that is not its answer.
    static func decode(line: String) throws -> Self {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(Self.self, from: Data(line.utf8))
        } catch {
            throw BenchmarkError.sender(generatorName, "unexpected answer \(line.prefix(300)): \(error)")
        }
    }

    /// Seconds from the first POST to the last answer.
    var windowSeconds: Double { max(windowEnd - windowStart, 1e-9) }
}
