package dev.ringer.kit.okhttp

import com.sun.net.httpserver.HttpServer
import dev.ringer.kit.WebSocketClose
import dev.ringer.kit.WebSocketUpgradeRefused
import kotlinx.coroutines.runBlocking
import okhttp3.OkHttpClient
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.fail
import org.junit.Test
import java.io.IOException
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.ServerSocket
import java.security.MessageDigest
import java.util.Base64
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import kotlin.concurrent.thread

/**
 * [OkHttpWebSocketTransport] against loopback servers: a JDK HttpServer that refuses the upgrade, and a
 * minimal RFC 6455 server on a raw socket that accepts it, sends frames and closes.
 */
class OkHttpWebSocketTransportTest {
    private val client = OkHttpClient.Builder().build()
    private val transport = OkHttpWebSocketTransport(client, openTimeoutMs = 5_000)

    @After
    fun shutDown() {
        client.dispatcher().executorService().shutdown()
    }

    @Test
    fun aRefusedUpgradeThrowsItsHttpStatus() = runBlocking {
        val server = HttpServer.create(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0)
        server.createContext("/") { exchange ->
            exchange.sendResponseHeaders(401, -1)
            exchange.close()
        }
        server.start()
        try {
            transport.connect("ws://127.0.0.1:${server.address.port}/v1/events?device_id=d1", emptyMap(), {}, {})
            fail("expected WebSocketUpgradeRefused")
        } catch (refused: WebSocketUpgradeRefused) {
            assertEquals(401, refused.status)
        } finally {
            server.stop(0)
        }
    }

    @Test
    fun aRefusedConnectionThrowsAPlainIOException() = runBlocking {
        val port = ServerSocket(0, 1, InetAddress.getLoopbackAddress()).use { it.localPort }
        try {
            transport.connect("ws://127.0.0.1:$port/v1/events", emptyMap(), {}, {})
            fail("expected an IOException")
        } catch (refused: WebSocketUpgradeRefused) {
            fail("no HTTP answer, so no status: $refused")
        } catch (expected: IOException) {
        }
    }

    @Test
    fun textFramesArriveInOrderAndTheServersCloseCodeIsReportedOnce() = runBlocking {
        val listener = ServerSocket(0, 1, InetAddress.getLoopbackAddress())
        val requestHeaders = LinkedBlockingQueue<List<String>>()
        val server = thread {
            listener.accept().use { socket ->
                val input = socket.getInputStream().bufferedReader(Charsets.ISO_8859_1)
                val lines = generateSequence { input.readLine() }.takeWhile { it.isNotEmpty() }.toList()
                requestHeaders.put(lines)
                val key = lines.first { it.startsWith("Sec-WebSocket-Key:", ignoreCase = true) }
                    .substringAfter(":").trim()
                val accept = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                    .digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").toByteArray()))
                val out = socket.getOutputStream()
                out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
                    "Sec-WebSocket-Accept: $accept\r\n\r\n").toByteArray())
                out.write(frame(0x81, "first".toByteArray()))
                out.write(frame(0x82, byteArrayOf(1, 2, 3)))
                out.write(frame(0x81, "second".toByteArray()))
                out.write(frame(0x88, byteArrayOf(0x0f, 0xa1.toByte()) + "replaced".toByteArray()))
                out.flush()
                socket.getInputStream().read(ByteArray(64))   // the client's answering close frame
            }
        }
        val texts = LinkedBlockingQueue<String>()
        val closes = LinkedBlockingQueue<WebSocketClose>()
        transport.connect("ws://127.0.0.1:${listener.localPort}/v1/events?device_id=d1",
                          mapOf("Authorization" to "Bearer secret"), { texts.put(it) }, { closes.put(it) })
        assertEquals(WebSocketClose(4001, "replaced"), closes.poll(5, TimeUnit.SECONDS))
        assertEquals(listOf("first", "second"), listOf(texts.poll(), texts.poll()))
        assertEquals("Authorization: Bearer secret", requestHeaders.poll()!!.first { it.startsWith("Authorization") })
        server.join(5_000)
        listener.close()
        Thread.sleep(100)
        assertEquals(null, closes.poll())
        assertFalse(server.isAlive)
    }

    /** One unmasked server frame (RFC 6455 §5.2) of under 126 bytes. */
    private fun frame(opcodeByte: Int, payload: ByteArray): ByteArray =
        byteArrayOf(opcodeByte.toByte(), payload.size.toByte()) + payload
}
