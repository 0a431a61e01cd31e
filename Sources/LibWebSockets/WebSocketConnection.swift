/// One accepted server-side WebSocket connection.
///
/// Thread-safety: `send(text:)` and `close()` may be called from any thread or task. Messages are
/// queued and written by the service thread in the order they were queued, a fragment per
/// writable callback, so a slow peer never blocks the caller.
public final class WebSocketConnection: Sendable {
    /// A server-unique id, increasing with each connection.
    public let id: UInt64
    let outbox: WebSocketOutbox

    /// The upgrade request is not kept: the upgrade handler gets it once, and a copy per open socket (its
    /// headers, a bearer token among them) was most of an idle socket's memory.
    init(id: UInt64, outbox: WebSocketOutbox) {
        self.id = id
        self.outbox = outbox
    }

    /// Queues a text message. Does nothing once the connection is closing or closed.
    /// - Parameter text: The message (sent as one WebSocket message, possibly in several frames).
    public func send(text: String) {
        outbox.enqueue(Array(text.utf8))
    }

    /// Starts a normal close (status 1000) after the messages already queued are written.
    public func close() {
        outbox.requestClose()
    }

    /// Starts a close with an RFC 6455 §7.4 status after the messages already queued are written.
    /// - Parameters:
    ///   - code: 1000–4999 (4000–4999 are for applications); anything else sends 1000.
    ///   - reason: a short UTF-8 text; cut between characters to 123 bytes, the most a close frame holds (§5.5).
    public func close(code: UInt16, reason: String) {
        outbox.requestClose(.checked(code: code, reason: reason))
    }

    /// Whether the connection is neither closing nor closed.
    public var isOpen: Bool {
        outbox.isOpen
    }
}
