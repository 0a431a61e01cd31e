import SocketSupport

/// The instant past which one store operation on PostgreSQL gives up, and the limit it came from.
///
/// libpq blocks its thread for as long as the server takes, and a server that hangs (a stalled disk, a paused
/// host) keeps TCP up and never answers: nothing would end the wait. So every wait of an operation — for a
/// pooled connection, to connect, for each answer — polls its socket until this instant at most
/// (``PostgresConnection``, ``PostgresPoolSlots``). Value type; thread-safe.
struct PostgresDeadline: Sendable, Equatable {
    /// When the operation gives up (the continuous clock: it keeps counting while the machine sleeps).
    let instant: ContinuousClock.Instant
    /// The time the operation was given, for messages and the session's server-side limits.
    let limit: Duration

    /// - Parameters:
    ///   - limit: the time the operation may take, more than zero.
    ///   - start: when the operation started.
    init(limit: Duration, from start: ContinuousClock.Instant = .now) {
        self.limit = limit
        instant = start + limit
    }

    /// True once the instant has come.
    func hasPassed(at now: ContinuousClock.Instant = .now) -> Bool { now >= instant }

    /// Milliseconds for `poll(2)` until the instant (rounded up; 0 once passed): `Posix.pollTimeout(until:)`,
    /// the project's one poll-timeout rule.
    var pollTimeout: Int32 { Posix.pollTimeout(until: instant) }

    /// Whichever of this and `other` comes first (this one when `other` is nil).
    func earlier(_ other: PostgresDeadline?) -> PostgresDeadline {
        guard let other, other.instant < instant else { return self }
        return other
    }

    /// The limit in whole milliseconds (``milliseconds(of:)``).
    var limitMilliseconds: Int64 { Self.milliseconds(of: limit) }

    /// `duration` in whole milliseconds, rounded up and at least 1: PostgreSQL's time settings count
    /// milliseconds, and 0 would switch a limit off (PostgreSQL: "Client Connection Defaults").
    static func milliseconds(of duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(1, seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    /// `duration` as messages show it, in seconds to the millisecond: `2 s`, `0.5 s`.
    static func text(of duration: Duration) -> String {
        let milliseconds = milliseconds(of: duration)
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}
