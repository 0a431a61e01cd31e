package dev.ringer.lab

import org.json.JSONObject
import java.io.File
import java.net.HttpURLConnection
import java.net.URL
import java.nio.file.Files
import java.util.concurrent.ScheduledExecutorService
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * Where a hosted phone's world is: the server, the FCM sandbox, the clock, and how to start app processes.
 * @property serverUrl the Ringer server's base URL (`http://127.0.0.1:<port>`).
 * @property fcm the FCM sandbox the phones' Play services connect to.
 * @property clock the scenario's clock.
 * @property processes how app processes start.
 * @property timers runs the users' delayed answers and declines.
 * @property output where events go.
 */
class HostWorld(
    val serverUrl: String,
    val fcm: FcmSandboxEndpoint,
    val clock: ScaledClock,
    val processes: AppProcessLoader,
    val timers: ScheduledExecutorService,
    val output: HostOutput
)

/**
 * One simulated Android phone with the app installed: Google Play services holding the FCM sandbox's socket, the
 * app's storage (kept across process deaths), at most one [AppProcess] at a time, and the phone's state, which
 * [AndroidRules] reads at every decision: what a message does, whether the process survives an app-state change,
 * whether the event stream may be open, how a call shows, whether a foreground service may start.
 *
 * Thread-safe: one lock guards the state; processes are called outside it.
 * @param spec what `add_phone` asked for.
 * @param world the server, the sandbox, the clock.
 */
class HostedPhone(val spec: PhoneSpec, private val world: HostWorld) : java.io.Closeable {
    private val lock = Any()
    private val storage: File = Files.createTempDirectory("ringer-lab-phone-").toFile()
    private val play = PlayServices(world.fcm)
    private var appState = AppState.FORCE_STOPPED
    private var online = spec.online
    private var dozing = spec.dozing
    private var locked = spec.locked
    private var granted: Set<LabPermission> = spec.granted
    private var userToken: String? = spec.userToken
    private var process: AppProcess? = null
    private val highPriorityMessages = AtomicInteger(0)
    /** Why Android withheld a message, by message name, until Play services acks it (under [lock]). */
    private val notDelivered = HashMap<String, String>()
    private val userActions = AtomicInteger(0)

    /** The Ringer server this phone's app talks to: its own `server_url`, else the host's. */
    private val serverUrl: String get() = spec.serverUrl ?: world.serverUrl

    /** The phone's FCM registration token. Not a secret of the user's, but never logged in full either. */
    val fcmToken: String get() = play.fcmToken

    /** The phone now, as the rules read it. */
    fun state(): PlatformState = synchronized(lock) {
        PlatformState(
            apiLevel = spec.apiLevel, appState = appState, processRunning = process != null, online = online,
            dozing = dozing, locked = locked, granted = granted,
            foregroundServiceRunning = process?.foregroundServiceRunning ?: false,
            highPriorityMessage = highPriorityMessages.get() > 0)
    }

    /**
     * Installs the app and opens it, as the Swift stand-in's `installAndLogIn` does: Play services registers the
     * token with the FCM sandbox and connects (unless offline), the app starts in the foreground and logs in with
     * the stored token (its registrar registers the device with the FCM token); when a token is stored, waits until
     * the server lists the device with it. Then moves the app to [PhoneSpec.appState].
     * @throws HostError `registration_failed` when the server did not list the device within 10 s (real time).
     */
    fun install() {
        play.app = { message -> deliver(message) }
        play.notDeliveredReason = { message -> synchronized(lock) { notDelivered.remove(message.name) } ?: "the app could not take it" }
        play.register(AndroidRules.reachability(state()))
        if (online) play.connect(AndroidRules.reachability(state()))
        setAppState(AppState.FOREGROUND)
        val token = synchronized(lock) { userToken }
        if (token != null && online) awaitRegistered(token)
        if (spec.appState != AppState.FOREGROUND) setAppState(spec.appState)
    }

    /**
     * The user or Android moves the app ([AndroidRules.processAfter]): opening it starts a process; a swipe ends it
     * unless a foreground service runs; a force stop ends it. Leaving or swiping an app that does not run changes
     * nothing (it stays as it was, swiped away or force-stopped).
     */
    fun setAppState(next: AppState) {
        val before = state()
        val fate = AndroidRules.processAfter(next, before)
        synchronized(lock) {
            val ignored = (next == AppState.BACKGROUND || next == AppState.SWIPED_AWAY) && process == null
            if (!ignored) appState = next
        }
        when (fate) {
            ProcessFate.RUNS -> launch()
            ProcessFate.ENDS -> endProcess(next)
            ProcessFate.UNCHANGED -> {}
        }
        platformChanged()
    }

    /** The phone enters or leaves Doze: FCM is told over Play services' socket; the app's sockets follow the rules. */
    fun setDozing(value: Boolean) {
        synchronized(lock) { dozing = value }
        if (state().online) play.setReachability(AndroidRules.reachability(state()))
        platformChanged()
    }

    /**
     * The network goes or comes back: Play services' socket closes (FCM holds the phone's messages) or reconnects
     * (and FCM delivers them); the app's requests fail at once while it is down.
     */
    fun setOnline(value: Boolean) {
        synchronized(lock) { online = value }
        if (value) play.connect(AndroidRules.reachability(state())) else play.disconnect()
        platformChanged()
    }

    /** The keyguard shows or goes. */
    fun setLocked(value: Boolean) {
        synchronized(lock) { locked = value }
    }

    /** The user grants or revokes [permission] in Settings. */
    fun setPermission(permission: LabPermission, value: Boolean) {
        synchronized(lock) { granted = if (value) granted + permission else granted - permission }
        platformChanged()
    }

    /** The app's own login with [token] (kept for later processes). */
    fun logIn(token: String) {
        synchronized(lock) { userToken = token }
        running()?.logIn(token)
    }

    /** The app's own logout (later processes start logged out). */
    fun logOut() {
        synchronized(lock) { userToken = null }
        running()?.logOut()
    }

    /**
     * The user acts on [callId]'s call screen: `answer`, `decline` or `hang_up` (Telecom's `onAnswer`, `onReject`,
     * `onDisconnect`), a user action Android exempts from background foreground-service limits.
     * @throws HostError `app_not_running` without a process, `no_such_call` when it has no such connection.
     */
    fun userAction(action: String, callId: String) {
        val app = running() ?: throw HostError("app_not_running", "the app of ${spec.name} is not running")
        val event = when (action) {
            "answer" -> "user_answered"
            "decline" -> "user_declined"
            else -> "user_hung_up"
        }
        world.output.event(event, spec.name, JSONObject().put("call_id", callId))
        userActions.incrementAndGet()
        val done = try {
            when (action) {
                "answer" -> app.answer(callId)
                "decline" -> app.decline(callId)
                else -> app.hangUp(callId)
            }
        } finally {
            userActions.decrementAndGet()
        }
        if (!done) throw HostError("no_such_call", "${spec.name} has no connection for call $callId")
        platformChanged()
    }

    /**
     * A SIM call arrives and the user answers it at once so: `hold_and_accept`, `end_and_accept` or `decline`.
     * @throws HostError `bad_request` for another answer, `app_not_running` without a process (Telecom has no call of
     *   the app's then, and a SIM call changes nothing of it).
     */
    fun simCall(answer: String) {
        if (answer !in SIM_CALL_ANSWERS) throw HostError("bad_request", "unknown answer `$answer`")
        val app = running() ?: throw HostError("app_not_running", "the app of ${spec.name} is not running")
        app.simCall(answer)
        platformChanged()
    }

    /** The SIM call ends. */
    fun simCallEnds() {
        running()?.simCallEnds() ?: world.output.event("sim_call_ended", spec.name, JSONObject())
    }

    /**
     * The user holds or resumes [callId] with the app's own button.
     * @throws HostError `app_not_running` without a process, `no_such_call` when the SDK has no answered call with it.
     */
    fun setHeld(callId: String, held: Boolean) {
        val app = running() ?: throw HostError("app_not_running", "the app of ${spec.name} is not running")
        if (!app.setHeld(callId, held)) throw HostError("no_such_call", "${spec.name} has no answered call $callId")
    }

    /** FCM hands Play services a message: Android's rules decide whether and how the app sees it. */
    private fun deliver(message: FcmMessage): Receipt {
        val fate = AndroidRules.messageFate(state(), message.notification != null)
        when (fate) {
            is MessageFate.NotDelivered -> {
                world.output.event("message_not_delivered", spec.name, JSONObject().put("message", message.name).put("reason", fate.reason))
                synchronized(lock) { notDelivered[message.name] = fate.reason }
                return Receipt.NOT_DELIVERED
            }
            is MessageFate.ShownBySystem -> return if (notification(message.notification!!, "system", fate.shown)) Receipt.USER_VISIBLE else Receipt.SILENT
            MessageFate.StartsProcessThenDelivers -> {
                synchronized(lock) { if (appState == AppState.SWIPED_AWAY) appState = AppState.BACKGROUND }
                launch()
                world.output.event("started_by_message", spec.name, JSONObject().put("message", message.name))
            }
            MessageFate.DeliveredToRunningApp -> {}
        }
        val app = running()
        if (app == null) {
            // The process the message started (or found) ended before it got the message.
            synchronized(lock) { notDelivered[message.name] = "the app's process ended" }
            return Receipt.NOT_DELIVERED
        }
        val high = message.priority == "HIGH"
        if (high) highPriorityMessages.incrementAndGet()
        var visible = try {
            app.receive(message.name, message.data, message.priority)
        } finally {
            if (high) highPriorityMessages.decrementAndGet()
        }
        // In the foreground the app gets the notification block too, and posts it itself.
        val block = message.notification
        if (block != null && notification(block, "app", AndroidRules.notificationsEnabled(state()))) visible = true
        platformChanged()
        return if (visible) Receipt.USER_VISIBLE else Receipt.SILENT
    }

    private fun notification(block: JSONObject, by: String, shown: Boolean): Boolean {
        val fields = JSONObject().put("title", block.optString("title", "")).put("body", block.optString("body", "")).put("posted_by", by)
        world.output.event(if (shown) "notification_shown" else "notification_blocked", spec.name, fields)
        return shown
    }

    /** Starts a process unless one runs, logged in with the stored token (or logged out). */
    private fun launch() {
        synchronized(lock) {
            if (process != null) return
            process = world.processes.start(AppProcessSetup(
                phone = spec.name, storage = storage, serverUrl = serverUrl, deviceId = spec.deviceId,
                fcmToken = play.fcmToken, fcmProjectId = world.fcm.projectId, clock = world.clock, userToken = userToken,
                state = { state() }, userAction = { userActions.get() > 0 }, emit = { name, fields -> appEvent(name, fields) },
                log = { line -> System.err.println("[${spec.name}] $line") }, callUi = spec.callUi))
        }
    }

    /** An event from the app process: passed on, and the user's behaviour scheduled when a call rings. */
    private fun appEvent(name: String, fields: JSONObject) {
        world.output.event(name, spec.name, fields)
        if (name != "ringing" || spec.behaviour.action == "ignore") return
        val callId = fields.getString("call_id")
        val delayMs = world.clock.realMs((spec.behaviour.afterSeconds * 1000).toLong())
        world.timers.schedule({
            try {
                userAction(spec.behaviour.action, callId)
            } catch (e: HostError) {
                // The call closed, or the process died, before the user got to it: nothing to do, as on a phone.
                System.err.println("[${spec.name}] ${spec.behaviour.action} of $callId skipped: ${e.message}")
            }
        }, delayMs, TimeUnit.MILLISECONDS)
    }

    private fun endProcess(reason: AppState) {
        val dead = synchronized(lock) {
            val dead = process
            process = null
            dead
        } ?: return
        dead.die()
        world.output.event("process_ended", spec.name, JSONObject().put("app_state", reason.wire))
    }

    private fun running(): AppProcess? = synchronized(lock) { process }

    private fun platformChanged() {
        running()?.platformChanged()
    }

    /** Polls `GET /v1/devices` with the user's token until this phone's device is listed with its FCM token. */
    private fun awaitRegistered(token: String) {
        val deadline = System.currentTimeMillis() + 10_000
        var last = "no answer"
        while (System.currentTimeMillis() < deadline) {
            try {
                val connection = URL("$serverUrl/v1/devices").openConnection() as HttpURLConnection
                connection.connectTimeout = 2_000
                connection.readTimeout = 5_000
                connection.setRequestProperty("Authorization", "Bearer $token")
                val status = connection.responseCode
                if (status == 200) {
                    val devices = JSONObject(connection.inputStream.bufferedReader().readText()).getJSONArray("devices")
                    val listed = (0 until devices.length()).map { devices.getJSONObject(it) }
                        .any { it.optString("device_id") == spec.deviceId && it.optString("fcm_token") == play.fcmToken }
                    if (listed) return
                    last = "the device is not listed with its FCM token yet"
                } else {
                    last = "GET /v1/devices answered $status"
                }
                connection.disconnect()
            } catch (e: java.io.IOException) {
                last = "GET /v1/devices failed: ${e.message}"
            }
            Thread.sleep(25)
        }
        throw HostError("registration_failed", "${spec.name} was not registered with the server within 10 s: $last")
    }

    /** The app is removed from the host: its process ends, Play services disconnects, its storage is deleted. */
    override fun close() {
        endProcess(AppState.FORCE_STOPPED)
        play.close()
        storage.deleteRecursively()
    }

    private companion object {
        /** How the user may answer a SIM call during the app's call (the platform's "Hold & Accept" choice). */
        val SIM_CALL_ANSWERS = setOf("hold_and_accept", "end_and_accept", "decline")
    }
}
