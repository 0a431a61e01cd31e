package dev.ringer.kit

/**
 * How an open WebSocket ended: its Connection Close Code and Reason (RFC 6455 §7.1.5, §7.1.6), as a
 * [WebSocketTransport] reports it to `onClose`.
 *
 * @property code the status code (RFC 6455 §7.4): the one of the first close frame received, or the one this
 *   side sent when it closed first; 1006 ([ABNORMAL]) when the connection dropped without a close frame; 1005
 *   when the close frame had no code.
 * @property reason the close frame's reason (UTF-8, at most 123 bytes); empty when it had none.
 */
data class WebSocketClose(val code: Int, val reason: String = "") {
    /** `code reason`, for logs. */
    override fun toString(): String = if (reason.length == 0) "$code" else "$code $reason"

    companion object {
        /** 1000: normal closure, e.g. this side called [WebSocketChannel.close]. */
        val NORMAL = WebSocketClose(1000)

        /** 1006: the connection dropped without a close frame (RFC 6455 §7.1.5; never sent on the wire). */
        val ABNORMAL = WebSocketClose(1006)
    }
}
