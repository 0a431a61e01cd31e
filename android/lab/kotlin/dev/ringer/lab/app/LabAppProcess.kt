package dev.ringer.lab.app

import android.app.ForegroundServiceStartNotAllowedException
import android.content.pm.ServiceInfo
import android.os.Bundle
import android.telecom.Connection
import android.telecom.ConnectionRequest
import android.telecom.DisconnectCause
import androidx.core.telecom.CallsManager
import androidx.core.telecom.MirrorCall
import com.google.android.gms.tasks.Task
import com.google.firebase.messaging.FirebaseMessaging
import dev.ringer.android.CallNotificationConfig
import dev.ringer.android.CallUiKind
import dev.ringer.android.CoreTelecomCallUi
import dev.ringer.android.IncomingCallNotification
import dev.ringer.android.RingerConnection
import dev.ringer.android.RingerComponents
import dev.ringer.android.RingerConnectionService
import dev.ringer.android.RingerIntents
import dev.ringer.android.RingerPhone
import dev.ringer.kit.CallCoordinator
import dev.ringer.kit.DataMessageOutcome
import dev.ringer.kit.EventStream
import dev.ringer.kit.HttpResponse
import dev.ringer.kit.HttpTransport
import dev.ringer.kit.WebSocketChannel
import dev.ringer.kit.WebSocketClose
import dev.ringer.kit.WebSocketTransport
import dev.ringer.kit.okhttp.OkHttpTransport
import dev.ringer.kit.okhttp.OkHttpWebSocketTransport
import dev.ringer.lab.AndroidRules
import dev.ringer.lab.AppProcess
import dev.ringer.lab.AppProcessSetup
import dev.ringer.lab.AppState
import dev.ringer.lab.ForegroundServiceStart
import dev.ringer.lab.PhoneSpec
import dev.ringer.lab.PlatformState
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.runBlocking
import okhttp3.OkHttpClient
import org.json.JSONArray
import org.json.JSONObject
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.function.Consumer

/**
 * One run of the app's process on a hosted phone, loaded by its own class loader: the real SDK — [RingerPhone]
 * created as `Application.onCreate` creates it, the library's `RingerConnectionService` and `CallForegroundService`,
 * OkHttp to the real server — over a [MirrorPhone] whose switches follow the host's [AndroidRules], with Telecom
 * played around them on one "main" thread:
 *
 * - an accepted `addNewIncomingCall` binds the `ConnectionService` (`onCreateIncomingConnection`), then
 *   `onShowIncomingCallUi`; the call shows as [AndroidRules.presentation] says, given whether the SDK's ringing
 *   notification kept its full-screen intent;
 * - the user's answer, decline and hang-up are `onAnswer`, `onReject`, `onDisconnect` on that thread;
 * - `startForegroundService` is refused as [AndroidRules.foregroundServiceStart] says, and each start is delivered
 *   to the service on that thread (the mirror's `Service.startForeground` checks the types);
 * - requests fail at once while the phone is offline, and the event stream's socket is closed (and refused) while
 *   [AndroidRules.eventStreamAllowed] says no (frozen, Doze, offline);
 * - when the process dies, Telecom drops its connections.
 *
 * With `call_ui` `core_telecom` the app shows calls through Core-Telecom (`CallUiKind.CORE_TELECOM`), and Telecom is
 * the Core-Telecom mirror's: a call added and its ringing notification posted rings; the user answers, declines and
 * hangs up on the call's notification (what `RingerAnswerActivity` and `RingerActionReceiver` call); a SIM call
 * answered calls `onSetInactive` ("Hold & Accept") or `onDisconnect` ("End & Accept", or a call that cannot be held),
 * with no call focus to release (a transactional call has none); on API 34+ a call with its `CallStyle` notification
 * gives the app foreground priority, microphone included, as a foreground service would (`CallsManager.addCall`).
 *
 * Emits the events of docs/android-phone-host.md ("Events") through [AppProcessSetup.emit].
 * @param setup the phone, its storage, the server, the clock and the host's callbacks.
 */
class LabAppProcess(private val setup: AppProcessSetup) : AppProcess {
    private val job = SupervisorJob()
    private val context = MirrorPhone(sdkInt = setup.state().apiLevel, filesDir = setup.storage)
    private val service = RingerConnectionService()
    private val telecom: ExecutorService = Executors.newSingleThreadExecutor { Thread(it, "main-${setup.phone}").apply { isDaemon = true } }
    private val client = OkHttpClient.Builder().connectTimeout(2, TimeUnit.SECONDS).readTimeout(10, TimeUnit.SECONDS)
        .pingInterval(2, TimeUnit.SECONDS).build()
    private val sockets = GatedWebSockets(OkHttpWebSocketTransport(client)) { !dead && AndroidRules.eventStreamAllowed(platform()) }
    private val connections = ConcurrentHashMap<String, Connection>()
    private val reported = ConcurrentHashMap<String, Int>()
    /** Whether the app shows calls through Core-Telecom. */
    private val coreTelecom = setup.callUi == PhoneSpec.CALL_UI_CORE_TELECOM
    /** The app's `CallsManager`, once created. */
    @Volatile private var callsManager: CallsManager? = null
    /** Core-Telecom's calls that rang, by call id, and the state each was last reported in. */
    private val coreCalls = ConcurrentHashMap<String, MirrorCall>()
    private val coreReported = ConcurrentHashMap<String, String>()
    /** Changes the user saw: a call rang, a ringing call closed. */
    private val seen = AtomicInteger(0)
    @Volatile private var dead = false
    /** Orders [die] and [emit]: an event is written before the process's death or not at all. */
    private val emitLock = Any()
    @Volatile private var streamAllowed = false
    @Volatile private var visible = false
    @Volatile private var userToken: String? = setup.userToken
    private val phone: RingerPhone

    init {
        context.appVisible = false
        service.mirrorAttach(context)
        applyPlatform()
        // Android delivers each foreground-service start on the app's main thread.
        context.serviceRunner = { start -> telecom.execute(start) }
        context.foregroundStartRule = { intent -> foregroundStartRefusal(intent) }
        context.foregroundServiceRan = { intent, started, wentForeground -> foregroundServiceRan(intent, started.mirrorForegroundType, wentForeground) }
        context.telecom.mirrorIncomingListener = Consumer { extras -> telecom.execute { createIncoming(extras) } }
        if (coreTelecom) CallsManager.mirrorCreated = { manager -> coreTelecomCreated(manager) }
        // Firebase hands the app its current token at start (FirebaseMessaging.getToken()).
        FirebaseMessaging.getInstance().mirrorSetTokenTask(Task<String>().also { it.mirrorSucceed(setup.fcmToken) })
        val clock = setup.clock
        phone = RingerPhone(context, setup.serverUrl, CallNotificationConfig(LabCallActivity::class.java, 1),
                            deviceId = setup.deviceId, sdkInt = setup.state().apiLevel,
                            http = Offline(OkHttpTransport(client)) { setup.state().online }, webSockets = sockets,
                            scope = CoroutineScope(Dispatchers.Default + job),
                            streamStatus = { status -> emit("stream_status", JSONObject().put("status", statusName(status))) },
                            observer = { observed(it) },
                            now = { clock.nowMs() }, sleepUntil = { until -> clock.sleepUntil(until) },
                            // The phone booted at the clock's origin: on the scaled clock, wall time and time since
                            // boot run alike, so the boot time stays put and the learned clock offset is kept.
                            bootTimeMs = { clock.originMs },
                            callUiKind = if (coreTelecom) CallUiKind.CORE_TELECOM else CallUiKind.CONNECTION_SERVICE)
        val token = userToken
        if (token != null) phone.logIn(token) else phone.logOut()
        streamAllowed = AndroidRules.eventStreamAllowed(platform())
        Thread({ watchConnections() }, "telecom-watch-${setup.phone}").apply { isDaemon = true }.start()
    }

    override val foregroundServiceRunning: Boolean get() = context.foregroundServiceRunning || coreTelecomPriority()

    /**
     * Core-Telecom's foreground execution priority on API 34+: "as long as you have an ongoing call and are posting a
     * CallStyle notification" for it (`CallsManager.addCall`); the app is then "treated as a foreground service",
     * with the microphone (Telecom's foreground-service delegation).
     */
    private fun coreTelecomPriority(): Boolean {
        if (!coreTelecom || context.sdkInt < CoreTelecomCallUi.TRANSACTIONAL_API) return false
        val showing = context.notificationManager.mirrorShowing
        return coreCalls.any { (callId, call) ->
            // Only a CallStyle notification counts: the plain form a refusal falls back to gives no priority.
            call.mirrorState != "disconnected" &&
                showing["$callId/${IncomingCallNotification.NOTIFICATION_ID}"]?.mirrorStyle is android.app.Notification.CallStyle
        }
    }

    /** Whether a call's audio has the microphone: the foreground service's type, or Core-Telecom's priority. */
    private fun microphone(): Boolean = context.microphoneAvailable || coreTelecomPriority()

    override fun receive(name: String, data: Map<String, String>, priority: String): Boolean {
        val before = seen.get()
        // What RingerMessagingService.onMessageReceived does, called directly for its outcome.
        val outcome = phone.handleDataMessage(data)
        val fields = JSONObject().put("message", name).put("priority", priority)
        when (outcome) {
            is DataMessageOutcome.Call -> fields.put("outcome", "call").put("call_id", outcome.callId ?: JSONObject.NULL)
                .put("disposition", outcome.disposition.rawValue)
            is DataMessageOutcome.Update -> fields.put("outcome", "update").put("call_id", outcome.callId).put("type", outcome.type.rawValue)
            else -> fields.put("outcome", "ignored")
        }
        emit("message_received", fields)
        awaitTelecom()
        return seen.get() > before
    }

    override fun answer(callId: String): Boolean =
        if (coreTelecom) onCoreTelecom(callId) { ui -> ui.answer(callId) } else onTelecom(callId) { it.onAnswer() }

    override fun simCall(answer: String) {
        emit("sim_call_answered", JSONObject().put("answer", answer))
        if (answer == "decline") return
        if (coreTelecom) {
            simCallOverCoreTelecom(answer)
            return
        }
        val releasesBefore = service.mirrorFocusReleases
        telecom.submit {
            for (connection in connections.values) {
                val state = connection.state
                if (state != Connection.STATE_ACTIVE && state != Connection.STATE_HOLDING) continue
                // AOSP CallsManager: "Hold & Accept" holds the other app's active call, or disconnects it when it
                // cannot be held; "End & Accept" disconnects it.
                val canHold = connection.connectionCapabilities and Connection.CAPABILITY_HOLD != 0
                if (answer == "end_and_accept" || !canHold) connection.onDisconnect()
                else if (state == Connection.STATE_ACTIVE) connection.onHold()
            }
            if (answer == "hold_and_accept") {
                // AOSP ConnectionServiceFocusManager: the SIM call's service asks for the call focus; this app's
                // service must release it within RELEASE_FOCUS_TIMEOUT_MS (5 s) or its calls are disconnected.
                emit("focus_lost", JSONObject())
                service.onConnectionServiceFocusLost()
            }
        }.get(10, TimeUnit.SECONDS)
        awaitTelecom()
        if (answer != "hold_and_accept") return
        if (service.mirrorFocusReleases > releasesBefore) {
            emit("focus_released", JSONObject())
            return
        }
        Thread({
            Thread.sleep(setup.clock.realMs(FOCUS_RELEASE_TIMEOUT_MS))
            if (dead || service.mirrorFocusReleases > releasesBefore) return@Thread
            telecom.execute {
                emit("focus_timeout", JSONObject())
                for (connection in connections.values) {
                    if (connection.state != Connection.STATE_DISCONNECTED) connection.onDisconnect()
                }
            }
        }, "focus-deadline-${setup.phone}").apply { isDaemon = true }.start()
    }

    override fun simCallEnds() {
        emit("sim_call_ended", JSONObject())
    }

    override fun setHeld(callId: String, held: Boolean): Boolean {
        val taken = phone.coordinator.setHeld(callId, held)
        awaitTelecom()
        return taken
    }

    override fun decline(callId: String): Boolean =
        if (coreTelecom) onCoreTelecom(callId) { ui -> ui.decline(callId) {} } else onTelecom(callId) { it.onReject() }

    override fun hangUp(callId: String): Boolean =
        if (coreTelecom) onCoreTelecom(callId) { ui -> ui.hangUp(callId) {} } else onTelecom(callId) { it.onDisconnect() }

    override fun logIn(userToken: String) {
        this.userToken = userToken
        phone.logIn(userToken)
    }

    override fun logOut() {
        userToken = null
        phone.logOut()
    }

    override fun platformChanged() {
        if (dead) return
        applyPlatform()
        val state = platform()
        val allowed = AndroidRules.eventStreamAllowed(state)
        val wasAllowed = streamAllowed
        streamAllowed = allowed
        if (!allowed) sockets.closeAll()
        // A thawed app's reconnect timer would fire late (real time, jittered backoff): it reopens at once, as an app
        // resuming does, from its stored resume point.
        val token = userToken
        if (allowed && !wasAllowed && token != null) phone.logIn(token)
        val nowVisible = state.appState == AppState.FOREGROUND
        if (nowVisible && !visible) phone.appInForeground()
        visible = nowVisible
    }

    override fun die() {
        // Dead from here on: the process's own threads (a Telecom task half done, the SDK's coroutines, OkHttp's
        // callbacks) run on for a moment in this JVM, but a killed Android process does nothing more, so nothing
        // they do is reported after its connections' `ended_by_system`.
        synchronized(emitLock) {
            if (dead) return
            // A connection the SDK closed within the watcher's last period closed before the death: said first.
            reportChanges()
            dead = true
            for ((callId, connection) in connections) {
                if (connection.state != Connection.STATE_DISCONNECTED) setup.emit("ended_by_system", JSONObject().put("call_id", callId))
            }
            for ((callId, call) in coreCalls) {
                if (call.mirrorState != "disconnected") setup.emit("ended_by_system", JSONObject().put("call_id", callId))
            }
        }
        job.cancel()
        sockets.closeAll()
        telecom.shutdownNow()
        client.dispatcher().executorService().shutdownNow()
    }

    /** Reports an event of this process while it lives; a dead process's threads report nothing (see [die]). */
    private fun emit(event: String, fields: JSONObject) {
        synchronized(emitLock) {
            if (!dead) setup.emit(event, fields)
        }
    }

    /**
     * The phone's platform state as this process sees it: the process runs (the phone counts it as running only
     * once it is constructed; seen from here as not running, the stream was first refused and then the app logged
     * in a second time when the phone registered it, and the first stream's late socket replaced the second's).
     */
    private fun platform(): PlatformState = setup.state().copy(processRunning = true)

    /** The mirror's switches from the rules: permissions, notifications, full-screen intents, visibility. */
    private fun applyPlatform() {
        val state = setup.state()
        synchronized(context.granted) {
            context.granted.clear()
            for (permission in state.granted) context.granted.add(permission.manifestName)
        }
        context.telecom.mirrorManageOwnCallsGranted = state.granted.contains(dev.ringer.lab.LabPermission.MANAGE_OWN_CALLS)
        callsManager?.mirrorManageOwnCallsGranted = context.telecom.mirrorManageOwnCallsGranted
        context.notificationManager.mirrorNotificationsEnabled = AndroidRules.notificationsEnabled(state)
        context.notificationManager.mirrorCanUseFullScreenIntent = AndroidRules.fullScreenIntentAllowed(state)
        context.appVisible = state.appState == AppState.FOREGROUND
    }

    private fun foregroundStartRefusal(intent: android.content.Intent): RuntimeException? {
        if (AndroidRules.foregroundServiceStart(setup.state(), setup.userAction()) == ForegroundServiceStart.ALLOWED) return null
        emit("foreground_service_refused", JSONObject().put("call_id", intent.getStringExtra(RingerIntents.EXTRA_CALL_ID) ?: JSONObject.NULL)
            .put("error", "start_not_allowed"))
        return ForegroundServiceStartNotAllowedException("startForegroundService() not allowed due to mAllowStartForeground false")
    }

    private fun foregroundServiceRan(intent: android.content.Intent, type: Int, wentForeground: Boolean) {
        val callId: Any = intent.getStringExtra(RingerIntents.EXTRA_CALL_ID) ?: JSONObject.NULL
        if (!wentForeground) {
            emit("foreground_service_refused", JSONObject().put("call_id", callId).put("error", "security_exception"))
            return
        }
        val types = JSONArray()
        if (type != -1 && type and ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL != 0) types.put("phone_call")
        if (type != -1 && type and ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE != 0) types.put("microphone")
        emit("foreground_service_started", JSONObject().put("call_id", callId).put("types", types)
            .put("microphone", context.microphoneAvailable))
        platformChanged()
    }

    private fun observed(observation: CallCoordinator.Observation) {
        when (observation) {
            is CallCoordinator.Observation.Answered -> emit("media_ready", JSONObject().put("call_id", observation.callId))
            is CallCoordinator.Observation.OutgoingAnswered -> emit("media_ready", JSONObject().put("call_id", observation.callId))
            is CallCoordinator.Observation.MediaCanStart -> emit("audio_started", JSONObject().put("call_id", observation.callId)
                .put("microphone", microphone()))
            is CallCoordinator.Observation.Event -> {
                val event = observation.event
                emit("event", JSONObject().put("seq", event.seq).put("type", event.type.rawValue)
                    .put("call_id", event.call.callId).put("state", event.call.state.rawValue))
            }
            is CallCoordinator.Observation.RequestFailed -> emit("request_failed", JSONObject().put("call_id", observation.callId)
                .put("detail", observation.detail))
            is CallCoordinator.Observation.HeldChanged -> emit("call_held", JSONObject().put("call_id", observation.callId)
                .put("held", observation.held))
            else -> {}
        }
    }

    /** Telecom binds the ConnectionService for an accepted `addNewIncomingCall` and shows the call. */
    private fun createIncoming(extras: Bundle) {
        try {
            val connection = service.onCreateIncomingConnection(null, ConnectionRequest(null, null, extras))
            if (connection !is RingerConnection) return
            context.telecom.mirrorConnections.add(connection)
            connection.onShowIncomingCallUi()
            val notification = context.notificationManager.mirrorShowing["${connection.callId}/${IncomingCallNotification.NOTIFICATION_ID}"]
            val presentation = AndroidRules.presentation(setup.state(), notification?.fullScreenIntent != null)
            reported[connection.callId] = Connection.STATE_RINGING
            seen.incrementAndGet()
            emit("ringing", JSONObject().put("call_id", connection.callId).put("presentation", presentation.wire))
            // Watched only from here: a connection the SDK closed while it was being shown (the call's end arrived
            // meanwhile) is reported `ringing` then `call_ended`, never the other way round.
            connections[connection.callId] = connection
        } catch (e: Throwable) {
            setup.log("onCreateIncomingConnection threw: $e")
        }
    }

    /** The app created its `CallsManager`: Telecom follows its calls. */
    private fun coreTelecomCreated(manager: CallsManager) {
        callsManager = manager
        manager.mirrorManageOwnCallsGranted = context.telecom.mirrorManageOwnCallsGranted
        manager.mirrorAdded = { call -> telecom.execute { coreTelecomAdded(call) } }
        val platformCalls = context.notificationManager.mirrorInSelfManagedCall
        context.notificationManager.mirrorInSelfManagedCall = java.util.function.BooleanSupplier {
            platformCalls.asBoolean || manager.mirrorCalls.any { it.mirrorState != "disconnected" }
        }
    }

    /**
     * Core-Telecom added a call: an incoming one rings once its notification is posted (Core-Telecom shows no incoming
     * UI for a VoIP app), as [AndroidRules.presentation] says given its full-screen intent.
     */
    private fun coreTelecomAdded(call: MirrorCall) {
        if (call.attributes.direction != androidx.core.telecom.CallAttributesCompat.DIRECTION_INCOMING) return
        val callId = (RingerComponents.callUi as? CoreTelecomCallUi)?.callId(call.getCallId()) ?: return
        if (call.mirrorState == "disconnected") return
        val notification = context.notificationManager.mirrorShowing["$callId/${IncomingCallNotification.NOTIFICATION_ID}"]
        val presentation = AndroidRules.presentation(setup.state(), notification?.fullScreenIntent != null)
        coreReported[callId] = call.mirrorState
        seen.incrementAndGet()
        emit("ringing", JSONObject().put("call_id", callId).put("presentation", presentation.wire))
        coreCalls[callId] = call
    }

    /**
     * A SIM call answered over Core-Telecom's calls: Telecom sets an active call inactive ("Hold & Accept"; "If a SIM
     * call arrives and the user answers it, Telecom will invoke onSetInactive", `CallsManager.addCall`), or disconnects
     * it ("End & Accept", or a call added without `SUPPORTS_SET_INACTIVE`).
     */
    private fun simCallOverCoreTelecom(answer: String) {
        telecom.submit {
            for (call in coreCalls.values) {
                val state = call.mirrorState
                if (state != "active" && state != "inactive") continue
                val canHold = call.attributes.callCapabilities and androidx.core.telecom.CallAttributesCompat.SUPPORTS_SET_INACTIVE != 0
                runBlocking {
                    if (answer == "end_and_accept" || !canHold) call.mirrorDisconnect(DisconnectCause(DisconnectCause.LOCAL))
                    else if (state == "active") call.mirrorSetInactive()
                }
            }
        }.get(10, TimeUnit.SECONDS)
        awaitTelecom()
    }

    /** The user acts on a Core-Telecom call's notification, on the main thread, as the library's components do. */
    private fun onCoreTelecom(callId: String, action: (CoreTelecomCallUi) -> Unit): Boolean {
        val call = coreCalls[callId] ?: return false
        if (call.mirrorState == "disconnected") return false
        val ui = RingerComponents.callUi as? CoreTelecomCallUi ?: return false
        telecom.submit { action(ui) }.get(10, TimeUnit.SECONDS)
        awaitTelecom()
        return true
    }

    /** Reports each connection's activation and end (from any thread the SDK changed it on), every 10 ms. */
    private fun watchConnections() {
        while (!dead) {
            reportChanges()
            Thread.sleep(10)
        }
    }

    /**
     * Reports each connection's state change since the last call: `call_active`, `call_ended`. Under [emitLock], so
     * the watcher and [die] (which reports what the watcher has not seen yet before the process's death) never
     * report one change twice.
     */
    private fun reportChanges() {
        synchronized(emitLock) {
            for ((callId, connection) in connections) {
                val state = connection.state
                val last = reported[callId]
                if (state == last) continue
                reported[callId] = state
                when (state) {
                    Connection.STATE_ACTIVE -> emit("call_active", JSONObject().put("call_id", callId))
                    Connection.STATE_DISCONNECTED -> {
                        if (last == Connection.STATE_RINGING) seen.incrementAndGet()
                        ended(callId, connection.disconnectCause)
                    }
                }
            }
            for ((callId, call) in coreCalls) {
                val state = call.mirrorState
                val last = coreReported[callId]
                if (state == last) continue
                coreReported[callId] = state
                when (state) {
                    "active" -> emit("call_active", JSONObject().put("call_id", callId))
                    "disconnected" -> {
                        if (last == "ringing") seen.incrementAndGet()
                        ended(callId, call.mirrorDisconnectCause)
                    }
                }
            }
        }
    }

    private fun ended(callId: String, cause: DisconnectCause?) {
        emit("call_ended", JSONObject().put("call_id", callId).put("cause", causeName(cause?.code ?: DisconnectCause.UNKNOWN))
            .put("reason", cause?.reason ?: JSONObject.NULL))
    }

    private fun onTelecom(callId: String, action: (Connection) -> Unit): Boolean {
        val connection = connections[callId] ?: return false
        if (connection.state == Connection.STATE_DISCONNECTED) return false
        telecom.submit { action(connection) }.get(10, TimeUnit.SECONDS)
        awaitTelecom()
        return true
    }

    /** Waits until the main thread handled what was handed to it so far (the SDK reports on its own threads first). */
    private fun awaitTelecom() {
        Thread.sleep(50)
        if (!dead) telecom.submit {}.get(5, TimeUnit.SECONDS)
        // The watcher reports a connection closed by what was just handled within its 10 ms period.
        Thread.sleep(20)
    }

    /** The app's WebSockets: none opens while [allowed] says no, and [closeAll] breaks the open ones. */
    private class GatedWebSockets(private val inner: WebSocketTransport, private val allowed: () -> Boolean) : WebSocketTransport {
        private val open = CopyOnWriteArrayList<WebSocketChannel>()

        override suspend fun connect(url: String, headers: Map<String, String>, onText: (String) -> Unit,
                                     onClose: (WebSocketClose) -> Unit): WebSocketChannel {
            if (!allowed()) throw java.net.ConnectException("connect failed: the app is frozen, dozing or offline")
            val channel = inner.connect(url, headers, onText, onClose)
            open.add(channel)
            // The app may have been frozen while the socket opened: closeAll ran before it was listed, so close it here.
            if (!allowed()) {
                open.remove(channel)
                channel.close()
                throw java.net.ConnectException("connect failed: the app was frozen while connecting")
            }
            return channel
        }

        fun closeAll() {
            for (channel in open) channel.close()
            open.clear()
        }
    }

    /** [inner], failing every request at once while [online] says no, as OkHttp does without a route. */
    private class Offline(private val inner: HttpTransport, private val online: () -> Boolean) : HttpTransport {
        override suspend fun send(method: String, url: String, headers: Map<String, String>, body: ByteArray?): HttpResponse {
            if (!online()) throw java.net.ConnectException("connect failed: ENETUNREACH (Network is unreachable)")
            return inner.send(method, url, headers, body)
        }
    }

    /** Names. */
    companion object {
        /** AOSP `ConnectionServiceFocusManager.RELEASE_FOCUS_TIMEOUT_MS`: how long Telecom waits for a focus release. */
        const val FOCUS_RELEASE_TIMEOUT_MS = 5000L

        private val CAUSES = mapOf(DisconnectCause.UNKNOWN to "UNKNOWN", DisconnectCause.ERROR to "ERROR",
            DisconnectCause.LOCAL to "LOCAL", DisconnectCause.REMOTE to "REMOTE", DisconnectCause.CANCELED to "CANCELED",
            DisconnectCause.MISSED to "MISSED", DisconnectCause.REJECTED to "REJECTED", DisconnectCause.BUSY to "BUSY",
            DisconnectCause.RESTRICTED to "RESTRICTED", DisconnectCause.OTHER to "OTHER",
            DisconnectCause.ANSWERED_ELSEWHERE to "ANSWERED_ELSEWHERE", DisconnectCause.CALL_PULLED to "CALL_PULLED")

        /** `DisconnectCause`'s constant name for [code] (`REMOTE`), or the number for one not known here. */
        fun causeName(code: Int): String = CAUSES[code] ?: code.toString()

        /** The stream status as the protocol names it: `connected`, `lost`, `restored`, `closed`, … */
        fun statusName(status: EventStream.Status): String = when (status) {
            EventStream.Status.Connected -> "connected"
            EventStream.Status.Restored -> "restored"
            EventStream.Status.Closed -> "closed"
            EventStream.Status.Replaced -> "replaced"
            EventStream.Status.Unauthorized -> "unauthorized"
            is EventStream.Status.Lost -> "lost"
            is EventStream.Status.MessageTooBig -> "message_too_big"
            is EventStream.Status.Refused -> "refused"
            else -> status.toString()
        }
    }
}
