/// How many connections the server holds at once, and which gives way when a new one comes at the limit: a pure
/// value (input in, decision out, time passed in), the acceptor's bookkeeping.
///
/// Why: out of descriptors, `accept` fails and new clients wait in the kernel's backlog; 15,800 connections each
/// trickling a body kept a normal client waiting 27 s (issue 26). The budget sits below the open-file limit, so
/// there is always a descriptor to accept with and room left for the server's own files and outbound connections,
/// and at the budget the connection most likely to be an attacker's makes room:
///
/// 1. **slow**: a connection that has not sent a complete request head yet, is still sending a body, or is not
///    reading its answer, the oldest (in that state longest) first, once it has been so for ``grace`` milliseconds.
///    A well-behaved client sends its head and body at once and reads its (small) answer as it comes; a slow-loris
///    one never finishes, and a slow-read one pipelines requests and never reads, so that its answers stall.
/// 2. **idle**: a keep-alive connection waiting for its next request after an answer, oldest first, after the
///    same grace. Its client reconnects when it needs to, as after any keep-alive timeout (RFC 9112 §9.3).
///
/// A connection whose request is being handled, a WebSocket and an HTTP/2 connection are never shed.
/// When nothing may give way, the new connection is refused (closed as soon as it is accepted).
struct ConnectionBudget {
    /// Where a connection stands, as far as shedding goes.
    enum Standing: Equatable {
        /// Just accepted: no complete request head yet.
        case awaitingHead
        /// A head arrived; the body is still coming.
        case readingBody
        /// A request is being handled: the answer does not exist yet.
        case busy
        /// The answer is being written; slow once it takes longer than the grace (the client does not read it).
        case answering
        /// Answered; waiting for the next request on a keep-alive connection (however slowly its head comes: lws
        /// reports nothing before a head is complete).
        case idle
        /// An upgraded WebSocket or an HTTP/2 connection: long-lived by design, never shed.
        case longLived
    }

    /// What ``admit(at:)`` decided for a connection that was just accepted.
    enum Admission: Equatable {
        /// Under the budget: keep it.
        case admit
        /// At the budget: keep it, and close this connection (already forgotten by the budget) to make room.
        case admitShedding(UInt)
        /// At the budget and nothing may give way: close the new connection.
        case refuse
    }

    /// Most connections held at once, at least 1.
    let limit: Int
    /// Milliseconds a connection must have been slow or idle before it may be shed, so that a client whose
    /// request is on its way is not cut off in a burst of new connections.
    let grace: Int

    private struct Entry {
        var standing: Standing
        /// Bumped on every change, so that a queued position of an earlier standing is recognised as stale.
        var epoch: UInt64
    }

    private var entries: [UInt: Entry] = [:]
    private var nextEpoch: UInt64 = 0
    /// Slow and idle connections in the order they became so, with the epoch and time they did. Entries whose
    /// epoch no longer matches are stale and skipped (each is skipped once, so the cost is amortised O(1)).
    private var slow = Queue()
    private var idle = Queue()

    /// - Parameters:
    ///   - limit: Most connections at once (values under 1 become 1).
    ///   - grace: Milliseconds before a slow or idle connection may be shed.
    init(limit: Int, grace: Int = 1000) {
        self.limit = max(1, limit)
        self.grace = max(0, grace)
    }

    /// Connections held.
    var count: Int { entries.count }

    /// The budget for a process allowed `fileLimit` open descriptors: the limit less a reserve for the server's own
    /// files, its database, Redis and push-provider connections, the one descriptor `accept` needs to shed with, and
    /// the placeholders ``EventPipeReclaim`` holds: 1/32 of the limit, at least 48 and at most 1024 (19,375 of 20,000).
    static func limit(forFileLimit fileLimit: Int) -> Int {
        let reserve = min(1024, max(32 + EventPipeReclaim.holeCount, fileLimit / 32))
        return max(1, fileLimit - reserve)
    }

    /// Decides on a connection just accepted, before it is counted.
    /// - Parameter now: Milliseconds on a monotonic clock.
    /// - Returns: Whether to keep it, and which connection to close to make room.
    mutating func admit(at now: Int) -> Admission {
        guard entries.count >= limit else { return .admit }
        for tier in [\ConnectionBudget.slow, \ConnectionBudget.idle] {
            if let victim = oldest(in: tier, before: now - grace) {
                entries[victim] = nil
                return .admitShedding(victim)
            }
        }
        return .refuse
    }

    /// Counts a connection that was admitted and adopted.
    /// - Parameters:
    ///   - key: The connection (its network wsi's address).
    ///   - now: Milliseconds on a monotonic clock.
    mutating func opened(_ key: UInt, at now: Int) {
        entries[key] = Entry(standing: .busy, epoch: 0)
        change(key, to: .awaitingHead, at: now)
    }

    /// Records where a counted connection now stands; unknown keys (HTTP/2 streams, client connections, connections
    /// already shed) are ignored.
    /// - Parameters:
    ///   - key: The connection.
    ///   - standing: Its new standing.
    ///   - now: Milliseconds on a monotonic clock.
    mutating func change(_ key: UInt, to standing: Standing, at now: Int) {
        guard var entry = entries[key], entry.standing != .longLived, entry.standing != standing else { return }
        nextEpoch &+= 1
        entry.epoch = nextEpoch
        entry.standing = standing
        entries[key] = entry
        switch standing {
        case .awaitingHead, .readingBody, .answering: slow.push(key, epoch: entry.epoch, at: now)
        case .idle: idle.push(key, epoch: entry.epoch, at: now)
        case .busy, .longLived: break
        }
        // Every change queues a position and only the latest counts: drop the stale ones before a queue outgrows
        // the connections (a keep-alive connection queues one per request).
        let bound = 2 * entries.count + 64
        let live = entries
        if slow.count > bound { slow.removeAll { live[$0.key]?.epoch != $0.epoch } }
        if idle.count > bound { idle.removeAll { live[$0.key]?.epoch != $0.epoch } }
    }

    /// Forgets a connection that closed; unknown keys are ignored.
    mutating func closed(_ key: UInt) {
        entries[key] = nil
    }

    /// Where `key` stands, or nil when it is not counted (tests, diagnostics).
    func standing(of key: UInt) -> Standing? {
        entries[key]?.standing
    }

    /// The first live entry of `tier` that entered it at or before `cutoff`, dropping stale ones on the way.
    private mutating func oldest(in tier: WritableKeyPath<ConnectionBudget, Queue>, before cutoff: Int) -> UInt? {
        while let first = self[keyPath: tier].first {
            guard let entry = entries[first.key], entry.epoch == first.epoch else {
                self[keyPath: tier].dropFirst()
                continue
            }
            guard first.since <= cutoff else { return nil }
            self[keyPath: tier].dropFirst()
            return first.key
        }
        return nil
    }

    /// A first-in, first-out queue on an array with a moving head, compacted when half of it is spent.
    private struct Queue {
        private var items: [(key: UInt, epoch: UInt64, since: Int)] = []
        private var head = 0

        var first: (key: UInt, epoch: UInt64, since: Int)? { head < items.count ? items[head] : nil }
        var count: Int { items.count - head }

        mutating func removeAll(where stale: ((key: UInt, epoch: UInt64, since: Int)) -> Bool) {
            items = items[head...].filter { !stale($0) }
            head = 0
        }

        mutating func push(_ key: UInt, epoch: UInt64, at now: Int) {
            items.append((key, epoch, now))
        }

        mutating func dropFirst() {
            head += 1
            if head > 1024 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
        }
    }
}
