package dev.ringer.kit.okhttp

import com.sun.net.httpserver.HttpServer
import kotlinx.coroutines.CoroutineExceptionHandler
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import okhttp3.OkHttpClient
import org.junit.After
import org.junit.Assert.assertArrayEquals
import org.junit.Assert.assertEquals
import org.junit.Assert.assertNotNull
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Before
import org.junit.Test
import java.io.IOException
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.ServerSocket
import java.util.concurrent.TimeUnit

/** [OkHttpTransport] against a real HTTP server on loopback (the JDK's `com.sun.net.httpserver`). */
class OkHttpTransportTest {
    private class Received(val method: String, val headers: Map<String, String?>, val body: ByteArray)

    private lateinit var server: HttpServer
    private val slow = java.util.concurrent.CountDownLatch(1)
    private val received = java.util.concurrent.LinkedBlockingQueue<Received>()
    private val client = OkHttpClient.Builder().callTimeout(10, TimeUnit.SECONDS).build()
    private val transport = OkHttpTransport(client)
    private val base get() = "http://127.0.0.1:${server.address.port}"

    @Before
    fun startServer() {
        server = HttpServer.create(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0)
        // Answers only after the test let it, so a request can be cancelled while it is in flight.
        server.createContext("/slow") { exchange ->
            received.put(Received(exchange.requestMethod, emptyMap(), ByteArray(0)))
            slow.await(10, TimeUnit.SECONDS)
            try {
                exchange.sendResponseHeaders(200, -1)
            } catch (e: IOException) {
                // the client hung up: that is the point
            }
            exchange.close()
        }
        server.createContext("/") { exchange ->
            val body = exchange.requestBody.readBytes()
            received.put(Received(exchange.requestMethod,
                                  exchange.requestHeaders.mapValues { it.value.firstOrNull() }, body))
            val status = exchange.requestURI.path.removePrefix("/status/").toIntOrNull() ?: 200
            val answer = if (body.isEmpty()) "{\"ok\":true}".toByteArray() else body
            exchange.responseHeaders.add("Content-Type", "application/problem+json")
            exchange.responseHeaders.add("X-Ringer-Test", "One")
            exchange.responseHeaders.add("X-Ringer-Test", "Two")
            exchange.sendResponseHeaders(status, answer.size.toLong())
            exchange.responseBody.use { it.write(answer) }
        }
        server.start()
    }

    @After
    fun stopServer() {
        slow.countDown()
        server.stop(0)
        client.dispatcher().executorService().shutdown()
        client.connectionPool().evictAll()
    }

    @Test
    fun sendsMethodHeadersAndBodyAndReadsTheAnswer() = runBlocking {
        val response = transport.send("PUT", "$base/v1/devices/d1",
                                      mapOf("Authorization" to "Bearer t", "Content-Type" to "application/json"),
                                      "{\"platform\":\"android\"}".toByteArray())
        val request = received.poll(5, TimeUnit.SECONDS)!!
        assertEquals("PUT", request.method)
        assertEquals("Bearer t", request.headers["Authorization"])
        assertEquals("application/json", request.headers["Content-type"])
        assertEquals("{\"platform\":\"android\"}", String(request.body))
        assertEquals(200, response.status)
        assertEquals("{\"platform\":\"android\"}", String(response.body))
        assertEquals("application/problem+json", response.headers["content-type"])
    }

    @Test
    fun headerNamesAreLowercasedAndRepeatedOnesJoined() = runBlocking {
        val response = transport.send("GET", "$base/", emptyMap(), null)
        assertEquals("One, Two", response.headers["x-ringer-test"])
        assertNull(response.headers["X-Ringer-Test"])
        assertEquals("One, Two", response.header("X-RINGER-TEST"))
    }

    @Test
    fun theDateHeaderArrivesAsAnImfFixdate() = runBlocking {
        val response = transport.send("GET", "$base/", emptyMap(), null)
        val date = response.header("Date")
        assertNotNull(date)
        assertTrue(date!!, Regex("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT").matches(date))
    }

    @Test
    fun errorStatusesAreAnswersNotExceptions() = runBlocking {
        val response = transport.send("POST", "$base/status/503", emptyMap(), null)
        assertEquals(503, response.status)
        assertArrayEquals("{\"ok\":true}".toByteArray(), response.body)
        val request = received.poll(5, TimeUnit.SECONDS)!!
        assertEquals("POST", request.method)
        assertEquals(0, request.body.size)
    }

    @Test
    fun aRefusedConnectionThrowsIOException() = runBlocking {
        val port = ServerSocket(0, 1, InetAddress.getLoopbackAddress()).use { it.localPort }
        try {
            transport.send("GET", "http://127.0.0.1:$port/", emptyMap(), null)
            fail("expected an IOException")
        } catch (expected: IOException) {
        }
    }

    @Test
    fun cancellingARequestInFlightReportsNoUncaughtException() {
        // kotlinx-coroutines 1.0 hands an exception resumed into a cancelled continuation to the thread's
        // uncaught-exception handler, which on Android kills the app: OkHttp's "Canceled" must not get there.
        val uncaught = java.util.concurrent.CopyOnWriteArrayList<Throwable>()
        val job = GlobalScope.launch(CoroutineExceptionHandler { _, e -> uncaught.add(e) }) {
            transport.send("GET", "$base/slow", emptyMap(), null)
        }
        assertNotNull("the request reached the server", received.poll(5, TimeUnit.SECONDS))
        runBlocking { job.cancelAndJoin() }
        Thread.sleep(300)   // OkHttp fails the cancelled call on its own thread
        assertEquals("uncaught: $uncaught", emptyList<Throwable>(), uncaught.toList())
    }
}
