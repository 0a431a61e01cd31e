/// The PING and idle hang-up timers of every WebSocket of a server, as one timer wheel: a pure value,
/// input in, decisions out, time given by the caller in whole ticks of a monotonic clock (the server's are tenths
/// of a second, ``ServiceLoop/ticksPerSecond``; the doc below says "seconds" for one tick).
///
/// Rule (RFC 6455 §5.5.2, ``WebServer/Configuration/webSocketPingSeconds``): a socket quiet for
/// `pingAfter` seconds gets a PING; one that stays quiet (no data, no PONG) for `2 * pingAfter`
/// seconds is hung up.
///
/// Cost: ``heard(_:at:)``, ``open(_:at:)`` and ``close(_:)`` are O(1) (a heard socket only records the
/// time; it is not moved). The deadlines sit in a ``DeadlineWheel``: ``advance(to:)`` visits one slot per
/// elapsed second and, in it, only the sockets due then; a socket is due at most twice per `pingAfter` seconds whatever its traffic, so the
/// total work is bounded by the PING rate (19,000 sockets at 20 s: under 1,000 visits a second), not by
/// the number of sockets or messages. This replaces lws' retry-and-idle policy, whose per-socket timers
/// sit in one sorted list that every insertion walks (`lws_dll2_add_sorted`, O(n)).
///
/// ```swift
/// var wheel = KeepaliveWheel(pingAfter: 20, now: 0)
/// wheel.open(7, at: 0)
/// wheel.advance(to: 20)   // [.ping(7)]
/// wheel.advance(to: 40)   // [.hangUp(7)]
/// ```
struct KeepaliveWheel {
    /// What the owner must do to one socket.
    enum Decision: Equatable {
        /// Send a PING frame.
        case ping(UInt64)
        /// Close the socket: nothing arrived for twice the PING interval.
        case hangUp(UInt64)
    }

    private struct Entry {
        /// Last second in which anything arrived (or the socket opened).
        var lastHeard: Int
        /// Whether a PING went out since `lastHeard`.
        var pinged = false
    }

    /// Seconds of quiet before a PING.
    let pingAfter: Int
    /// The last second handled by ``advance(to:)``.
    var now: Int { schedule.now }
    private var entries: [UInt64: Entry] = [:]
    /// When each socket is next looked at. No socket is ever due further ahead than `2 * pingAfter` seconds,
    /// the wheel's horizon.
    private var schedule: DeadlineWheel
    /// Sockets looked at by ``advance(to:)`` so far (live or stale): the wheel's work, for tests.
    var visits: Int { schedule.visits }

    /// - Parameters:
    ///   - pingAfter: Seconds of quiet before a PING (at least 1).
    ///   - now: The current second.
    init(pingAfter: Int, now: Int) {
        precondition(pingAfter >= 1, "pingAfter must be positive")
        self.pingAfter = pingAfter
        schedule = DeadlineWheel(horizon: 2 * pingAfter, now: now)
    }

    /// Number of sockets watched.
    var count: Int { entries.count }

    /// Starts watching a socket that just opened.
    /// - Parameters:
    ///   - id: The socket's id (never reused).
    ///   - second: The current second.
    mutating func open(_ id: UInt64, at second: Int) {
        // A caller's second runs ahead of `now` by a tick at most; clamping keeps the slot ring from wrapping.
        entries[id] = Entry(lastHeard: second)
        schedule.arm(id, at: min(max(second, now), now + pingAfter) + pingAfter)
    }

    /// Records that something (data or PONG) arrived on a socket. O(1): the socket keeps its deadline, which
    /// finds it heard and moves it on when it falls due.
    mutating func heard(_ id: UInt64, at second: Int) {
        guard var entry = entries[id] else { return }
        entry.lastHeard = second
        entry.pinged = false
        entries[id] = entry
    }

    /// Stops watching a socket (it closed).
    mutating func close(_ id: UInt64) {
        entries[id] = nil
        schedule.cancel(id)
    }

    /// Moves the clock to `second` and returns the PINGs to send and the sockets to hang up, in the
    /// order they fell due. A clock that did not move forward returns nothing. After a stall (the clock
    /// jumped) quiet is measured up to `second`, and a socket pinged late still gets a second to answer.
    mutating func advance(to second: Int) -> [Decision] {
        var decisions: [Decision] = []
        // Re-armed once the schedule reached `second`, so that no deadline lies a full ring ahead (even after a
        // stall); every new deadline lies after `second`.
        for id in schedule.advance(to: second) {
            guard var entry = entries[id] else { continue }
            let due: Int
            if second - entry.lastHeard < pingAfter {
                // Heard since it was scheduled: wait for a full quiet interval from then.
                due = entry.lastHeard + pingAfter
            } else if !entry.pinged {
                decisions.append(.ping(id))
                entry.pinged = true
                due = max(entry.lastHeard + 2 * pingAfter, second + 1)
            } else {
                decisions.append(.hangUp(id))
                entries[id] = nil
                continue
            }
            entries[id] = entry
            schedule.arm(id, at: due)
        }
        return decisions
    }
}
