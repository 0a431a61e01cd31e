import Foundation

/// What the group load generator (Tests/Peers/bench_group.py) measured, decoded from its one JSON line.
struct GroupRun: BurstRun, Hashable {
    /// Group calls placed.
    var calls: Int
    /// Callees of each call.
    var calleesPerCall: Int
    /// Devices of each callee: a VoIP-push iPhone, an FCM Android phone, an app holding its socket.
    var devicesPerCallee: Int
    /// Calls answered 201 with a ringing call.
    var ok: Int
    /// The first failure (status and body, or the error), if any.
    var firstFailure: String?
    /// CLOCK_MONOTONIC seconds: the burst's first POST, and its last answer.
    var windowStart: Double
    var windowEnd: Double
    /// POST /v1/calls -> 201, ms, one per call answered.
    var postMs: [Double]
    /// The call's `created_at` -> the provider's receipt of each ringing push, ms; and by provider.
    var pushQueueMs: [Double]
    var apnsQueueMs: [Double]
    var fcmQueueMs: [Double]
    /// `created_at` -> `call.incoming` read on the socket, ms.
    var socketMs: [Double]
    /// The burst's first POST -> the last device reached, ms; nil when none was.
    var lastRingMs: Double?
    /// Calls x callees x devices.
    var expected: Int
    /// (call, device) pairs reached at least once.
    var reached: Int
    /// `expected - reached`.
    var lost: Int
    /// Extra times a device was reached for one call.
    var duplicates: Int
    /// Rings for a call its user was not rung in.
    var strays: Int
    /// Accepts answered 200, one per call.
    var answered: Int
    /// Devices of the legs the answers ended, and how many of them were told to stop.
    var stopExpected: Int
    var stopped: Int
    /// Ringing pushes or `call.incoming` that reached a device after its leg ended.
    var rungAfterEnd: Int
    /// What the sandboxes and sockets carried, by kind.
    var apnsPushes: Int
    var fcmMessages: Int
    var socketEvents: Int

    /// The generator's name in errors.
    static let generatorName = "group load generator"
}
