/// The graceful part of a server's shutdown: which WebSockets still have to be told to close, which have not
/// closed yet, and whether the loop may stop. A pure value: ids in, decisions out, time given by the caller in
/// whole ticks of a monotonic clock (the server's keepalive ticks, ``ServiceLoop/ticksPerSecond``).
///
/// Rule (``WebServer/shutdown(closingWebSocketsWith:reason:within:)``): every WebSocket open when the phase
/// begins gets the close frame (1001 Going Away by default, RFC 6455 §7.4.1) after the messages already queued
/// on it, at most ``batchSize`` of them asked per loop turn; the loop stops as soon as each has closed, or when
/// the bound passes, whichever comes first. Sockets opened later are not counted (the server stopped accepting
/// and refuses upgrades meanwhile).
///
/// Cost: ``init(sockets:status:now:within:batchSize:)`` is O(sockets) once; ``closed(_:)`` and
/// ``isOver(at:)`` are O(1); ``nextBatch()`` is O(batch). Nothing is walked per tick.
///
/// ```swift
/// var phase = GoingAwayPhase(sockets: [1, 2, 3], status: .goingAway, now: 0, within: 20, batchSize: 2)
/// phase.nextBatch()       // [1, 2]
/// phase.nextBatch()       // [3]
/// phase.closed(1); phase.closed(2); phase.closed(3)
/// phase.isOver(at: 1)     // true: every socket closed before the bound (tick 20)
/// ```
struct GoingAwayPhase {
    /// The close frame every socket gets.
    let status: WebSocketOutbox.CloseStatus
    /// The tick at which the loop stops even if sockets are still open.
    let deadline: Int
    /// Sockets asked to close per ``nextBatch()``.
    let batchSize: Int
    private let sockets: [UInt64]
    private var asked = 0
    private var open: Set<UInt64>

    /// - Parameters:
    ///   - sockets: Ids of the WebSockets open now (never reused).
    ///   - status: The close frame to send them.
    ///   - now: The current tick.
    ///   - within: Ticks the phase may last (0 or less: it is over at once).
    ///   - batchSize: Sockets asked per ``nextBatch()`` (at least 1), so that tens of thousands of them never
    ///     hold the loop in one callback.
    init(sockets: [UInt64], status: WebSocketOutbox.CloseStatus, now: Int, within: Int, batchSize: Int) {
        self.sockets = sockets
        self.status = status
        deadline = now + max(0, within)
        self.batchSize = max(1, batchSize)
        open = Set(sockets)
    }

    /// The next sockets to send the close frame to; empty once every socket was asked.
    mutating func nextBatch() -> ArraySlice<UInt64> {
        let end = min(sockets.count, asked + batchSize)
        defer { asked = end }
        return sockets[asked..<end]
    }

    /// Whether sockets remain that ``nextBatch()`` has not returned yet.
    var hasUnasked: Bool { asked < sockets.count }

    /// Records that a socket closed (its close frame written, or the peer gone). Unknown ids are ignored.
    mutating func closed(_ id: UInt64) {
        open.remove(id)
    }

    /// Sockets counted at the start that have not closed yet.
    var openCount: Int { open.count }

    /// Whether the loop may stop: every socket closed, or `now` reached the deadline.
    func isOver(at now: Int) -> Bool {
        open.isEmpty || now >= deadline
    }
}
