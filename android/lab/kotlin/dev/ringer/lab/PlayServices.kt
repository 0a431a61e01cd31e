package dev.ringer.lab

import okhttp3.MediaType
import okhttp3.OkHttpClient
import okhttp3.Protocol
import okhttp3.Request
import okhttp3.RequestBody
import okhttp3.Response
import okhttp3.WebSocket
import okhttp3.WebSocketListener
import org.json.JSONObject
import java.io.File
import java.security.KeyStore
import java.security.SecureRandom
import java.security.cert.CertificateFactory
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.locks.ReentrantLock
import javax.net.ssl.SSLContext
import javax.net.ssl.TrustManagerFactory
import javax.net.ssl.X509TrustManager
import kotlin.concurrent.withLock

/**
 * What the phone tells FCM about a delivered message (docs/fcm.md, "Phones in another process"): whether it
 * showed the user something, which FCM counts for demoting an app's high-priority messages.
 */
enum class Receipt(val wire: String) {
    /** A call rang, a notification showed, or a ringing screen went away. */
    USER_VISIBLE("userVisible"),
    /** The app ran and showed nothing. */
    SILENT("silent"),
    /** The app could not take it (force-stopped…). */
    NOT_DELIVERED("notDelivered")
}

/** One FCM message as the phone received it: the sandbox's `message` frame. */
class FcmMessage(val frame: JSONObject) {
    /** The message's name (`projects/<p>/messages/…`), which its ack repeats. */
    val name: String get() = frame.getString("name")

    /** The data map, string to string, as `RemoteMessage.getData()` hands it to the app. */
    val data: Map<String, String>
        get() {
            val json = frame.optJSONObject("data") ?: return emptyMap()
            val map = LinkedHashMap<String, String>()
            for (key in json.keys()) map[key] = json.getString(key)
            return map
        }

    /** `data.ringer` parsed. @throws AssertionError when it is missing or not a JSON object. */
    val ringer: JSONObject
        get() {
            val text = data["ringer"] ?: throw AssertionError("no data.ringer in $frame")
            return try {
                JSONObject(text)
            } catch (e: org.json.JSONException) {
                throw AssertionError("data.ringer is not JSON: $text")
            }
        }

    /** `data.ringer.type` (`call.incoming`, `call.cancelled`, …), or null when it is not Ringer's. */
    val ringerType: String?
        get() = data["ringer"]?.let { text ->
            try {
                JSONObject(text).optString("type", null)
            } catch (e: org.json.JSONException) {
                null
            }
        }

    /** The priority it was delivered with (`HIGH`, `NORMAL`). */
    val priority: String get() = frame.getString("priority")

    /** The notification block (`title`, `body`) when the message had one, else null. */
    val notification: JSONObject? get() = frame.optJSONObject("notification")

    override fun toString(): String = frame.toString()
}

/**
 * Where a phone finds the FCM sandbox (`ringer-lab sandbox`, docs/fcm.md "Phones in another process").
 * @property url the sandbox's HTTP/1.1 base URL, `https://127.0.0.1:<port>`: the control routes and the phones'
 *   WebSocket.
 * @property caFile the PEM CA that signed the sandbox's certificate (`ringer-lab keys`' `ca.pem`).
 * @property projectId the Firebase project the phones' tokens belong to (the service account's).
 */
class FcmSandboxEndpoint(val url: String, val caFile: File, val projectId: String)

/**
 * The stand-in for Google Play services on one phone: registers the phone's FCM registration token with the
 * FCM sandbox (`POST /sandbox/devices`), holds the sandbox's `wss://` socket (`GET /sandbox/connect`, trusting
 * the sandbox's CA), hands every `message` frame's data to [app] — what Android does when it starts the app's
 * process if needed and calls `FirebaseMessagingService.onMessageReceived` — and acks each with the receipt
 * the app returns.
 *
 * Deliveries run one at a time on one thread, in order, as the sandbox sends them (it sends the next only
 * after the ack). [holdDeliveries] keeps received messages from the app (a message "in flight" on the phone)
 * until [releaseDeliveries].
 *
 * Thread-safety: every method may be called from any thread.
 */
class PlayServices(private val sandbox: FcmSandboxEndpoint, val fcmToken: String = newToken()) : java.io.Closeable {
    /**
     * The app: gets each message's data on the delivery thread and returns what the user saw. Replace it to
     * model a new process (a killed app started afresh by the message).
     */
    @Volatile
    var app: (FcmMessage) -> Receipt = { Receipt.SILENT }

    /**
     * Why the app could not take a message it answered [Receipt.NOT_DELIVERED] for, as the ack's `reason` (the FCM
     * sandbox keeps it as the message's fate, which the race explorer reads: a force-stopped app is withheld
     * rightly, a lost one is not). Called on the delivery thread right after [app].
     */
    @Volatile
    var notDeliveredReason: (FcmMessage) -> String = { "the app could not take it" }

    private val lock = ReentrantLock()
    private val changed = lock.newCondition()
    private val received = mutableListOf<FcmMessage>()
    private val delivered = mutableListOf<FcmMessage>()
    private val held = mutableListOf<FcmMessage>()
    private val errors = mutableListOf<String>()
    private var holding = false
    private var socket: WebSocket? = null
    private var open = false
    private val deliveries = Executors.newSingleThreadExecutor { Thread(it, "play-services-$fcmToken") }

    /** An OkHttp client for the sandbox: trusts only its CA, HTTP/1.1 (the WebSocket's port). */
    val client: OkHttpClient = sandboxClient(sandbox.caFile)

    /**
     * Registers the token with the FCM sandbox for the endpoint's project, reachable as [reachability].
     * @throws AssertionError when the sandbox does not answer with success (201).
     * @throws java.io.IOException when the sandbox cannot be reached.
     */
    fun register(reachability: String = "online"): PlayServices {
        val body = JSONObject().put("token", fcmToken).put("project_id", sandbox.projectId).put("reachability", reachability)
        val request = Request.Builder().url("${sandbox.url}/sandbox/devices")
            .post(RequestBody.create(MediaType.parse("application/json"), body.toString())).build()
        // isSuccessful reads the same in OkHttp 3 and 4, unlike code().
        client.newCall(request).execute().use { response ->
            if (!response.isSuccessful) throw AssertionError("POST /sandbox/devices was refused: $response")
        }
        return this
    }

    /**
     * Opens the socket (replacing an older one) and waits until it is open.
     * @throws AssertionError when it does not open within 5 s.
     */
    fun connect(reachability: String = "online"): PlayServices {
        val request = Request.Builder()
            .url("${sandbox.url}/sandbox/connect?token=$fcmToken&reachability=$reachability").build()
        lock.withLock {
            // Opened under the lock, so onOpen (on OkHttp's thread, which takes the lock) always finds it set: on
            // loopback the upgrade can complete before newWebSocket returns.
            socket = client.newWebSocket(request, Listener())
            open = false
            val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5)
            while (!open) {
                val left = deadline - System.nanoTime()
                if (left <= 0) throw AssertionError("the FCM sandbox socket did not open: $errors")
                changed.awaitNanos(left)
            }
        }
        return this
    }

    /** Tells FCM how the phone can be reached now (`online`, `dozing`, `offline`), over the socket. */
    fun setReachability(reachability: String) {
        val current = lock.withLock { socket } ?: throw AssertionError("setReachability before connect")
        check(current.send(JSONObject().put("type", "reachability").put("reachability", reachability).toString()))
    }

    /** Closes the socket: the phone is offline and FCM stores its messages until it connects again. */
    fun disconnect() {
        val current = lock.withLock {
            val s = socket
            socket = null
            open = false
            s
        }
        current?.close(1000, "phone offline")
    }

    /** From now on received messages wait on the phone instead of reaching the app. */
    fun holdDeliveries() = lock.withLock { holding = true }

    /** Hands the held messages to the app, in order, and stops holding. */
    fun releaseDeliveries() {
        val toDeliver = lock.withLock {
            holding = false
            val copy = held.toList()
            held.clear()
            copy
        }
        for (message in toDeliver) deliveries.execute { deliver(message) }
    }

    /** Every message received so far, in order (held ones too). */
    fun receivedMessages(): List<FcmMessage> = lock.withLock { received.toList() }

    /**
     * Waits until a received message matches [predicate] (held messages count: they reached the phone).
     * @throws AssertionError listing what came after [timeoutMs].
     */
    fun awaitReceived(timeoutMs: Long = 5_000, what: String = "a message", predicate: (FcmMessage) -> Boolean): FcmMessage =
        awaitIn(received, timeoutMs, what, predicate)

    /** Waits until the app was handed, and acked, a message matching [predicate]. */
    fun awaitDelivered(timeoutMs: Long = 5_000, what: String = "a message", predicate: (FcmMessage) -> Boolean): FcmMessage =
        awaitIn(delivered, timeoutMs, what, predicate)

    private fun awaitIn(list: List<FcmMessage>, timeoutMs: Long, what: String, predicate: (FcmMessage) -> Boolean): FcmMessage {
        val deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs)
        lock.lock()
        try {
            var found = list.firstOrNull(predicate)
            while (found == null) {
                val left = deadline - System.nanoTime()
                if (left <= 0) {
                    throw AssertionError("the phone never got $what within $timeoutMs ms; it got ${received.toList()}" +
                        (if (errors.isEmpty()) "" else ", errors $errors"))
                }
                changed.awaitNanos(left)
                found = list.firstOrNull(predicate)
            }
            return found
        } finally {
            lock.unlock()
        }
    }

    /** Frames and failures the sandbox socket reported (`error` frames, a failed upgrade). */
    fun errors(): List<String> = lock.withLock { errors.toList() }

    private fun deliver(message: FcmMessage) {
        val receipt = try {
            app(message)
        } catch (e: Throwable) {
            // An app that throws in onMessageReceived crashes; FCM counts the message delivered and silent.
            lock.withLock { errors += "the app threw ${e.javaClass.name}: ${e.message}" }
            Receipt.SILENT
        }
        val ack = JSONObject().put("type", "ack").put("name", message.name).put("receipt", receipt.wire)
        if (receipt == Receipt.NOT_DELIVERED) ack.put("reason", notDeliveredReason(message))
        lock.withLock {
            socket?.send(ack.toString())
            delivered += message
            changed.signalAll()
        }
    }

    private inner class Listener : WebSocketListener() {
        override fun onOpen(webSocket: WebSocket, response: Response) = lock.withLock {
            if (socket === webSocket) open = true
            changed.signalAll()
        }

        override fun onMessage(webSocket: WebSocket, text: String) {
            val frame = try {
                JSONObject(text)
            } catch (e: org.json.JSONException) {
                lock.withLock { errors += "not JSON from the sandbox: $text"; changed.signalAll() }
                return
            }
            when (frame.optString("type")) {
                "message" -> {
                    val message = FcmMessage(frame)
                    val hold = lock.withLock {
                        received += message
                        if (holding) held += message
                        changed.signalAll()
                        holding
                    }
                    if (!hold) deliveries.execute { deliver(message) }
                }
                else -> lock.withLock { errors += text; changed.signalAll() }
            }
        }

        override fun onFailure(webSocket: WebSocket, t: Throwable, response: Response?) = lock.withLock {
            errors += "socket failed: ${t.javaClass.simpleName} ${t.message} ${response ?: ""}"
            if (socket === webSocket) open = false
            changed.signalAll()
        }

        override fun onClosed(webSocket: WebSocket, code: Int, reason: String) = lock.withLock {
            if (socket === webSocket) open = false
            changed.signalAll()
        }
    }

    /** Closes the socket and stops the delivery thread. */
    override fun close() {
        disconnect()
        deliveries.shutdownNow()
    }

    companion object {
        /** A fresh registration token shaped like FCM's (base64url around a colon). */
        fun newToken(): String = "lab${randomHex(8)}:APA91b${randomHex(40)}"

        private val random = SecureRandom()

        private fun randomHex(bytes: Int): String {
            val data = ByteArray(bytes)
            random.nextBytes(data)
            return data.joinToString("") { String.format("%02x", it.toInt() and 0xff) }
        }

        /**
         * An OkHttp client trusting only the CA in [caPem] (the sandbox's throw-away CA), speaking HTTP/1.1: the
         * phones' socket is on the sandbox's HTTP/1.1 port.
         */
        fun sandboxClient(caPem: File): OkHttpClient {
            val certificate = caPem.inputStream().use { CertificateFactory.getInstance("X.509").generateCertificate(it) }
            val keyStore = KeyStore.getInstance(KeyStore.getDefaultType())
            keyStore.load(null, null)
            keyStore.setCertificateEntry("ringer-sandbox-ca", certificate)
            val factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm())
            factory.init(keyStore)
            val trustManager = factory.trustManagers.filterIsInstance<X509TrustManager>().first()
            val context = SSLContext.getInstance("TLS")
            context.init(null, arrayOf(trustManager), null)
            return OkHttpClient.Builder()
                .sslSocketFactory(context.socketFactory, trustManager)
                .protocols(listOf(Protocol.HTTP_1_1))
                .connectTimeout(3, TimeUnit.SECONDS).readTimeout(10, TimeUnit.SECONDS)
                .build()
        }
    }
}
