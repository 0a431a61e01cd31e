package dev.ringer.kit.okhttp

import dev.ringer.kit.HttpResponse
import dev.ringer.kit.HttpTransport
import kotlinx.coroutines.suspendCancellableCoroutine
import okhttp3.Call
import okhttp3.Callback
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.Response
import java.io.IOException
import kotlin.coroutines.resume

/**
 * [HttpTransport] over OkHttp 3, 4 or 5 (`Call.enqueue`, so no thread blocks while waiting; the calls whose
 * Kotlin spelling differs between majors go through [OkHttpCalls]). Timeouts are the
 * client's (`OkHttpClient.Builder.callTimeout`/`readTimeout`); share one client across the app, as OkHttp
 * advises, so connections are pooled.
 *
 * Cancelling the calling coroutine cancels the OkHttp call. Thread-safe.
 *
 * @param client the OkHttp client to send with.
 */
class OkHttpTransport(private val client: OkHttpClient) : HttpTransport {
    /**
     * Sends the request and reads the whole answer.
     * @throws IOException when no answer arrived or its body could not be read.
     * @throws IllegalArgumentException when [url] is not an http(s) URL (a programming error).
     */
    override suspend fun send(method: String, url: String, headers: Map<String, String>,
                              body: ByteArray?): HttpResponse {
        val builder = Request.Builder().url(url)
        for ((name, value) in headers) builder.header(name, value)
        // OkHttp refuses POST/PUT/PATCH without a body; the API's bodiless POSTs (cancel, end) send an empty one.
        // A null media type leaves the caller's Content-Type header as it is.
        val requestBody = body ?: if (method in METHODS_WITH_BODY) ByteArray(0) else null
        builder.method(method, requestBody?.let { OkHttpCalls.requestBody(it) })
        val call = client.newCall(builder.build())
        // A failure comes back as a value and is thrown here. A cancelled request fails too ("Canceled", "Socket
        // closed"), after or while it is cancelled: nobody waits for that failure, and kotlinx-coroutines 1.0 hands an
        // exception that resumes a cancelled continuation to the thread's uncaught-exception handler, which on Android
        // kills the process; a value resuming it is dropped.
        val exchange = suspendCancellableCoroutine<Exchange> { continuation ->
            continuation.invokeOnCancellation { call.cancel() }
            call.enqueue(object : Callback {
                override fun onFailure(call: Call, e: IOException) {
                    continuation.resume(Exchange.Failed(e))
                }

                override fun onResponse(call: Call, response: Response) {
                    val exchange = try {
                        Exchange.Answered(response.use { read(it) })
                    } catch (e: IOException) {
                        Exchange.Failed(e)
                    }
                    continuation.resume(exchange)
                }
            })
        }
        return when (exchange) {
            is Exchange.Answered -> exchange.response
            is Exchange.Failed -> throw exchange.error
        }
    }

    /** How a request ended, as OkHttp's callback tells it. */
    private sealed class Exchange {
        class Answered(val response: HttpResponse) : Exchange()
        class Failed(val error: IOException) : Exchange()
    }

    private fun read(response: Response): HttpResponse {
        val headers = LinkedHashMap<String, String>()
        for (i in 0 until OkHttpCalls.headerCount(response)) {
            val name = HttpResponse.lowercaseAscii(OkHttpCalls.headerName(response, i))
            val value = OkHttpCalls.headerValue(response, i)
            val earlier = headers[name]
            headers[name] = if (earlier == null) value else "$earlier, $value"
        }
        return HttpResponse(OkHttpCalls.code(response), headers, OkHttpCalls.bodyBytes(response))
    }

    private companion object {
        val METHODS_WITH_BODY = setOf("POST", "PUT", "PATCH")
    }
}
