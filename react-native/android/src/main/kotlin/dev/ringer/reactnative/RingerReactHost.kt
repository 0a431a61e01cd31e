package dev.ringer.reactnative

import android.app.Application
import android.content.Context
import android.content.Intent
import android.util.Log
import dev.ringer.android.CallNotificationConfig
import dev.ringer.android.CallUiKind
import dev.ringer.android.RingerPhone
import dev.ringer.kit.AnswerPolicy
import dev.ringer.kit.Call
import dev.ringer.kit.CallBackRequest
import dev.ringer.kit.CallCoordinator
import dev.ringer.kit.EventStream
import dev.ringer.kit.JwtSubject
import dev.ringer.kit.PhoneCallMachine
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.launch
import org.json.JSONArray
import org.json.JSONObject
import java.io.File

/**
 * The native half of `@ringer/react-native`, one per process, alive before JavaScript and without it: it owns the
 * SDK's [RingerPhone] (push registration, Telecom, answers, durable hang-ups), logs the stored user in at launch,
 * turns what the SDK observes into JavaScript's events ([EventTranslator]), keeps them until JavaScript asks
 * ([EventRelay]), writes the call history, and starts the app's Headless JS task after an answer no JavaScript took
 * when the app opted in ([CallAnsweredTask]). [RingerInitProvider] creates it before `Application.onCreate`, so an FCM
 * message that starts a killed app finds the phone ringing-ready and the user logged in; [RingerModule] is the thin
 * JavaScript face of it.
 *
 * State lives in `noBackupFilesDir/ringer/` (private, out of backups): the login ([SessionStore]), the server
 * JavaScript chose, the call history. The server is the one JavaScript chose last, else the manifest's
 * `dev.ringer.server` ([ManifestSettings]); with neither, there is no phone until `configure` names one. A login
 * belongs to the server it was made on: a phone started on another server starts logged out.
 *
 * Thread-safe. Events are translated and handed on under one lock, in the order the SDK observed them.
 *
 * @param context any context of the app (its application context is kept; when that is the [Application], its
 *   activities' call intents are handled here: [CallIntents]).
 * @param makePhone builds the phone from what the host decides ([PhoneSetup]); tests give their own transports.
 * @param scope where placing a call and the readiness check of an app coming to the front run.
 * @param now the phone's clock, Unix ms (the call history's times).
 * @param relayCapacity events kept while JavaScript is not attached.
 */
class RingerReactHost(
    context: Context,
    private val makePhone: (PhoneSetup) -> RingerPhone = { setup -> defaultPhone(setup) },
    private val scope: CoroutineScope = CoroutineScope(SupervisorJob() + Dispatchers.Default),
    now: () -> Long = { System.currentTimeMillis() },
    relayCapacity: Int = EventRelay.DEFAULT_CAPACITY
) {
    /**
     * What the host's phone is made of: the app's context, the server, the notifications and the call UI from the
     * manifest, and the callbacks that feed the host's events (pass each on to the phone).
     */
    class PhoneSetup(
        val context: Context,
        val server: String,
        val notifications: CallNotificationConfig,
        val streamStatus: (EventStream.Status) -> Unit,
        val readinessChanged: (List<String>) -> Unit,
        val observer: (CallCoordinator.Observation) -> Unit,
        val callUiKind: CallUiKind = CallUiKind.CONNECTION_SERVICE,
        val callBackRequested: (CallBackRequest) -> Unit = {}
    )

    private val context: Context = context.applicationContext ?: context
    private val folder = File(this.context.noBackupFilesDir, "ringer")
    private val sessions = SessionStore(folder)
    private val manifest = ManifestSettings.read(this.context)
    /**
     * Guards the translator, the relay, the sink, the history, [outgoing] and [media]: one event at a time, in order.
     */
    private val lock = Any()
    /** Serialises what changes the phone or the login (configure, login, logout). */
    private val phoneLock = Any()
    private val translator = EventTranslator()
    private val relay = EventRelay(relayCapacity)
    private val history = CallHistory(File(folder, "call-history.json"), now)
    /** The Headless JS task after an answer no JavaScript took (opt-in: the manifest's meta-data). */
    private val answeredTask = CallAnsweredTask(this.context, manifest.headlessTaskAfterAnswer)
    /** Outgoing calls' callee (with its name) and video, as startCall returned them, until the call ends. */
    private val outgoing = HashMap<String, CallInfo>()
    /**
     * The media (`{url, token}`) of each call's `accepted` event, until the call ends: getCalls hands it to a
     * JavaScript instance that attaches during the call (a reload), since the event went to the one before.
     */
    private val media = HashMap<String, JSONObject>()
    private var sink: ((JSONObject) -> Unit)? = null
    @Volatile private var startFailure: String? = null

    /** The SDK's phone; null while no server is known, or when it could not be created (see [configure]). */
    @Volatile var phone: RingerPhone? = null
        private set

    init {
        manifest.callActivityProblem?.let { Log.w(CallAnsweredTask.TAG, it) }
        (this.context as? Application)?.registerActivityLifecycleCallbacks(CallIntents(this))
        val server = sessions.loadServer() ?: manifest.server
        if (server != null) synchronized(phoneLock) { startPhone(server) }
    }

    // JavaScript's methods (RingerModule checked the arguments); each throws BridgeError when it refuses.

    /**
     * `configure({server})`: keeps [server] for the next launches, or, when it is the manifest's `dev.ringer.server`,
     * forgets any server kept before (so an app that passes its default at every launch never pins it, and a new app
     * version's default takes effect); null changes nothing. Creates the phone when there was none (on [server], else
     * the stored one, else the manifest's). A phone already running keeps its server until the next launch, as on iOS.
     * @return NativeState: `{server, deviceId, platform, userId, calls, readiness}`; `server` is the one in use,
     *   `userId` null when nobody is logged in there.
     * @throws BridgeError `not_configured` when no server is known or the phone cannot be created (the message says
     *   why); `native` when the server could not be stored.
     */
    fun configure(server: String?): JSONObject {
        val phone = synchronized(phoneLock) {
            // A server given here is kept for the next launch; the phone of this process stays on the server it
            // started with (its login, event stream and calls belong to that server), as on iOS, whose CallKit
            // provider and PushKit registry are made once per process.
            val default = manifest.server
            if (server != null && default != null && sameServer(server, default)) {
                sessions.clearServer()
            } else if (server != null && !sessions.saveServer(server)) {
                throw BridgeError(BridgeError.NATIVE, "the server could not be stored")
            }
            phone ?: startPhone(server ?: sessions.loadServer() ?: default ?: throw notConfigured())
                ?: throw notConfigured()
        }
        return JSONObject().put("server", phone.server).put("deviceId", phone.deviceId).put("platform", "android")
            .put("userId", sessions.load()?.userId ?: JSONObject.NULL).put("calls", calls())
            .put("readiness", JSONArray(phone.refreshReadiness()))
    }

    /**
     * `login(userToken)`: keeps the token and logs the phone in (registration, event stream). The same user again
     * replaces the token.
     * @return `{userId}`.
     * @throws BridgeError `invalid_argument` for a token without a readable subject; `other_user_logged_in`.
     */
    fun login(token: String): JSONObject = synchronized(phoneLock) {
        val phone = requirePhone()
        val userId = JwtSubject.of(token) ?: throw BridgeError(BridgeError.INVALID_ARGUMENT, "the token has no readable subject (sub)")
        val stored = sessions.load()
        if (stored != null && stored.userId != userId) {
            throw BridgeError(BridgeError.OTHER_USER_LOGGED_IN, "${stored.userId} is logged in: log out first")
        }
        if (!sessions.save(SessionStore.Session(token, userId, phone.server))) {
            throw BridgeError(BridgeError.NATIVE, "the login could not be stored")
        }
        phone.logIn(token)
        JSONObject().put("userId", userId)
    }

    /**
     * `logout()`: forgets the token, unregisters this phone (ringing messages then show nothing).
     * @throws BridgeError `call_in_progress` while a call is ringing or up.
     */
    fun logout() = synchronized(phoneLock) {
        val phone = requirePhone()
        if (phone.coordinator.currentCalls().isNotEmpty()) throw BridgeError(BridgeError.CALL_IN_PROGRESS, "hang up first")
        sessions.clear()
        phone.logOut()
    }

    /**
     * `startCall(callee, video)`: places the call; an answer comes to [done] on another thread: the Call (its state
     * may be `busy` or `failed`: then nothing rings), or the refusal (`server_refused`, `network`, `call_ui_refused`).
     * A ringing call is told as `outgoing` before [done] (unless the callee's phone rang first and told it).
     * @throws BridgeError `not_logged_in` at once.
     */
    fun startCall(callee: String, video: Boolean, callWaiting: Boolean?, done: (JSONObject?, BridgeError?) -> Unit) =
        place({ phone -> phone.startCall(callee, video, callWaiting) }, done)

    /**
     * `startGroupCall(callees, video, answerPolicy)`: the server rings every callee in one call, placed on Telecom as
     * one outgoing call whose address is the first callee; [done] gets the Call with its `participants`.
     * @throws BridgeError `not_configured`, `not_logged_in` (before anything is sent).
     */
    fun startGroupCall(callees: List<String>, video: Boolean, answerPolicy: AnswerPolicy, callWaiting: Boolean?,
                       done: (JSONObject?, BridgeError?) -> Unit) =
        place({ phone -> phone.startGroupCall(callees, answerPolicy, video, callWaiting) }, done)

    /**
     * `getRecentCalls(limit, before)`: a page of the user's call history as the server keeps it (`GET /v1/calls`);
     * [done] gets `{calls, nextBefore}` on another thread, or the refusal (`server_refused`, `network`).
     * @param limit 1 to 100, or 0 for the server's default.
     * @throws BridgeError `not_logged_in` at once.
     */
    fun recentCalls(limit: Int, before: String?, done: (JSONObject?, BridgeError?) -> Unit) {
        val phone = requirePhone()
        if (sessions.load() == null) throw BridgeError(BridgeError.NOT_LOGGED_IN, "log in first")
        scope.launch {
            val page = try {
                SdkObservations.recentCallsJson(phone.coordinator.recentCalls(if (limit == 0) null else limit, before))
            } catch (e: CancellationException) {
                throw e
            } catch (e: Exception) {
                done(null, OutgoingCalls.refusal(e))
                return@launch
            }
            done(page, null)
        }
    }

    /**
     * `ringMore(callId, callees)`: rings more people into a call this phone has; [done] gets its participants.
     * @throws BridgeError `unknown_call` (before anything is sent).
     */
    fun ringMore(callId: String, callees: List<String>, done: (JSONArray?, BridgeError?) -> Unit) {
        val phone = requirePhone()
        knownCall(phone, callId)
        scope.launch {
            val participants = try {
                SdkObservations.participantsJson(phone.coordinator.ringMore(callId, callees).legs ?: emptyList())
            } catch (e: CancellationException) {
                throw e
            } catch (e: Exception) {
                done(null, OutgoingCalls.refusal(e))
                return@launch
            }
            done(participants, null)
        }
    }

    private fun place(start: suspend (RingerPhone) -> Call, done: (JSONObject?, BridgeError?) -> Unit) {
        val phone = requirePhone()
        if (sessions.load() == null) throw BridgeError(BridgeError.NOT_LOGGED_IN, "log in first")
        OutgoingCalls.place(scope, { start(phone) }, placed = { callId, info ->
            // A call that ended before startCall returned is not kept: its Ended was observed already (the machine
            // ends a call before the observation is sent), so nothing would remove it.
            val up = synchronized(lock) {
                phone.coordinator.currentCalls().any { it.callId == callId }.also { up -> if (up) outgoing[callId] = info }
            }
            if (up) observe(Observed.CallStarted(callId))
        }, done = done)
    }

    /**
     * `answer(callId)`: as Telecom's own answer (the call's foreground service, then the accept); the `accepted`
     * event follows when media can start. An incoming call already answering or active: nothing to do.
     * @throws BridgeError `unknown_call`; `wrong_state` for an outgoing call (its callee answers it).
     */
    fun answer(callId: String) {
        val phone = requirePhone()
        val call = knownCall(phone, callId)
        if (call.direction != PhoneCallMachine.Direction.INCOMING) throw wrongState(call, "answered here")
        if (call.phase != PhoneCallMachine.Phase.RINGING) return
        // A call the UI is still taking (no Connection yet) is answered through the coordinator, which shows it then.
        if (!phone.callUi.answer(callId)) phone.coordinator.answer(callId) {}
    }

    /**
     * `decline(callId)`: an incoming call that still rings, as Telecom's reject (kept until the server hears it).
     * @throws BridgeError `unknown_call`; `wrong_state`.
     */
    fun decline(callId: String) {
        val phone = requirePhone()
        val call = knownCall(phone, callId)
        if (call.direction != PhoneCallMachine.Direction.INCOMING || call.phase != PhoneCallMachine.Phase.RINGING) {
            throw wrongState(call, "declined")
        }
        phone.callUi.decline(callId) { closed -> if (!closed) phone.coordinator.end(callId) {} }
    }

    /**
     * `hangUp(callId)`: any call this phone has; the SDK's machine decides (decline, cancel or end).
     * @throws BridgeError `unknown_call`.
     */
    fun hangUp(callId: String) {
        val phone = requirePhone()
        knownCall(phone, callId)
        phone.callUi.hangUp(callId) { closed -> if (!closed) phone.coordinator.end(callId) {} }
    }

    /**
     * `setHeld(callId, held)`: holds or resumes an answered call through its Telecom connection; the `held` event
     * follows. Resuming holds this phone's other calls first.
     * @return false when the call cannot take it (not answered yet).
     * @throws BridgeError `unknown_call`.
     */
    fun setHeld(callId: String, held: Boolean): Boolean {
        val phone = requirePhone()
        knownCall(phone, callId)
        return phone.coordinator.setHeld(callId, held)
    }

    /**
     * `setMuted(callId, muted)`: a self-managed call's microphone is the app's, so the `muted` event follows at once.
     * @return false when the call is over.
     * @throws BridgeError `unknown_call`.
     */
    fun setMuted(callId: String, muted: Boolean): Boolean {
        val phone = requirePhone()
        knownCall(phone, callId)
        return phone.coordinator.setMuted(callId, muted)
    }

    /**
     * `playDtmf(callId, digits)`: the `dtmf` event follows at once, and the app's media sends the tones.
     * @return false when the call does not have the audio (not answered, held).
     * @throws BridgeError `invalid_argument` for digits that are not 1 to 64 keypad keys; `unknown_call`.
     */
    fun playDtmf(callId: String, digits: String): Boolean {
        if (digits.length !in 1..64 || !digits.all { it in PhoneCallMachine.DTMF_DIGITS }) {
            throw BridgeError(BridgeError.INVALID_ARGUMENT, "digits must be 1 to 64 of 0-9, *, #, A-D")
        }
        val phone = requirePhone()
        knownCall(phone, callId)
        return phone.coordinator.playDtmf(callId, digits)
    }

    /** `getAudioRoutes()`: where the calls' audio goes and could go, as Telecom last said (`{current, outputs}`). */
    fun audioRoutes(): JSONObject = SdkObservations.routesJson(requirePhone().coordinator.audioRoutes)

    /**
     * `setAudioRoute(outputId)`: through Telecom's endpoint change (API 34) or audio route; `audioRouteChanged`
     * follows once Telecom moved the audio, and a choice made before the call's audio starts is applied then.
     * @return false when Telecom lists no such output.
     */
    fun setAudioRoute(outputId: String): Boolean = requirePhone().coordinator.selectAudioOutput(outputId)

    /** `getCalls()`: the calls up on this phone now, as JavaScript's Calls (`media` null until `accepted`). */
    fun calls(): JSONArray {
        val phone = phone ?: return JSONArray()
        val calls = phone.coordinator.currentCalls()
        val array = JSONArray()
        synchronized(lock) {
            for (call in calls) {
                val info = SdkObservations.info(call, outgoing) ?: continue
                array.put(SdkObservations.callJson(call.callId, info, call.phase.rawValue, call.legs, media[call.callId]))
            }
        }
        return array
    }

    /** `getReadiness()`: the pre-flight, read again. */
    fun readiness(): JSONArray = JSONArray(requirePhone().refreshReadiness())

    /**
     * `openReadinessSettings(problem)`: the system page that fixes [problem] (`notifications_disabled`,
     * `battery_optimized`, `full_screen_intent_denied`: [RingerPhone.openSettings]); false for any other problem and
     * when the device has no such page.
     */
    fun openReadinessSettings(problem: String): Boolean = requirePhone().openSettings(problem)

    /** `getCallHistory(limit)`: the newest [limit] calls, newest first. */
    fun history(limit: Int): JSONArray = synchronized(lock) { JSONArray(history.newest(limit)) }

    /**
     * `getInitialEvents()`: what happened before this JavaScript instance attached, once; from now on events go to
     * [sink] (RingerModule's emitOnEvent). A new instance replaces the one attached before it.
     */
    fun attach(sink: (JSONObject) -> Unit): JSONArray = synchronized(lock) {
        if (this.sink !== sink) relay.detach()
        val replay = relay.attach()
        this.sink = sink
        JSONArray(replay)
    }

    /** The JavaScript instance of [sink] went away (its module was invalidated): events are kept again. */
    fun detach(sink: (JSONObject) -> Unit) = synchronized(lock) {
        if (this.sink === sink) {
            this.sink = null
            relay.detach()
        }
    }

    // The platform

    /**
     * An activity's intent: a call notification's answer answers, its content intent shows (RingerPhone).
     * @return the call id it was for; null for any other intent, and for one whose extras cannot be read (any app may
     *   start an exported activity with crafted extras, which throw `BadParcelableException` when read on API < 33):
     *   that is logged, never thrown into the activity's start.
     */
    fun handleCallIntent(intent: Intent?): String? = try {
        phone?.handleCallIntent(intent)
    } catch (e: RuntimeException) {
        Log.w(CallAnsweredTask.TAG, "an activity's intent could not be read as a call's: $e")
        null
    }

    /**
     * An activity of the app is in front (main thread): the microphone a background answer lacked, at once; the
     * readiness again on [scope], as it reads system services and may write the registration (never on the main
     * thread, at every resume).
     */
    fun appInForeground() {
        val phone = phone ?: return
        phone.appInForeground()
        scope.launch { phone.refreshReadiness() }
    }

    // Events

    private fun observe(observed: Observed) = synchronized(lock) {
        val calls = phone?.coordinator?.currentCalls().orEmpty()
            .mapNotNull { call -> SdkObservations.info(call, outgoing)?.let { call.callId to it } }.toMap()
        if (observed is Observed.Ended) {
            outgoing.remove(observed.callId)
            media.remove(observed.callId)
        }
        for (event in translator.translate(observed, calls)) {
            if (event.getString("type") == "accepted") media[event.getString("callId")] = event.getJSONObject("media")
            history.record(event)
            answeredTask.offered(event, attached = relay.isAttached)
            val now = relay.offer(event) ?: continue
            try {
                sink?.invoke(now)
            } catch (e: RuntimeException) {
                // The React instance went away while this event was on its way: it is not kept (nobody would read it).
            }
        }
    }

    // The phone

    /**
     * Creates the phone on [server] and logs the stored user in, or out when nobody is, or when the stored login was
     * made on another server (it is deleted: a token belongs to its server; a login stored before the server was
     * recorded counts as made on this one and is recorded so). Null when the phone cannot be created ([startFailure]).
     */
    private fun startPhone(server: String): RingerPhone? {
        val activity = manifest.callActivity
        if (activity == null) {
            startFailure = manifest.callActivityProblem ?: "no call activity"
            return null
        }
        val setup = PhoneSetup(context, server, CallNotificationConfig(activity, manifest.notificationIcon),
            streamStatus = { status -> observe(Observed.StreamStatus(SdkObservations.status(status))) },
            readinessChanged = { problems -> observe(Observed.Readiness(problems)) },
            observer = { observation -> observe(SdkObservations.observed(observation)) },
            callUiKind = manifest.callUiKind,
            callBackRequested = { request -> observe(Observed.CallBackRequested(request.userId, request.hasVideo)) })
        val created = try {
            makePhone(setup)
        } catch (e: Exception) {
            startFailure = "the phone could not start: $e"
            return null
        } catch (e: LinkageError) {
            startFailure = "the phone could not start (a library is missing): $e"
            return null
        }
        phone = created
        startFailure = null
        val stored = sessions.load()
        val session = when {
            stored == null -> null
            stored.server == null -> stored.copy(server = server).also { sessions.save(it) }
            sameServer(stored.server, server) -> stored
            else -> null.also { sessions.clear() }
        }
        if (session != null) created.logIn(session.token) else created.logOut()
        return created
    }

    /** Two spellings of one server, by the iOS half's rule ([ServerUrl.same]). */
    private fun sameServer(a: String, b: String): Boolean = ServerUrl.same(a, b)

    private fun requirePhone(): RingerPhone = phone ?: throw notConfigured()

    private fun notConfigured() = BridgeError(BridgeError.NOT_CONFIGURED,
        startFailure ?: "no Ringer server: set meta-data ${ManifestSettings.SERVER} or call configure({server})")

    private fun knownCall(phone: RingerPhone, callId: String): PhoneCallMachine.PhoneCall =
        phone.coordinator.currentCalls().firstOrNull { it.callId == callId }
            ?: throw BridgeError(BridgeError.UNKNOWN_CALL, "no call $callId on this phone")

    private fun wrongState(call: PhoneCallMachine.PhoneCall, what: String) = BridgeError(BridgeError.WRONG_STATE,
        "the ${call.direction.rawValue} call ${call.callId} is ${call.phase.rawValue}: it cannot be $what")

    /** The process's host. */
    companion object {
        /** The host of this process; null until [start]. Tests set it back to null to play a new process. */
        @Volatile @JvmStatic var current: RingerReactHost? = null

        /** The process's host, created with [create] if there is none yet (RingerInitProvider, else the module). */
        @JvmStatic fun start(context: Context, create: (Context) -> RingerReactHost = { RingerReactHost(it) }): RingerReactHost =
            synchronized(this) { current ?: create(context).also { current = it } }

        /** The app's phone: OkHttp, Firebase's token, the SDK's own scope. */
        @JvmStatic fun defaultPhone(setup: PhoneSetup): RingerPhone =
            RingerPhone(setup.context, setup.server, setup.notifications, streamStatus = setup.streamStatus,
                        readinessChanged = setup.readinessChanged, observer = setup.observer, callUiKind = setup.callUiKind,
                        callBackRequested = setup.callBackRequested)
    }
}
