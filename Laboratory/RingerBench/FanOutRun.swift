import Foundation

/// What the fan-out load generator (Tests/Peers/bench_fanout.py) measured, decoded from its one JSON line.
struct FanOutRun: Hashable, Sendable, Decodable {
    /// Calls placed.
    var calls: Int
    /// Devices of each callee: VoIP-push iPhones, FCM Android phones and apps holding their socket.
    var devicesPerCall: Int
    /// Calls answered 201 with a ringing call.
    var ok: Int
    /// The first failure (status and body, or the error), if any.
    var firstFailure: String?
    /// CLOCK_MONOTONIC seconds: the burst's first POST, and its last answer.
    var windowStart: Double
    var windowEnd: Double
    /// POST /v1/calls -> 201, ms, one per call answered.
    var postMs: [Double]
    /// The call's `created_at` -> the provider's receipt (APNs sandbox `received_at`, FCM sandbox
    /// `accepted_at`), ms, one per push device reached.
    var pushQueueMs: [Double]
    /// The same for the VoIP pushes only, and for the FCM messages only.
    var apnsQueueMs: [Double]
    var fcmQueueMs: [Double]
    /// `created_at` -> `call.incoming` read on the socket, ms, one per socket reached.
    var socketMs: [Double]
    /// POST began -> the provider's receipt, ms, one per push device reached.
    var pushMs: [Double]
    /// The burst's first POST -> the last device reached, ms; nil when none was.
    var lastRingMs: Double?
    /// Calls x devices per call.
    var expected: Int
    /// (call, device) pairs reached at least once.
    var reached: Int
    /// `expected - reached`: devices that never rang (a failed POST's ten count too).
    var lost: Int
    /// Extra times a device was reached for one call.
    var duplicates: Int
    /// Rings for a call of another user.
    var strays: Int
    /// What the sandboxes and sockets carried, by kind.
    var apnsPushes: Int
    var fcmMessages: Int
    var socketEvents: Int

    /// Decodes the load generator's line.
    /// - Throws: ``BenchmarkError/sender(_:_:)`` for a line that is not its answer.
    static func decode(line: String) throws -> FanOutRun {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(FanOutRun.self, from: Data(line.utf8))
        } catch {
            throw BenchmarkError.sender("fan-out load generator", "unexpected answer \(line.prefix(300)): \(error)")
        }
    }

    /// Seconds from the first POST to the last answer.
    var windowSeconds: Double { max(windowEnd - windowStart, 1e-9) }
}
