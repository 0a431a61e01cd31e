package dev.ringer.kit

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.runBlocking
import java.io.IOException
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/** One request a [FakeHttpTransport] received. */
class RecordedRequest(val method: String, val url: String, val headers: Map<String, String>, val body: ByteArray?) {
    val text: String? get() = body?.let { String(it, Charsets.UTF_8) }
    override fun toString(): String = "$method $url"
}

/** An [HttpTransport] that records every request and answers with [answer] (which may throw IOException). */
class FakeHttpTransport(var answer: suspend (RecordedRequest) -> HttpResponse) : HttpTransport {
    val requests = LinkedBlockingQueue<RecordedRequest>()

    override suspend fun send(method: String, url: String, headers: Map<String, String>, body: ByteArray?): HttpResponse {
        val request = RecordedRequest(method, url, headers, body)
        requests.put(request)
        return answer(request)
    }

    /** The next request, waiting up to 5 s; fails the test when none came. */
    fun next(): RecordedRequest = requests.poll(5, TimeUnit.SECONDS) ?: throw AssertionError("no request arrived")

    /** Asserts that no request arrives within [ms] milliseconds. */
    fun assertNoneWithin(ms: Long) {
        val extra = requests.poll(ms, TimeUnit.MILLISECONDS)
        if (extra != null) throw AssertionError("unexpected request $extra")
    }

    companion object {
        fun json(status: Int, text: String, headers: Map<String, String> = emptyMap()): HttpResponse =
            HttpResponse(status, headers + ("Content-Type" to "application/json"), text.toByteArray())
    }
}

/** A clock tests move by hand: [sleepUntil] returns once [advance] reached the deadline. */
class FakeClock(start: Long = 1_767_225_600_000L) {
    private val lock = Any()
    private var current = start
    private val sleepers = ArrayList<Pair<Long, CompletableDeferred<Unit>>>()

    fun now(): Long = synchronized(lock) { current }

    /** The deadlines of the sleeps waiting now. */
    val deadlines: List<Long> get() = synchronized(lock) { sleepers.map { it.first } }

    suspend fun sleepUntil(deadline: Long) {
        val waiter = synchronized(lock) {
            if (deadline <= current) return
            CompletableDeferred<Unit>().also { sleepers.add(Pair(deadline, it)) }
        }
        try {
            waiter.await()
        } finally {
            synchronized(lock) { sleepers.removeAll { it.second === waiter } }
        }
    }

    fun advance(ms: Long) {
        val due = synchronized(lock) {
            current += ms
            sleepers.filter { it.first <= current }
        }
        due.forEach { it.second.complete(Unit) }
    }
}

/** Waits up to 5 s for [condition]. */
fun eventually(what: String, condition: () -> Boolean) {
    val deadline = System.nanoTime() + 5_000_000_000L
    while (!condition()) {
        if (System.nanoTime() > deadline) throw AssertionError("timed out waiting for $what")
        Thread.sleep(2)
    }
}

/** A [WebSocketTransport] whose attempts the test scripts one by one through [outcomes]. */
class FakeWebSocketTransport : WebSocketTransport {
    /** How the next attempt ends: null opens it, an exception fails it. */
    val outcomes = Channel<IOException?>(Channel.UNLIMITED)

    /**
     * Scripts the next attempt's outcome. `send` on an unlimited channel never suspends; it is used rather than
     * `offer`, which newer kotlinx-coroutines (the Gradle build's) refuses as deprecated.
     */
    fun script(outcome: IOException?) = runBlocking { outcomes.send(outcome) }
    val attempts = LinkedBlockingQueue<Pair<String, Map<String, String>>>()
    val connections = LinkedBlockingQueue<Connection>()

    class Connection(private val onText: (String) -> Unit, private val onClose: (WebSocketClose) -> Unit) :
        WebSocketChannel {
        @Volatile var closedByClient = false
        private var ended = false

        fun send(text: String) = onText(text)

        fun closeFromServer(close: WebSocketClose) {
            synchronized(this) {
                if (ended) return
                ended = true
            }
            onClose(close)
        }

        override fun close() {
            closedByClient = true
            closeFromServer(WebSocketClose.NORMAL)
        }
    }

    override suspend fun connect(url: String, headers: Map<String, String>, onText: (String) -> Unit,
                                 onClose: (WebSocketClose) -> Unit): WebSocketChannel {
        attempts.put(Pair(url, headers))
        val failure = outcomes.receive()
        if (failure != null) throw failure
        val connection = Connection(onText, onClose)
        connections.put(connection)
        return connection
    }

    fun nextAttempt(): Pair<String, Map<String, String>> =
        attempts.poll(5, TimeUnit.SECONDS) ?: throw AssertionError("no connection attempt")

    /** Asserts that no connection is attempted within [ms] milliseconds. */
    fun assertNoAttemptWithin(ms: Long) {
        val extra = attempts.poll(ms, TimeUnit.MILLISECONDS)
        if (extra != null) throw AssertionError("unexpected attempt ${extra.first}")
    }

    fun nextConnection(): Connection = connections.poll(5, TimeUnit.SECONDS) ?: throw AssertionError("no connection")
}

/** Wire JSON for tests. */
object Samples {
    /** A compact JWT (unsigned: the client never verifies) whose payload is [payload]. */
    fun jwt(payload: String): String {
        val encoder = java.util.Base64.getUrlEncoder().withoutPadding()
        return encoder.encodeToString("{\"alg\":\"HS256\"}".toByteArray()) + "." +
            encoder.encodeToString(payload.toByteArray()) + ".c2lnbmF0dXJl"
    }

    fun call(id: String = "c1", state: String = "ringing"): String =
        "{\"call_id\":\"$id\",\"state\":\"$state\",\"caller\":{\"id\":\"alice\",\"name\":\"Alice\"}," +
            "\"callee\":{\"id\":\"bob\"},\"has_video\":false,\"created_at\":\"2026-12-01T12:00:00.000Z\"," +
            "\"expires_at\":\"2026-12-01T12:00:30.000Z\"}"

    fun event(seq: Long, type: String = "call.incoming", callId: String = "c1"): String =
        "{\"seq\":$seq,\"type\":\"$type\",\"call\":${call(callId)}}"

    fun device(id: String, fcmToken: String?, readiness: String? = null): String =
        "{\"device_id\":\"$id\",\"user_id\":\"bob\",\"platform\":\"android\"" +
            (fcmToken?.let { ",\"fcm_token\":\"$it\"" } ?: "") +
            ",\"updated_at\":\"2026-12-01T12:00:00.000Z\"" + (readiness?.let { ",\"readiness\":$it" } ?: "") + "}"
}
