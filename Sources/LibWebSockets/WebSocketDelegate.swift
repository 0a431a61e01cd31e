public import RingerHTTP

/// Receives the events of one server-side WebSocket connection.
///
/// - Important: Both methods run on the server's lws service thread, in order. Return quickly:
///   hand work to a task or actor instead of blocking, or every connection of the server stalls.
///   Calling ``WebSocketConnection/send(text:)`` from here is fine.
public protocol WebSocketDelegate: AnyObject, Sendable {
    /// A complete text message arrived (fragments and partial reads are already joined).
    /// Binary messages are ignored.
    /// - Parameters:
    ///   - connection: The connection it arrived on.
    ///   - text: The message.
    func webSocket(_ connection: WebSocketConnection, didReceiveText text: String)

    /// The connection closed (either side, or the server shut down). Called exactly once.
    /// - Parameter connection: The closed connection; sending on it does nothing.
    func webSocketDidClose(_ connection: WebSocketConnection)
}

/// The answer of a WebSocket upgrade handler.
public enum WebSocketUpgrade: Sendable {
    /// Complete the handshake; `delegate` gets the connection's events and is retained until close.
    case accept(any WebSocketDelegate)
    /// Refuse with this response (e.g. a 401 problem); no WebSocket is opened.
    case reject(HTTPResponse)

    /// Refuses with `status` and a small JSON body.
    public static func reject(status: Int) -> WebSocketUpgrade {
        .reject(HTTPResponse.json(status: status, "{\"error\":\"websocket upgrade refused\"}"))
    }
}
