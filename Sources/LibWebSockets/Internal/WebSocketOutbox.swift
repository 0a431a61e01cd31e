import RingerSupport

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

        /// A status as an application asked for it, made valid: a code outside 1000–4999 becomes 1000 and the
        /// reason is cut, between characters, to the 123 bytes a close frame holds (RFC 6455 §5.5, §7.4): a reason
        /// that is not valid UTF-8 makes the peer fail the connection (§8.1) instead of reading the code.
        static func checked(code: UInt16, reason: String) -> CloseStatus {
            var bytes: [UInt8] = []
            for scalar in reason.unicodeScalars {
                let encoded = Array(String(scalar).utf8)
                guard bytes.count + encoded.count <= 123 else { break }
                bytes += encoded
            }
            return CloseStatus(code: (1000...4999).contains(code) ? code : 1000, reason: bytes)
        }
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
    /// - Parameter wakes: whether to ask the service thread for a writable callback; the service thread itself
    ///   passes `false` and asks lws directly, which spares a wake-up (a pipe write) per socket.
    func requestClose(_ status: CloseStatus = .normal, wakes: Bool = true) {
        let changed = state.withLock { state in
            guard !state.closed, !state.closeRequested else { return false }
            state.closeRequested = true
            state.closeStatus = status
            return true
        }
        if changed, wakes { wake() }
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
            defer {
                state.closed = true
                state.queue.removeAll()
            }
            return !state.closed
        }
    }
}
