@file:Suppress("unused", "UNUSED_PARAMETER")

package okhttp3

import java.io.Closeable
import java.io.IOException
import java.util.concurrent.TimeUnit

private fun stub(): Nothing = throw UnsupportedOperationException("compile-only stub of OkHttp 4")

open class OkHttpClient {
    open fun newCall(request: Request): Call = stub()
    open fun newWebSocket(request: Request, listener: WebSocketListener): WebSocket = stub()

    class Builder {
        fun pingInterval(interval: Long, unit: TimeUnit): Builder = stub()
        fun readTimeout(timeout: Long, unit: TimeUnit): Builder = stub()
        fun build(): OkHttpClient = stub()
    }
}

class Request internal constructor() {
    open class Builder {
        open fun url(url: String): Builder = stub()
        open fun header(name: String, value: String): Builder = stub()
        open fun method(method: String, body: RequestBody?): Builder = stub()
        open fun build(): Request = stub()
    }
}

class MediaType internal constructor()

abstract class RequestBody {
    companion object {
        @JvmStatic
        @Deprecated("Moved to extension function. Put the 'content' argument first to fix Java",
                    level = DeprecationLevel.WARNING)
        fun create(contentType: MediaType?, content: ByteArray): RequestBody = stub()
    }
}

abstract class ResponseBody : Closeable {
    fun bytes(): ByteArray = stub()
    override fun close() = stub()
}

class Headers internal constructor() {
    @get:JvmName("size") val size: Int get() = stub()
    fun name(index: Int): String = stub()
    fun value(index: Int): String = stub()
}

class Response internal constructor() : Closeable {
    @get:JvmName("code") val code: Int get() = stub()
    @get:JvmName("headers") val headers: Headers get() = stub()
    @get:JvmName("body") val body: ResponseBody? get() = stub()
    override fun close() = stub()
}

interface Call {
    fun enqueue(responseCallback: Callback)
    fun cancel()
}

interface Callback {
    fun onFailure(call: Call, e: IOException)

    @Throws(IOException::class)
    fun onResponse(call: Call, response: Response)
}

interface WebSocket {
    fun close(code: Int, reason: String?): Boolean
    fun cancel()
}

abstract class WebSocketListener {
    open fun onOpen(webSocket: WebSocket, response: Response) {}
    open fun onMessage(webSocket: WebSocket, text: String) {}
    open fun onClosing(webSocket: WebSocket, code: Int, reason: String) {}
    open fun onClosed(webSocket: WebSocket, code: Int, reason: String) {}
    open fun onFailure(webSocket: WebSocket, t: Throwable, response: Response?) {}
}
