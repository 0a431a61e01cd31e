package dev.ringer.kit

/**
 * Opens WebSockets for [EventStream]: `dev.ringer.kit.okhttp.OkHttpWebSocketTransport` on Android; tests
 * and simulators supply their own. Implementations must be thread-safe and must not log the headers.
 */
interface WebSocketTransport {
    /**
     * Connects, then reports each text frame and the close.
     * @param url `ws://` or `wss://` URL with its query.
     * @param headers request headers (authorization).
     * @param onText called for each text frame, in order, on any thread.
     * @param onClose called once when the open connection ends for any reason, with its close code and reason
     *   (RFC 6455 §7.1.5; [WebSocketClose.ABNORMAL] when it dropped without a close frame); never for a
     *   connection that failed to open.
     * @return the open channel, once the server accepted the upgrade.
     * @throws WebSocketUpgradeRefused when the server answered the upgrade with an HTTP status other than 101.
     * @throws java.io.IOException when the connection cannot be opened for any other reason.
     */
    suspend fun connect(url: String, headers: Map<String, String>, onText: (String) -> Unit,
                        onClose: (WebSocketClose) -> Unit): WebSocketChannel
}
