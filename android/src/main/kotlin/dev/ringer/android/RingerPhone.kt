package dev.ringer.android

import android.app.NotificationManager
import android.content.ActivityNotFoundException
import android.content.ComponentName
import android.content.Context
import android.content.Intent
import android.net.Uri
import android.content.pm.PackageManager
import android.os.Build
import android.os.PowerManager
import android.os.SystemClock
import android.provider.Settings
import android.telecom.TelecomManager
import androidx.core.telecom.CallsManager
import com.google.firebase.messaging.FirebaseMessaging
import dev.ringer.kit.AnswerPolicy
import dev.ringer.kit.Call
import dev.ringer.kit.CallBackLog
import dev.ringer.kit.CallBackRequest
import dev.ringer.kit.CallCoordinator
import dev.ringer.kit.CallState
import dev.ringer.kit.DataMessageOutcome
import dev.ringer.kit.DeviceReadiness
import dev.ringer.kit.EventStream
import dev.ringer.kit.FileCallMemoryStore
import dev.ringer.kit.FileClockOffsetStore
import dev.ringer.kit.FilePendingActionStore
import dev.ringer.kit.FileResumePoints
import dev.ringer.kit.HttpTransport
import dev.ringer.kit.IncomingCallReport
import dev.ringer.kit.InstallationId
import dev.ringer.kit.Party
import dev.ringer.kit.PushTokenAge
import dev.ringer.kit.PushTokenRegistrar
import dev.ringer.kit.ReadinessCheck
import dev.ringer.kit.RingerApiClient
import dev.ringer.kit.WebSocketTransport
import dev.ringer.kit.okhttp.OkHttpTransport
import dev.ringer.kit.okhttp.OkHttpWebSocketTransport
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.delay
import okhttp3.OkHttpClient
import java.io.File
import java.util.concurrent.TimeUnit

/**
 * Everything an Android app needs to ring like a phone, wired together (Swift: RingerKitApple's `RingerPhone`):
 * the self-managed `ConnectionService` ([TelecomCallUi]), the incoming-call notification, the
 * [CallCoordinator] that makes every decision, the [PushTokenRegistrar], the server's event stream, and the
 * readiness pre-flight. Its state files live in `filesDir/ringer/`, so a decline or an answer given just before
 * the process died still reaches the server, and a call that ended never rings again; the installation id lives
 * apart, out of backups ([installationId]).
 *
 * Create it once, in `Application.onCreate`: Android runs that before any service, so an FCM message that
 * starts a killed app finds the coordinator ready ([RingerComponents]). Then say who is logged in:
 * ```kotlin
 * phone = RingerPhone(this, server = "https://ringer.example.com",
 *                     notifications = CallNotificationConfig(CallActivity::class.java, R.drawable.ic_call))
 * phone.logIn(userToken)   // after the app's own login, and at launch with the stored token
 * phone.logOut()           // at logout, and at launch when nobody is logged in
 * ```
 * Media starts on [CallCoordinator.Observation.MediaCanStart] (see [observer]). Thread-safe.
 *
 * @param context any context of the app (its application context is kept).
 * @param server the Ringer server's base URL.
 * @param notifications the ringing and ongoing call's notifications (the app's call activity, icons, texts).
 * @param deviceId stable id of this install; by default [installationId].
 * @param fcmProjectId the Firebase project of the token when the server sends through several; null for its default.
 * @param http how API requests are sent; by default OkHttp.
 * @param webSockets how the event stream connects; by default OkHttp, pinging every 25 s so a dead network
 *   is noticed (docs/api: the server pings every 30 s).
 * @param scope where timers, retries and requests run; by default a process-wide scope on `Dispatchers.Default`, with no
 *   `CoroutineExceptionHandler`: every SDK coroutine handles its own failures, so one that escapes is an SDK bug and
 *   crashes as any uncaught exception does. An app that would rather report such a bug than crash adds its own
 *   handler to the scope it passes.
 * @param accountLabel the name of the app's phone account in the system's call settings; by default the package name.
 * @param sdkInt the device's API level (`Build.VERSION.SDK_INT`), a parameter for tests.
 * @param fetchFcmToken whether to ask Firebase for the current token now (`FirebaseMessaging.getToken()`):
 *   `onNewToken` is not called again for a token an earlier app version already had.
 * @param streamStatus the event stream's state, for a "reconnecting…" banner; on any thread. After
 *   [EventStream.Status.Unauthorized] call [logIn] with a fresh token.
 * @param readinessChanged the readiness problems ([dev.ringer.kit.ReadinessProblem] names) whenever they change,
 *   for the app's own "this phone may not ring" screen; on any thread.
 * @param observer told what the coordinator did, on any thread; start media on `MediaCanStart`.
 * @param now the phone's wall clock, Unix milliseconds (`System.currentTimeMillis()`); the laboratory's phones
 *   pass a scenario's faster clock, so their deadlines agree with a server on the same clock.
 * @param sleepUntil suspends until [now] reads at least the given Unix milliseconds (every timer of the
 *   coordinator); by default a `delay` on [now].
 * @param bootTimeMs the phone's boot time on [now]'s clock, Unix ms (`now()` minus
 *   `SystemClock.elapsedRealtime()`): when it moves the wall clock was set (see [CallCoordinator]).
 * @param groupCallerName how a group call's caller is named on the call screen and the ringing notification: the
 *   caller's name and how many others were rung, "Alice and 2 others" by default; give your own to localize it.
 * @param callUiKind which Android call UI shows the calls ([CallUiKind]); the self-managed `ConnectionService` by
 *   default. A device without Telecom always gets that one, which rings through its notification alone there.
 * @param callBackRequested told, on the main thread, when the user tapped one of the app's calls in the system
 *   dialer's call log (Android 16, Core-Telecom's calls; [callBackRequest]): the app's launch activity opens, and the
 *   app decides whether to call.
 */
class RingerPhone(
    context: Context,
    val server: String,
    notifications: CallNotificationConfig,
    deviceId: String = installationId(context),
    fcmProjectId: String? = null,
    private val http: HttpTransport = OkHttpTransport(defaultClient),
    private val webSockets: WebSocketTransport = OkHttpWebSocketTransport(defaultClient),
    private val scope: CoroutineScope = CoroutineScope(SupervisorJob() + Dispatchers.Default),
    accountLabel: CharSequence = context.packageName,
    private val sdkInt: Int = Build.VERSION.SDK_INT,
    fetchFcmToken: Boolean = true,
    private val streamStatus: (EventStream.Status) -> Unit = {},
    private val readinessChanged: (List<String>) -> Unit = {},
    observer: (CallCoordinator.Observation) -> Unit = {},
    private val now: () -> Long = { System.currentTimeMillis() },
    sleepUntil: suspend (Long) -> Unit = { until -> delay(until - now()) },
    bootTimeMs: () -> Long = { now() - SystemClock.elapsedRealtime() },
    groupCallerName: (String, Int) -> String = { caller, others -> IncomingCallReport.defaultGroupName(caller, others) },
    callUiKind: CallUiKind = CallUiKind.CONNECTION_SERVICE,
    private val callBackRequested: (CallBackRequest) -> Unit = {}
) : PushHandler {
    private val context: Context = context.applicationContext ?: context
    private val folder = stateFolder(this.context)
    private val resumePoints = FileResumePoints(File(folder, "event-resume-points.json"))
    private val tokenAge = PushTokenAge(File(folder, "fcm-token-age.json"))
    private val notificationManager = this.context.getSystemService(Context.NOTIFICATION_SERVICE) as NotificationManager
    private val power = this.context.getSystemService(Context.POWER_SERVICE) as PowerManager
    private val lock = Any()
    private var stream: EventStream? = null
    private var fcmToken: String? = null
    private var tokenObtainedAtMs: Long? = null
    private var readinessProblems: List<String>? = null

    /** Who each Core-Telecom call was with, by Telecom's id of it, for [callBackRequest]. */
    private val callBackLog = CallBackLog(File(folder, "call-back-log.json"))

    /**
     * The call UI: the self-managed `ConnectionService` ([TelecomCallUi], one `Connection` per server call id) or
     * Core-Telecom ([CoreTelecomCallUi], one `addCall` session per call), as [callUiKind] says. On a device without
     * Telecom the first works without (calls ring as notifications only), where a `TelecomManager` may be missing or
     * unusable. It is registered with Telecom before the coordinator exists, whose creation may report a call again
     * (an answer restored from [FileCallMemoryStore]).
     */
    val callUi: AndroidCallUi = run {
        val incoming = IncomingCallNotification(this.context, notificationManager, notifications, sdkInt)
        val telecom = if (AndroidReadiness.telecomSupported(this.context, sdkInt)) {
            this.context.getSystemService(Context.TELECOM_SERVICE) as? TelecomManager
        } else {
            null
        }
        if (callUiKind == CallUiKind.CORE_TELECOM && telecom != null) {
            CoreTelecomCallUi(this.context, CallsManager(this.context), incoming, scope, sdkInt, groupCallerName, callBackLog)
        } else {
            TelecomCallUi(this.context, telecom, incoming, sdkInt, groupCallerName)
        }
    }.also { it.registerWithTelecom(accountLabel) }
    private val systemReadiness = AndroidReadiness(this.context, notificationManager, power, sdkInt, callUi.telecomAvailable)

    /** The platform-neutral brain. */
    val coordinator: CallCoordinator = CallCoordinator(
        deviceId = deviceId, ui = callUi, scope = scope,
        now = now,
        sleepUntil = sleepUntil,
        random = { Math.random() },
        pendingActions = FilePendingActionStore(File(folder, "pending-call-actions.json")),
        clockOffsets = FileClockOffsetStore(File(folder, "clock-offset.json")),
        callMemory = FileCallMemoryStore(File(folder, "call-memory.json")),
        // The wall clock at boot: it moves when the user or the network sets the clock (then the offset is stale).
        bootTimeMs = bootTimeMs,
        observer = observer
    )

    /** Keeps this install's registration on the server in step with its FCM token, readiness and user. */
    val registrar: PushTokenRegistrar = PushTokenRegistrar(deviceId, scope, fcmProjectId)

    init {
        callUi.attach(CoordinatorActions(coordinator))
        RingerComponents.callUi = callUi
        RingerComponents.pushHandler = this
        RingerComponents.callBacks = { intent -> callBack(intent) }
        offerCallBacks(callUi is CoreTelecomCallUi)
        refreshReadiness()
        if (fetchFcmToken) FirebaseMessaging.getInstance().token.addOnSuccessListener { token -> tokenChanged(token) }
    }

    /** This install's device id. */
    val deviceId: String get() = coordinator.deviceId

    /**
     * Starts a login session: registers this device for the user, lets waiting call requests go out (an answer
     * given on the lock screen during launch), and opens the event stream, resuming after the last event this
     * user's stream delivered. Calling it again (a refreshed token) replaces the session.
     * @param userToken the user token the app's backend minted (kept in memory only, never logged).
     */
    fun logIn(userToken: String) {
        val api = RingerApiClient(server, userToken, http)
        registrar.logIn(api)
        coordinator.connect(api)
        val userId = api.userId
        val coordinator = coordinator
        val events = EventStream(
            api, coordinator.deviceId, webSockets, scope,
            onEvent = { event -> coordinator.handle(event) },
            onStatus = { status ->
                // Calls that ended while the socket was down and nothing replays are re-read from the server.
                if (status == EventStream.Status.Connected || status == EventStream.Status.Restored) coordinator.refreshCalls()
                // Answered calls send keepalives while the socket is down.
                coordinator.eventStreamStatusChanged(status)
                streamStatus(status)
            },
            onResumePoint = { seq -> if (userId != null) resumePoints.save(userId, seq) },
            onServerTime = { serverTimeMs -> coordinator.serverTimeObserved(serverTimeMs) }
        )
        val previous = synchronized(lock) {
            val previous = stream
            stream = events
            previous
        }
        previous?.stop()
        events.start(userId?.let { resumePoints.load(it) })
    }

    /**
     * Ends the login session: closes the event stream, unregisters the device with the user's own credentials
     * (retried until acknowledged), and makes ringing messages show nothing. Also call it at launch when nobody
     * is logged in.
     */
    fun logOut() {
        val previous = synchronized(lock) {
            val previous = stream
            stream = null
            previous
        }
        previous?.stop()
        registrar.logOut()
        coordinator.connect(null)
    }

    /**
     * An FCM data message, for apps whose own `FirebaseMessagingService` receives their messages (Android
     * delivers to one service only): call it first in `onMessageReceived`. [RingerMessagingService] calls it
     * itself.
     * @return [DataMessageOutcome.Ignored] for the app's own messages, which it then handles.
     */
    fun handleDataMessage(data: Map<String, String>): DataMessageOutcome = coordinator.handleDataMessage(data)

    /** `RingerMessagingService.onMessageReceived`: handled at once, before any network I/O. */
    override fun dataMessageReceived(data: Map<String, String>) {
        handleDataMessage(data)
    }

    /**
     * A new FCM token (`onNewToken`, or the token `FirebaseMessaging.getToken()` gave at start): registered
     * for the logged-in user, its age kept for the stale-token check.
     */
    override fun tokenChanged(token: String) {
        if (token.length == 0) return
        val obtainedAt = tokenAge.observe(token, now())
        synchronized(lock) {
            fcmToken = token
            tokenObtainedAtMs = obtainedAt
        }
        registrar.setToken(token)
        refreshReadiness()
    }

    /**
     * Reads what would stop this phone ringing (notifications, full-screen intent, battery optimisation,
     * `MANAGE_OWN_CALLS`, the FCM token, a device without Telecom) and reports it to the server with the registration when it changed.
     * Called at start and on a new token; call it from the app's `onResume` too, as the user may have changed
     * a setting.
     * @return the problems now, [dev.ringer.kit.ReadinessProblem] and [AndroidReadinessProblem] names; empty when the
     *   phone can ring.
     */
    fun refreshReadiness(): List<String> {
        val facts = systemReadiness.read()
        val (token, obtainedAt) = synchronized(lock) { Pair(fcmToken, tokenObtainedAtMs) }
        val problems = ReadinessCheck.evaluate(facts.toReadinessFacts(token, obtainedAt), now()) +
            facts.androidProblems()
        val changed = synchronized(lock) {
            val changed = readinessProblems != problems
            readinessProblems = problems
            changed
        }
        registrar.setReadiness(DeviceReadiness(problems))
        if (changed) readinessChanged(problems)
        return problems
    }

    /**
     * Opens the system page where the user lets this app show full-screen notifications, the incoming-call screen
     * over the lock screen (Android 14+: "Manage full screen intents"), for when [refreshReadiness] reports
     * [dev.ringer.kit.ReadinessProblem.FULL_SCREEN_INTENT_DENIED]. Google Play grants the permission only to calling
     * and alarm apps at install, and the user may revoke it; without it a call rings as a heads-up notification
     * only (docs/android-integration.md).
     * @return true when the page was opened; false below Android 14 (nothing to grant) or when the device has no
     *   such page.
     */
    fun openFullScreenIntentSettings(): Boolean {
        if (sdkInt < Build.VERSION_CODES.UPSIDE_DOWN_CAKE) return false
        return startSettings(Intent(Settings.ACTION_MANAGE_APP_USE_FULL_SCREEN_INTENT)
            .setData(Uri.fromParts("package", context.packageName, null)))
    }

    /** Starts a settings page from the application's context; false when the device has none for [intent]. */
    private fun startSettings(intent: Intent): Boolean = try {
        // Started from the application's context, outside any activity's task.
        context.startActivity(intent.addFlags(Intent.FLAG_ACTIVITY_NEW_TASK))
        true
    } catch (missing: RuntimeException) {
        // ActivityNotFoundException: an OEM settings app without the page (some throw SecurityException instead).
        false
    }

    /**
     * Opens the system page that fixes a readiness [problem], as [refreshReadiness] names it:
     * - [dev.ringer.kit.ReadinessProblem.NOTIFICATIONS_DISABLED]: the app's notification settings
     *   (`Settings.ACTION_APP_NOTIFICATION_SETTINGS` with `Settings.EXTRA_APP_PACKAGE`, API 26);
     * - [dev.ringer.kit.ReadinessProblem.BATTERY_OPTIMIZED]: the list of apps and their battery optimisation
     *   (`Settings.ACTION_IGNORE_BATTERY_OPTIMIZATION_SETTINGS`), where the user picks this app. Not
     *   `ACTION_REQUEST_IGNORE_BATTERY_OPTIMIZATIONS`, which needs a permission Google Play allows only to a few kinds
     *   of app (developer.android.com, "Optimize for Doze and App Standby");
     * - [dev.ringer.kit.ReadinessProblem.FULL_SCREEN_INTENT_DENIED]: [openFullScreenIntentSettings].
     * @return true when a page was opened; false for any other problem, and when the device has no such page.
     */
    fun openSettings(problem: String): Boolean = when (problem) {
        dev.ringer.kit.ReadinessProblem.NOTIFICATIONS_DISABLED -> startSettings(
            Intent(Settings.ACTION_APP_NOTIFICATION_SETTINGS).putExtra(Settings.EXTRA_APP_PACKAGE, context.packageName))
        dev.ringer.kit.ReadinessProblem.BATTERY_OPTIMIZED ->
            startSettings(Intent(Settings.ACTION_IGNORE_BATTERY_OPTIMIZATION_SETTINGS))
        dev.ringer.kit.ReadinessProblem.FULL_SCREEN_INTENT_DENIED -> openFullScreenIntentSettings()
        else -> false
    }

    /**
     * The app's call activity's intents (from the notification's content, full-screen and answer actions):
     * [RingerIntents.ACTION_SHOW_INCOMING_CALL] also counts as [appInForeground] (the ongoing call's notification,
     * tapped to turn a refused microphone on, sends it) and gives the call id to show. The answer action's answer is
     * taken by [RingerAnswerActivity] before this activity sees its intent, which is then the show intent, so an
     * `onNewIntent` the app misses loses no answer; [RingerIntents.ACTION_ANSWER] here (a notification an earlier
     * SDK version posted) answers too. Call it from `onCreate` and `onNewIntent`.
     * @return the call id, or null when the intent is not Ringer's or its call is over (an old intent after process
     *   death, or a relaunch from Recents): then show no call screen.
     */
    fun handleCallIntent(intent: Intent?): String? {
        val callId = intent?.getStringExtra(RingerIntents.EXTRA_CALL_ID) ?: return null
        if (callUi.peer(callId) == null) return null
        return when (intent.action) {
            RingerIntents.ACTION_ANSWER -> { callUi.answer(callId); callId }
            RingerIntents.ACTION_SHOW_INCOMING_CALL -> {
                // The call screen is in front: a microphone Android refused in the background can start now.
                callUi.appInForeground()
                callId
            }
            else -> null
        }
    }

    /**
     * Who to call back when the user tapped one of the app's calls in the system dialer's call log: Android 16 logs
     * every call added through Core-Telecom ([CallUiKind.CORE_TELECOM]) once an activity of the app declares an intent
     * filter for `TelecomManager.ACTION_CALL_BACK` (`android.telecom.action.CALL_BACK`), and sends it that intent with
     * the call's Telecom id (`EXTRA_UUID`) on a tap. Call it from that activity's `onCreate` and `onNewIntent`, then
     * decide whether to call ([startCall]): a tap in a list is not consent to ring someone at once
     * (docs/android-integration.md, "Calling back from the call log").
     * @return the other party and whether it was a video call; null for any other intent, or a call this phone does not
     *   remember (one of the newest 500 it added through Core-Telecom; the `ConnectionService` UI's calls are not
     *   logged by the system).
     */
    fun callBackRequest(intent: Intent?): CallBackRequest? {
        if (intent?.action != TelecomManager.ACTION_CALL_BACK) return null
        val telecomCallId = intent.getStringExtra(TelecomManager.EXTRA_UUID) ?: return null
        return callBackLog.find(telecomCallId)
    }

    /**
     * Enables [RingerCallBackActivity] (disabled in the library's manifest) for Core-Telecom, whose calls Android 16
     * logs once an activity takes `ACTION_CALL_BACK`, and disables it otherwise, so an app that changed its call UI
     * keeps no stale registration. `DONT_KILL_APP`: the running process goes on.
     */
    private fun offerCallBacks(on: Boolean) {
        val state = if (on) PackageManager.COMPONENT_ENABLED_STATE_ENABLED else PackageManager.COMPONENT_ENABLED_STATE_DEFAULT
        try {
            context.packageManager.setComponentEnabledSetting(
                ComponentName(context, RingerCallBackActivity::class.java), state, PackageManager.DONT_KILL_APP)
        } catch (e: RuntimeException) {
            // A component the app's manifest removed (tools:node="remove"): no call back, nothing else changes.
        }
    }

    /**
     * [RingerCallBackActivity]'s intent: a call this phone remembers is told to [callBackRequested] and the app's launch
     * activity opens (a new task, or the app's task brought to the front), over the finishing activity; any other
     * intent does nothing.
     */
    private fun callBack(intent: Intent?) {
        val request = callBackRequest(intent) ?: return
        callBackRequested(request)
        val launch = context.packageManager.getLaunchIntentForPackage(context.packageName) ?: return
        try {
            context.startActivity(launch.addFlags(Intent.FLAG_ACTIVITY_NEW_TASK))
        } catch (e: ActivityNotFoundException) {
            // No launcher activity to open: the app heard of the request all the same.
        }
    }

    /**
     * Tells the SDK the app is in front of the user; call it from the app's activities' `onResume`. An answered call
     * whose microphone Android refused while the app was in the background (answered from a headset, car or watch;
     * Android 14 refuses, Android 11-13 withholds it) gets it now, as a visible app may start a microphone
     * foreground service (developer.android.com, "Restrictions on starting a foreground service from the
     * background"). Does nothing without such a call.
     */
    fun appInForeground() {
        callUi.appInForeground()
    }

    /**
     * Calls a user: the server creates the call and rings the callee's devices, then Telecom shows it as an
     * outgoing self-managed call. The answer arrives as `OutgoingAnswered`, media as `MediaCanStart`.
     * @param callWaiting true to ring a callee who is in another call as a waiting call, false to get `busy`; null: the
     *   server's `--call-waiting`.
     * @return the call; when its state is not `ringing` (busy, failed), nothing is shown.
     * @throws dev.ringer.kit.RingerApiException when the server refused.
     * @throws CallUiException when Telecom refused (`MANAGE_OWN_CALLS` missing); the call is then ended on the server.
     */
    suspend fun startCall(callee: String, hasVideo: Boolean = false, callWaiting: Boolean? = null): Call {
        val call = coordinator.startCall(callee, hasVideo, callWaiting)
        if (call.state != CallState.RINGING) return call
        try {
            callUi.placeOutgoingCall(call.callId, Party(callee, call.callee.name), hasVideo)
        } catch (e: CallUiException) {
            coordinator.end(call.callId) {}
            throw e
        }
        return call
    }

    /**
     * Rings several people in one call ([CallCoordinator.startGroupCall]) and, when it rings, places it on Telecom as
     * one outgoing call whose address is the first callee.
     * @return the call with its legs; when its state is not `ringing` (busy, failed) nothing rings.
     * @throws RingerApiException the server refused or did not answer; [CallUiException] when Telecom refused the call,
     *   which is then cancelled on the server.
     */
    suspend fun startGroupCall(callees: List<String>, answerPolicy: AnswerPolicy = AnswerPolicy.FIRST_ANSWER,
                               hasVideo: Boolean = false, callWaiting: Boolean? = null): Call {
        val call = coordinator.startGroupCall(callees, answerPolicy, hasVideo, callWaiting)
        if (call.state != CallState.RINGING) return call
        try {
            callUi.placeOutgoingCall(call.callId, call.callee, hasVideo)
        } catch (e: CallUiException) {
            coordinator.end(call.callId) {}
            throw e
        }
        return call
    }

    /** Defaults. */
    companion object {
        /** One OkHttp client for the API and the event stream, as OkHttp advises (pooled connections). */
        private val defaultClient: OkHttpClient by lazy {
            OkHttpClient.Builder().pingInterval(25, TimeUnit.SECONDS).readTimeout(30, TimeUnit.SECONDS).build()
        }

        /**
         * A stable id for this app install ([InstallationId]), kept in `noBackupFilesDir/ringer/installation-id`:
         * new after a reinstall or "clear data", like the FCM token, and never restored onto another phone. Android's
         * Auto Backup copies `filesDir` to a new phone (developer.android.com, "Back up user data with Auto Backup",
         * which names `getNoBackupFilesDir()` for ids like this one); a restored id would make both phones one device
         * to the server, the new one's registration replacing the old one's. An id an earlier version kept in
         * `filesDir/ringer/` is moved here (the same id), its old file deleted once the new one is written.
         */
        @JvmStatic fun installationId(context: Context): String {
            val app = context.applicationContext ?: context
            return InstallationId.load(File(File(app.noBackupFilesDir, "ringer"), "installation-id"),
                                       formerFile = File(stateFolder(app), "installation-id"))
        }

        private fun stateFolder(context: Context): File = File(context.filesDir, "ringer")
    }
}

/**
 * The Android call UIs [RingerPhone] can show calls with (docs/android-integration.md, "Two call UIs"). Both ring,
 * answer, hold and route audio the same way for the user and the core.
 */
enum class CallUiKind {
    /**
     * A self-managed `ConnectionService` ([TelecomCallUi]): the platform API every Android version since 8 has, with
     * the notification-only fallback for devices without Telecom. The default: it is what the laboratory's simulated
     * phone runs through every scenario.
     */
    CONNECTION_SERVICE,

    /**
     * Jetpack Core-Telecom ([CoreTelecomCallUi], `androidx.core:core-telecom`): on Android 14+ the platform's
     * transactional calls, whose foreground priority gives a call answered from a watch or a car in the background its
     * microphone, and the system's call log (`ACTION_CALL_BACK`, Android 16).
     */
    CORE_TELECOM
}
