import RingerSync

/// Messages waiting to be written on one WebSocket, shared by the service thread and senders.
final class WebSocketOutbox: Sendable {
    private struct State {
        var queue: [[UInt8]] = []
        var closeRequested = false
        var closed = false
    }

    private let state = LockedValue(State())
    private let wake: @Sendable () -> Void

    /// - Parameter wake: Asks the service thread for a writable callback on this connection.
    init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// Queues one message and wakes the writer; dropped once closing.
    func enqueue(_ message: [UInt8]) {
        let queued = state.withLock { state in
            guard !state.closed, !state.closeRequested else { return false }
            state.queue.append(message)
            return true
        }
        if queued { wake() }
    }

    /// Asks for a normal close once the queue is written.
    func requestClose() {
        let changed = state.withLock { state in
            guard !state.closed, !state.closeRequested else { return false }
            state.closeRequested = true
            return true
        }
        if changed { wake() }
    }

    /// Takes the oldest queued message. Service thread only.
    func dequeue() -> [UInt8]? {
        state.withLock { state in state.queue.isEmpty ? nil : state.queue.removeFirst() }
    }

    /// Whether messages wait.
    var hasQueuedMessages: Bool {
        state.withLock { !$0.queue.isEmpty }
    }

    /// Whether a close was requested.
    var isCloseRequested: Bool {
        state.withLock { $0.closeRequested }
    }

    /// Whether the connection is usable for sending.
    var isOpen: Bool {
        state.withLock { !$0.closed && !$0.closeRequested }
    }

    /// Marks the connection closed and drops the queue.
    /// - Returns: `true` the first time only, so that close is reported once.
    @discardableResult
    func markClosed() -> Bool {
        state.withLock { state in
            defer { state.closed = true; state.queue.removeAll() }
            return !state.closed
        }
    }
}
