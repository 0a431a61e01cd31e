package dev.ringer.kit.okhttp

import dev.ringer.kit.WebSocketChannel
import dev.ringer.kit.WebSocketClose
import dev.ringer.kit.WebSocketTransport
import dev.ringer.kit.WebSocketUpgradeRefused
import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withTimeout
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.Response
import okhttp3.WebSocket
import okhttp3.WebSocketListener
import java.io.IOException
import kotlin.coroutines.resume

/**
 * [WebSocketTransport] over OkHttp's (3, 4 or 5) `OkHttpClient.newWebSocket`: the event stream's transport on Android.
 *
 * [connect] returns once the server accepted the upgrade (`WebSocketListener.onOpen`) and throws when the
 * connection fails or does not open within [openTimeoutMs]. Text frames are delivered in order on OkHttp's
 * reader thread; binary frames are skipped (Ringer's events are text). `onClose` runs exactly once for a
 * connection that opened, whoever closed it: with the server's close frame (`onClosing`), 1000 after
 * [WebSocketChannel.close], or 1006 when it failed without one (`onFailure`). Set the client's
 * `pingInterval` so a dead network is noticed (OkHttp then fails the socket, reported as 1006).
 *
 * @param client the OkHttp client; its `ws://`/`wss://` requests are upgraded by OkHttp itself.
 * @param openTimeoutMs milliseconds to wait for the upgrade before [connect] throws.
 */
class OkHttpWebSocketTransport(private val client: OkHttpClient,
                               private val openTimeoutMs: Long = 15_000) : WebSocketTransport {
    /**
     * Opens a WebSocket.
     * @throws WebSocketUpgradeRefused when the server answered the upgrade with another status than 101.
     * @throws IOException when the connection failed or did not open in time.
     */
    override suspend fun connect(url: String, headers: Map<String, String>, onText: (String) -> Unit,
                                 onClose: (WebSocketClose) -> Unit): WebSocketChannel {
        val builder = Request.Builder().url(url)
        for ((name, value) in headers) builder.header(name, value)
        val request = builder.build()
        val connection = Connection(onText, onClose)
        // The open's failure comes back as a value and is thrown here: it may arrive as the open is cancelled (the
        // timeout), and kotlinx-coroutines 1.0 hands an exception that resumes a cancelled continuation to the thread's
        // uncaught-exception handler, which on Android kills the process; a value resuming it is dropped.
        val failure = try {
            withTimeout(openTimeoutMs) {
                suspendCancellableCoroutine<IOException?> { continuation ->
                    connection.opening(continuation)
                    continuation.invokeOnCancellation { connection.cancel() }
                    connection.start(client.newWebSocket(request, connection))
                }
            }
        } catch (timeout: TimeoutCancellationException) {
            throw IOException("no WebSocket upgrade within $openTimeoutMs ms")
        }
        if (failure != null) throw failure
        return connection
    }

    /**
     * One socket: its phase moves once from opening to open to closed (or from opening straight to closed);
     * whichever event gets there first wins, so the open resumes once and `onClose` runs at most once.
     */
    private class Connection(private val onText: (String) -> Unit,
                             private val onClose: (WebSocketClose) -> Unit) : WebSocketListener(), WebSocketChannel {
        private val lock = Any()
        /** The open waiting for its outcome: null when it opened, else why it did not. */
        private var continuation: CancellableContinuation<IOException?>? = null
        private var socket: WebSocket? = null
        private var open = false
        private var closed = false

        fun opening(continuation: CancellableContinuation<IOException?>) = synchronized(lock) {
            this.continuation = continuation
        }

        fun start(socket: WebSocket) {
            val cancelNow = synchronized(lock) {
                this.socket = socket
                closed
            }
            if (cancelNow) socket.cancel()
        }

        /** The open was cancelled (timeout, or the caller's coroutine). */
        fun cancel() {
            val socket = synchronized(lock) {
                if (closed) return
                closed = true
                continuation = null
                socket
            }
            socket?.cancel()
        }

        override fun close() {
            val socket = synchronized(lock) {
                if (closed || !open) return
                closed = true
                socket
            }
            socket?.close(WebSocketClose.NORMAL.code, null)
            onClose(WebSocketClose.NORMAL)
        }

        override fun onOpen(webSocket: WebSocket, response: Response) {
            val waiting = synchronized(lock) {
                val waiting = continuation ?: return@synchronized null
                continuation = null
                open = true
                waiting
            }
            if (waiting == null) webSocket.cancel() else waiting.resume(null)
        }

        override fun onMessage(webSocket: WebSocket, text: String) {
            val deliver = synchronized(lock) { open && !closed }
            if (deliver) onText(text)
        }

        override fun onClosing(webSocket: WebSocket, code: Int, reason: String) {
            // Answer the server's close frame (RFC 6455 §5.5.1), then report it.
            webSocket.close(WebSocketClose.NORMAL.code, null)
            finish(null, WebSocketClose(code, reason))
        }

        override fun onClosed(webSocket: WebSocket, code: Int, reason: String) {
            finish(null, WebSocketClose(code, reason))
        }

        override fun onFailure(webSocket: WebSocket, t: Throwable, response: Response?) {
            val status = response?.let { OkHttpCalls.code(it) }
            val error = if (status != null && status != 101) WebSocketUpgradeRefused(status)
                        else IOException("WebSocket failed: ${t.javaClass.simpleName}: ${t.message}", t)
            finish(error, WebSocketClose.ABNORMAL)
        }

        /** Moves to closed: fails a pending open with [error], or reports [close] for an open socket. */
        private fun finish(error: IOException?, close: WebSocketClose) {
            val (pending, report) = synchronized(lock) {
                if (closed) return
                closed = true
                val waiting = continuation
                continuation = null
                Pair(waiting, open)
            }
            if (pending != null) {
                pending.resume(error ?: IOException("WebSocket closed before it opened: $close"))
            } else if (report) {
                onClose(close)
            }
        }
    }
}
