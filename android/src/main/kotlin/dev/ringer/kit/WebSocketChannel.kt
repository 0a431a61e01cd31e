package dev.ringer.kit

/** An open WebSocket of a [WebSocketTransport]. Thread-safe. */
interface WebSocketChannel {
    /** Closes the connection with 1000 (normal closure); the transport's `onClose` follows once. */
    fun close()
}
