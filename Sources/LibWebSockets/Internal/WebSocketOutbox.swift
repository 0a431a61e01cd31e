import RingerSync

/// Messages waiting to be written on one WebSocket, shared by the service thread and senders.
final class WebSocketOutbox: Sendable {
    private struct State {
        var queue: [[UInt8]] = []
        var closeRequested = false
        var closed = false
        var closeStatus = CloseStatus.normal
    }

    /// The close frame to send: an RFC 6455 §7.4 status code and a reason of at most 123 bytes.
    struct CloseStatus: Sendable {
        var code: UInt16
        var reason: [UInt8]

        static let normal = CloseStatus(code: 1000, reason: [])
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

    /// Asks for a close once the queue is written (normal, 1000, unless `status` says otherwise).
    func requestClose(_ status: CloseStatus = .normal) {
        let changed = state.withLock { state in
            guard !state.closed, !state.closeRequested else { return false }
            state.closeRequested = true
            state.closeStatus = status
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

    /// The close frame requested (1000 until ``requestClose(_:)`` says otherwise).
    var closeStatus: CloseStatus {
        state.withLock { $0.closeStatus }
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
