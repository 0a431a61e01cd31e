import Foundation

/// What the fan-out load generator (Tests/Peers/bench_fanout.py) measured, decoded from its one JSON line.
struct FanOutRun: BurstRun, Hashable {
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

    /// The generator's name in errors.
    static let generatorName = "fan-out load generator"
}
