import Foundation

/// What a burst load generator (Tests/Peers/burst.py and its callers) measured, decoded from its one JSON line
/// (snake_case keys): ``FanOutRun``, ``GroupRun``.
protocol BurstRun: Decodable, Sendable {
    /// CLOCK_MONOTONIC seconds: the burst's first POST, and its last answer.
    var windowStart: Double { get }
    var windowEnd: Double { get }
    /// Devices the calls were meant to reach, and (call, device) pairs reached at least once.
    var expected: Int { get }
    var reached: Int { get }
    /// `expected - reached`.
    var lost: Int { get }
    /// Extra times a device was reached for one call, and rings for a call its user was not rung in.
    var duplicates: Int { get }
    var strays: Int { get }
    /// What the sandboxes and sockets carried, by kind.
    var apnsPushes: Int { get }
    var fcmMessages: Int { get }
    var socketEvents: Int { get }
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

    /// Rings that should not have been: a device reached twice for one call, or for a call not its user's.
    var misdelivered: Int { duplicates + strays }

    /// The report's line of what reached the devices, and how.
    var deliveryLine: String {
        "reached \(reached) of \(expected) devices (\(apnsPushes) VoIP pushes, \(fcmMessages) FCM messages, "
            + "\(socketEvents) socket events); lost \(lost), duplicates \(duplicates), strays \(strays)"
    }
}
