/// One-shot deadlines of many ids as a timer wheel: a pure value, time given by the caller in whole ticks of a
/// monotonic clock (the server's are tenths of a second, ``ServiceLoop/ticksPerSecond``).
///
/// Every deadline lies at most `horizon` ticks ahead (the server arms each request's with the same length), so
/// `horizon + 1` slots never wrap onto a live entry. ``arm(_:at:)`` and ``cancel(_:)`` are O(1) (a cancelled id
/// lingers in its slot and is skipped when the slot comes round); ``advance(to:)`` visits one slot per elapsed
/// tick and only the ids armed in it. This keeps request deadlines out of lws' own timeouts, whose per-socket
/// timers sit in one sorted list that every insertion walks (`lws_dll2_add_sorted`, O(n)).
///
/// ```swift
/// var wheel = DeadlineWheel(horizon: 300, now: 0)
/// wheel.arm(7, at: 300)
/// wheel.advance(to: 299)   // []
/// wheel.advance(to: 300)   // [7]
/// ```
struct DeadlineWheel {
    /// The longest a deadline may lie ahead, in ticks.
    let horizon: Int
    /// The last tick handled by ``advance(to:)``.
    private(set) var now: Int
    /// The tick each armed id falls due.
    private var deadlines: [UInt64: Int] = [:]
    private var slots: [[UInt64]]
    /// Ids looked at by ``advance(to:)`` so far (live or cancelled): the wheel's work, for tests.
    private(set) var visits = 0

    /// - Parameters:
    ///   - horizon: The longest a deadline may lie ahead, in ticks (at least 1).
    ///   - now: The current tick.
    init(horizon: Int, now: Int) {
        precondition(horizon >= 1, "horizon must be positive")
        self.horizon = horizon
        self.now = now
        slots = Array(repeating: [], count: horizon + 1)
    }

    /// Number of armed deadlines.
    var count: Int { deadlines.count }

    /// Arms (or re-arms) the deadline of `id`.
    /// - Parameters:
    ///   - id: Any id, e.g. a session's (never reused).
    ///   - tick: When it falls due; clamped to `now + 1 ... now + horizon`, so a late caller never wraps the ring.
    mutating func arm(_ id: UInt64, at tick: Int) {
        let due = min(max(tick, now + 1), now + horizon)
        deadlines[id] = due
        slots[due % slots.count].append(id)
    }

    /// Disarms the deadline of `id`, if any.
    mutating func cancel(_ id: UInt64) {
        deadlines[id] = nil
    }

    /// Moves the clock to `tick` and returns the ids whose deadline passed, in the order they fell due.
    /// A clock that did not move forward returns nothing.
    mutating func advance(to tick: Int) -> [UInt64] {
        var expired: [UInt64] = []
        // Every deadline lies within one ring of `now`: after a longer stall one lap from `now` visits each slot
        // once, still in the order they fell due.
        let steps = min(tick - now, slots.count)
        guard steps > 0 else { return expired }
        for step in 1...steps {
            let index = (now + step) % slots.count
            let due = slots[index]
            slots[index] = []
            visits += due.count
            for id in due {
                guard let deadline = deadlines[id], deadline <= tick, deadline % slots.count == index else { continue }
                deadlines[id] = nil
                expired.append(id)
            }
        }
        now = tick
        return expired
    }
}
