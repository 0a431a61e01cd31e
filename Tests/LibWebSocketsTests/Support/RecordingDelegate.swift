import LibWebSockets
import RingerHTTP
import RingerSupport

/// A WebSocket delegate that records what it sees and optionally answers each message.
final class RecordingDelegate: WebSocketDelegate {
    let messages = LockedValue<[String]>([])
    let closeCount = LockedValue(0)
    private let reply: @Sendable (WebSocketConnection, String) -> Void

    /// - Parameter reply: Called for each text message (on the service thread).
    init(reply: @escaping @Sendable (WebSocketConnection, String) -> Void = { _, _ in }) {
        self.reply = reply
    }

    func webSocket(_ connection: WebSocketConnection, didReceiveText text: String) {
        messages.withLock { $0.append(text) }
        reply(connection, text)
    }

    func webSocketDidClose(_ connection: WebSocketConnection) {
        closeCount.withLock { $0 += 1 }
    }
}
