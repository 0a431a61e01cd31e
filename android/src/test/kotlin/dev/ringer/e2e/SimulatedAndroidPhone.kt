package dev.ringer.e2e

import android.telecom.Connection
import android.telecom.ConnectionRequest
import com.google.android.gms.tasks.Task
import com.google.firebase.messaging.FirebaseMessaging
import com.google.firebase.messaging.RemoteMessage
import dev.ringer.android.CallNotificationConfig
import dev.ringer.lab.app.MirrorPhone
import dev.ringer.android.RingerComponents
import dev.ringer.android.RingerConnection
import dev.ringer.android.RingerConnectionService
import dev.ringer.android.RingerMessagingService
import dev.ringer.android.RingerPhone
import dev.ringer.android.TestCallActivity
import dev.ringer.kit.CallCoordinator
import dev.ringer.kit.EventStream
import dev.ringer.kit.HttpResponse
import dev.ringer.kit.HttpTransport
import dev.ringer.kit.WebSocketChannel
import dev.ringer.kit.WebSocketClose
import dev.ringer.kit.WebSocketTransport
import dev.ringer.kit.okhttp.OkHttpTransport
import dev.ringer.kit.okhttp.OkHttpWebSocketTransport
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import okhttp3.OkHttpClient
import org.json.JSONObject
import java.io.File
import java.nio.file.Files
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.Consumer
import dev.ringer.lab.PlayServices
import dev.ringer.lab.FcmMessage
import dev.ringer.lab.Receipt

/**
 * One Android phone with the app installed, for the end-to-end tests: Google Play services holding the FCM
 * sandbox's socket ([play]), the app's private storage (kept across process deaths) and at most one live app
 * process, in which the real SDK runs — [RingerPhone] created as `Application.onCreate` creates it, the
 * library's `RingerConnectionService` and `RingerMessagingService`, OkHttp to the real server. The platform
 * around them is played here as Android plays it:
 *
 * - **Process life**: a data message for a killed app starts a new process first (Android starts an app for an
 *   FCM message unless it was force-stopped), in the background; [launch] is the user opening the app (visible);
 *   [kill] ends one with its sockets, timers and memory, leaving only its files; [moveToBackground] freezes an app
 *   unless it holds a foreground service.
 * - **While-in-use permissions**: a foreground service started while the app is not visible gets no microphone
 *   (Android 14 refuses the type; see [MirrorPhone.microphoneAvailable]).
 * - **Notifications**: the mirror's `NotificationManager` drops what Android drops without `POST_NOTIFICATIONS`,
 *   except a CallStyle notification while Telecom holds the app's self-managed call.
 * - **Telecom**: an accepted `addNewIncomingCall` is answered on Telecom's own thread by binding the
 *   `ConnectionService` (`onCreateIncomingConnection`) and then `onShowIncomingCallUi`, as for a self-managed
 *   call; the user's answer and decline are Telecom's `onAnswer`/`onReject`.
 * - **Receipts**: a message whose handling left a call ringing, or took a ringing call away, is
 *   `userVisible`, anything else `silent` (FCM's demotion input).
 * - **The network**: [networkDown] takes it away as airplane mode or a dead cell does, [networkUp] gives it back.
 *
 * @param userToken what the app's own login stored: each new process logs in with it at launch; null for a
 *   user who is not logged in, and each new process then calls logOut, as RingerPhone asks of a launch.
 * @param startApp the app's start-up in each new process, given what the process offers ([AppStart]): by default
 *   the SDK guide's `Application.onCreate` ([AppStart.startRingerPhone]); the React Native package's tests start
 *   its host instead, which logs in by itself.
 */
class SimulatedAndroidPhone(private val cluster: RingerCluster, name: String, @Volatile var userToken: String?,
                            private val startApp: (AppStart) -> RingerPhone = { it.startRingerPhone() }) : java.io.Closeable {
    /** Google Play services on this phone. */
    val play = PlayServices(cluster.fcmSandbox)
    /** The app's `filesDir`, which survives its process. */
    val storage: File = Files.createTempDirectory("ringer-android-$name-").toFile()
    /** Everything the coordinator observed, across processes. */
    val observations = CopyOnWriteArrayList<CallCoordinator.Observation>()
    /** The event stream's statuses, across processes. */
    val statuses = CopyOnWriteArrayList<EventStream.Status>()
    /** Processes started so far (by [launch] or by a message). */
    val processStarts = AtomicInteger(0)
    /** What happened on the call screen, across processes: "rang <id>", "closed <id> <DisconnectCause code>". */
    val screen = CopyOnWriteArrayList<String>()
    /**
     * What would have crashed the app: throwables a message handler or Telecom callback threw, and the crashes
     * Android gives for misused services (see [MirrorPhone.crashes]), across processes. The tests expect none.
     */
    val crashes: List<Any> get() = thrown + contexts.flatMap { it.crashes }
    private val thrown = CopyOnWriteArrayList<Throwable>()
    private val contexts = CopyOnWriteArrayList<MirrorPhone>()
    /** Holds chosen API requests of every process before they leave the phone (a slow network), for tests. */
    val network = HeldRequests()

    /** False between [networkDown] and [networkUp]. */
    @Volatile var hasNetwork = true
        private set

    private val lock = Any()
    private var process: AppProcess? = null

    init {
        play.app = { message -> deliver(message) }
        play.register().connect()
    }

    /** The live process, or null when the app is not running. */
    val running: AppProcess? get() = synchronized(lock) { process }

    /** The user opens the app: the live process, or a new one, with an activity in front. */
    fun launch(): AppProcess = running().also { it.context.appVisible = true }

    /** The live process, or a new one in the background (a message woke it). */
    private fun running(): AppProcess = synchronized(lock) {
        process ?: AppProcess().also { process = it }
    }

    /** The system kills the app's process (swiped away, or memory): memory, sockets and timers go; files stay. */
    fun kill() {
        val dead = synchronized(lock) {
            val dead = process
            process = null
            dead
        }
        dead?.die()
    }

    /**
     * The user leaves the app. Android freezes a background app that holds no foreground service (the cached
     * apps freezer, then the low-memory killer), which this plays as [kill]; an app holding one, as a call does,
     * keeps running with its sockets.
     */
    fun moveToBackground() {
        val app = running ?: return
        app.context.appVisible = false
        if (!app.context.foregroundServiceRunning) kill()
    }

    /**
     * Takes the phone's network away (airplane mode, a dead cell): every API request and WebSocket connect of every
     * process fails at once, as OkHttp's do without a route ([NoNetwork]); the event stream's open socket drops; and
     * Play services' socket closes, so FCM keeps the phone's messages until [networkUp].
     */
    fun networkDown() {
        hasNetwork = false
        running?.dropSockets()
        play.disconnect()
    }

    /** Gives the network back: requests go out again, the event stream reconnects on its own, Play services too. */
    fun networkUp() {
        hasNetwork = true
        play.connect()
    }

    private fun deliver(message: FcmMessage): Receipt = receive(message.data)

    /**
     * Android hands a data message to the app as Play services does ([play]'s messages come here): a killed app
     * is started first, then `RingerMessagingService.onMessageReceived` runs and Telecom handles what it asked.
     * @return the receipt the phone acks (userVisible when the message made a call ring or close).
     */
    fun receive(data: Map<String, String>): Receipt {
        val app = running()
        val before = screen.size
        try {
            RingerMessagingService().onMessageReceived(RemoteMessage.Builder("${cluster.fcmProjectId}@fcm.googleapis.com")
                .setData(data).build())
        } catch (e: Throwable) {
            thrown.add(e)
        }
        app.awaitTelecom()
        return if (screen.size > before) Receipt.USER_VISIBLE else Receipt.SILENT
    }

    /** Waits until an observation matches. @throws AssertionError naming [what] after [timeoutMs]. */
    fun awaitObservation(what: String, timeoutMs: Long = 8_000, predicate: (CallCoordinator.Observation) -> Boolean): CallCoordinator.Observation {
        val found = poll(timeoutMs) { observations.firstOrNull(predicate) }
        return found ?: throw AssertionError("no $what observed in $timeoutMs ms: $observations")
    }

    /** Waits until the event stream reported [status] at least [count] times in all. */
    fun awaitStatus(what: String, count: Int = 1, timeoutMs: Long = 8_000, predicate: (EventStream.Status) -> Boolean) {
        poll(timeoutMs) { if (statuses.count(predicate) >= count) true else null }
            ?: throw AssertionError("event stream never reported $what ($count×) in $timeoutMs ms: $statuses")
    }

    /**
     * Waits until [user]'s devices list this phone's app (the running process's device id) with its FCM token.
     * @return the device's JSON. @throws AssertionError after [timeoutMs].
     */
    fun awaitRegistered(user: HttpUser, timeoutMs: Long = 8_000): JSONObject {
        val deviceId = launch().phone.deviceId
        return poll(timeoutMs) {
            val devices = user.devices()
            (0 until devices.length()).map { devices.getJSONObject(it) }
                .firstOrNull { it.getString("device_id") == deviceId && it.optString("fcm_token") == play.fcmToken }
        } ?: throw AssertionError("device $deviceId never registered: ${user.devices()}")
    }

    override fun close() {
        kill()
        play.close()
        storage.deleteRecursively()
    }

    /**
     * One run of the app's process: its own mirror `Context` over the shared storage, its own OkHttp client
     * and coroutine scope, the library's services created by "Android".
     */
    inner class AppProcess {
        private val job = SupervisorJob()
        val context = MirrorPhone(filesDir = storage).also { it.appVisible = false }
        private val service = RingerConnectionService()
        private val telecom: ExecutorService = Executors.newSingleThreadExecutor { Thread(it, "telecom") }
        private val client = OkHttpClient.Builder().connectTimeout(2, TimeUnit.SECONDS).readTimeout(10, TimeUnit.SECONDS)
            .pingInterval(2, TimeUnit.SECONDS).build()
        private val sockets = ClosableWebSockets(OkHttpWebSocketTransport(client)) { hasNetwork }
        /** This process's connections by call id, as Telecom created them. */
        val connections = ConcurrentHashMap<String, Connection>()
        /** The façade, created as `Application.onCreate` creates it. */
        val phone: RingerPhone

        init {
            processStarts.incrementAndGet()
            contexts.add(context)
            service.mirrorAttach(context)
            // Android delivers each foreground-service start on the app's main thread (here Telecom's).
            context.serviceRunner = { start -> telecom.execute(start) }
            context.telecom.mirrorIncomingListener = Consumer { extras -> telecom.execute { createIncoming(extras) } }
            // Firebase hands the app its current token at start (FirebaseMessaging.getToken()).
            FirebaseMessaging.getInstance().mirrorSetTokenTask(Task<String>().also { it.mirrorSucceed(play.fcmToken) })
            phone = startApp(AppStart(context, network.wrap(NoNetwork.unless({ hasNetwork }, OkHttpTransport(client))), sockets,
                                      CoroutineScope(Dispatchers.Default + job)))
        }

        /** The connection Telecom created for [callId]; waits for it. */
        fun connection(callId: String, timeoutMs: Long = 8_000): Connection =
            poll(timeoutMs) { connections[callId] } ?: throw AssertionError("call $callId never rang: $screen")

        /** Waits until [callId]'s connection is in [state]. */
        fun awaitState(callId: String, state: Int, timeoutMs: Long = 8_000): Connection {
            val connection = connection(callId, timeoutMs)
            poll(timeoutMs) { if (connection.state == state) true else null }
                ?: throw AssertionError("call $callId is in state ${connection.state}, not $state: ${connection.mirrorStates}")
            return connection
        }

        /** The user answers on the call screen (Telecom's `onAnswer`). */
        fun answer(callId: String) = telecom.submit { connection(callId).onAnswer() }.get()

        /** The user declines on the call screen (Telecom's `onReject`). */
        fun decline(callId: String) = telecom.submit { connection(callId).onReject() }.get()

        /**
         * The user taps [pick]'s `PendingIntent` of the call's notification (the ringing one while it shows, else the
         * ongoing call's): its activities open in front, the last first: the SDK's RingerAnswerActivity (the answer
         * action's) answers and finishes, and the app's call activity beneath hands its intent to
         * `RingerPhone.handleCallIntent` as the guide's activity does. @return what handleCallIntent returned.
         */
        fun tapNotification(callId: String, pick: (android.app.Notification) -> android.app.PendingIntent?): String? {
            val ringing = context.notificationManager.mirrorShowing["$callId/${dev.ringer.android.IncomingCallNotification.NOTIFICATION_ID}"]
            val notification = ringing ?: context.foregroundNotification ?: throw AssertionError("no notification for $callId")
            val intents = pick(notification)?.mirrorIntents ?: throw AssertionError("the notification has no such action")
            return telecom.submit<String?> {
                context.appVisible = true
                var shown: String? = null
                for (intent in intents.reversed()) {
                    if (intent.component?.className != dev.ringer.android.RingerAnswerActivity::class.java.name) {
                        shown = phone.handleCallIntent(intent)
                        break
                    }
                    val answering = dev.ringer.android.RingerAnswerActivity().also { it.setIntent(intent) }
                    answering.mirrorCreate(null)
                    if (!answering.isFinishing) break
                }
                shown
            }.get()
        }

        /** Waits until Telecom handled everything handed to it so far. */
        fun awaitTelecom() {
            // The coordinator reports on its own threads; give a report in progress time to reach Telecom.
            Thread.sleep(50)
            telecom.submit {}.get(5, TimeUnit.SECONDS)
        }

        private fun createIncoming(extras: android.os.Bundle) {
            try {
                val connection = service.onCreateIncomingConnection(null, ConnectionRequest(null, null, extras))
                if (connection !is RingerConnection) return
                context.telecom.mirrorConnections.add(connection)
                connections[connection.callId] = connection
                screen.add("rang ${connection.callId}")
                connection.onShowIncomingCallUi()
                watch(connection)
            } catch (e: Throwable) {
                thrown.add(e)
            }
        }

        /** Records when the connection is closed (from any thread), for [screen]. */
        private fun watch(connection: RingerConnection) {
            Thread {
                while (!job.isCancelled && connection.state != Connection.STATE_DISCONNECTED) Thread.sleep(10)
                if (connection.state == Connection.STATE_DISCONNECTED) {
                    screen.add("closed ${connection.callId} ${connection.disconnectCause.code}")
                }
            }.apply { isDaemon = true }.start()
        }

        /** The network went: the open sockets break (the event stream sees its socket close). */
        internal fun dropSockets() = sockets.closeAll()

        internal fun die() {
            job.cancel()
            sockets.closeAll()
            telecom.shutdownNow()
            client.dispatcher().executorService().shutdownNow()
            if (RingerComponents.callUi === phone.callUi) {
                RingerComponents.callUi = null
                RingerComponents.pushHandler = null
                RingerComponents.callBacks = null
            }
        }
    }

    /**
     * What a new app process offers the app's start-up: its context, its network (the phone's [network], failing while
     * it is down), its sockets and its lifetime (cancelled when the process dies). [streamStatus] and [observer] record
     * into [statuses] and [observations]: pass them to the phone.
     */
    inner class AppStart(val context: MirrorPhone, val http: HttpTransport, val webSockets: WebSocketTransport, val scope: CoroutineScope) {
        /** The server the cluster runs. */
        val serverUrl: String get() = cluster.serverUrl
        val streamStatus: (EventStream.Status) -> Unit = { statuses.add(it) }
        val observer: (CallCoordinator.Observation) -> Unit = { observations.add(it) }

        /** The SDK guide's `Application.onCreate`: the phone, then login with the stored token, or logout. */
        fun startRingerPhone(): RingerPhone {
            val phone = RingerPhone(context, serverUrl, CallNotificationConfig(TestCallActivity::class.java, 1),
                                    http = http, webSockets = webSockets, scope = scope,
                                    streamStatus = streamStatus, observer = observer)
            // As RingerPhone asks: log in with the stored token at launch, or log out when nobody is logged in.
            val token = userToken
            if (token != null) phone.logIn(token) else phone.logOut()
            return phone
        }
    }

    /**
     * The app's WebSockets, each closed when its process dies (the kernel closes a dead process's sockets) or the
     * network goes; none opens while [hasNetwork] says no.
     */
    private class ClosableWebSockets(private val inner: WebSocketTransport, private val hasNetwork: () -> Boolean) : WebSocketTransport {
        private val open = CopyOnWriteArrayList<WebSocketChannel>()

        override suspend fun connect(url: String, headers: Map<String, String>, onText: (String) -> Unit,
                                     onClose: (WebSocketClose) -> Unit): WebSocketChannel {
            if (!hasNetwork()) throw NoNetwork.failure()
            val channel = inner.connect(url, headers, onText, onClose)
            open.add(channel)
            return channel
        }

        fun closeAll() {
            for (channel in open) channel.close()
            open.clear()
        }
    }

    /** A phone without a network, as OkHttp reports it: the connect fails at once, nothing reaches the server. */
    object NoNetwork {
        /** The exception OkHttp throws when no network is up (Android's `ENETUNREACH`). */
        fun failure(): java.io.IOException = java.net.ConnectException("connect failed: ENETUNREACH (Network is unreachable)")

        /** [inner], failing every request at once while [hasNetwork] says no. */
        fun unless(hasNetwork: () -> Boolean, inner: HttpTransport): HttpTransport = object : HttpTransport {
            override suspend fun send(method: String, url: String, headers: Map<String, String>, body: ByteArray?): HttpResponse {
                if (!hasNetwork()) throw failure()
                return inner.send(method, url, headers, body)
            }
        }
    }

    /**
     * A network that can keep requests back or lose them: while [hold]'s predicate matches a request (method,
     * URL), it waits on the phone until [release], then goes out as sent; [lose] makes the next matching ones
     * fail as a dropped connection does. Thread-safe.
     */
    class HeldRequests {
        private val lock = Any()
        private var predicate: ((String, String) -> Boolean)? = null
        private var losing: ((String, String) -> Boolean)? = null
        private var toLose = 0
        /** "METHOD URL" of every request lost so far. */
        val lost = CopyOnWriteArrayList<String>()

        /** The next [count] requests matching [predicate] fail with an IOException before reaching the server. */
        fun lose(count: Int, predicate: (String, String) -> Boolean) = synchronized(lock) {
            losing = predicate
            toLose = count
        }
        private val waiting = ArrayList<kotlinx.coroutines.CompletableDeferred<Unit>>()
        /** "METHOD URL" of every request held so far. */
        val held = CopyOnWriteArrayList<String>()

        /** From now on requests matching [predicate] (method, absolute URL) wait. */
        fun hold(predicate: (String, String) -> Boolean) = synchronized(lock) { this.predicate = predicate }

        /** Lets every waiting request go and holds nothing more. */
        fun release() {
            val go = synchronized(lock) {
                predicate = null
                val go = waiting.toList()
                waiting.clear()
                go
            }
            for (gate in go) gate.complete(Unit)
        }

        /** [inner] behind this gate. */
        fun wrap(inner: HttpTransport): HttpTransport = object : HttpTransport {
            override suspend fun send(method: String, url: String, headers: Map<String, String>, body: ByteArray?): HttpResponse {
                val lose = synchronized(lock) {
                    val lose = toLose > 0 && losing?.invoke(method, url) == true
                    if (lose) toLose -= 1
                    lose
                }
                if (lose) {
                    lost.add("$method $url")
                    throw java.io.IOException("connection reset (lost by the test's network)")
                }
                val gate = synchronized(lock) {
                    if (predicate?.invoke(method, url) == true) {
                        held.add("$method $url")
                        kotlinx.coroutines.CompletableDeferred<Unit>().also { waiting.add(it) }
                    } else null
                }
                gate?.await()
                return inner.send(method, url, headers, body)
            }
        }
    }

    companion object {
        /** Polls [probe] every 20 ms until it gives a value or [timeoutMs] passes. */
        fun <T> poll(timeoutMs: Long, probe: () -> T?): T? {
            val deadline = System.currentTimeMillis() + timeoutMs
            while (true) {
                probe()?.let { return it }
                if (System.currentTimeMillis() > deadline) return null
                Thread.sleep(20)
            }
        }
    }
}
