package dev.ringer.kit

import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.launch
import kotlinx.coroutines.suspendCancellableCoroutine
import java.util.UUID
import kotlin.coroutines.resume

/**
 * The platform-neutral brain of ringing on a device (Swift: RingerKit's `CallCoordinator`): turns FCM data
 * messages, server events and the user's actions on the native call UI into API calls and call-UI reports,
 * so the rules every app gets wrong hold by construction. The decisions are [PhoneCallMachine]'s (a pure
 * value, pinned by the test vectors of docs/test-vectors.md); the coordinator carries out its effects and
 * keeps the per-device bookkeeping (session, waiting requests, audio, keepalives), every timer and retry on
 * the injected clock:
 *
 * - **One call per server call id**: the `Connection`'s key is the call id; the same call arriving by FCM
 *   and by WebSocket, in either order, is one call on screen.
 * - **Answer before the app is ready**: a data message that wakes the app before it called [connect] still
 *   rings; an answer given then is kept against the call id and sent as soon as the API is available; the
 *   native answer completes only when the server confirmed it.
 * - **An answer is never dropped**: the accept is sent again, with jittered backoff ([ANSWER_BACKOFF]), after every
 *   transport failure, 5xx, 408 or 429 until the server answers or the ring deadline passes (then the call ends
 *   [CallEndReason.ANSWER_NOT_DELIVERED]); the unconfirmed answer is kept in the [CallMemoryStore] first, so a
 *   relaunch before the deadline shows the call again and sends it. However the user answered, the confirmed
 *   answer reaches the call UI once ([CallUi.reportCallAnswered]).
 * - **Remote endings** close the native call with the matching [CallEndReason] (the [CallUi] maps it to a
 *   `DisconnectCause`), exactly once, and a call nobody ended still stops ringing at its deadline even if no
 *   event ever arrives.
 * - **Deadlines on the server's clock**, through the offset learned from `stream.ready` and answers' `Date`
 *   headers ([serverTimeObserved]), kept in a [ClockOffsetStore]; while it is unknown a message rings.
 * - **Audio only once the call is active**: [Observation.MediaCanStart] comes only when the server confirmed
 *   the answer AND [audioSessionActivated] was called.
 * - **Answered calls stay alive without a socket**: while a call is answered and the event stream is not
 *   connected ([eventStreamStatusChanged]), a keepalive goes to the server every [keepaliveIntervalMs].
 * - **Hang-ups are durable**: stored in the [PendingActionStore] and resent until the server answers with
 *   anything but a transient failure ([RingerApiException.isRetryable]), for up to [HANG_UP_LIFETIME_MS] after
 *   the user acted.
 * - **Ended stays ended**: the calls that ended, like the unconfirmed answers, are in the [CallMemoryStore], so a
 *   late data message after a relaunch never rings a call that is over.
 *
 * Thread-safe: one lock guards the state; [CallUi] and observer callbacks are made outside it, on any thread.
 *
 * @param deviceId stable id of this app install, sent with ringing/accept/decline.
 * @param ui the native call UI (a self-managed `ConnectionService` on Android).
 * @param scope where timers, retries and requests run; cancel it to stop them all.
 * @param now the phone's wall clock, Unix milliseconds (`System::currentTimeMillis` in an app).
 * @param sleepUntil suspends until [now] reads at least the given Unix milliseconds; every timer and retry
 *   wait uses it. Must throw `CancellationException` when its coroutine is cancelled.
 * @param random a number in `0..1` for the retries' jitter.
 * @param pendingActions where hang-ups wait until the server acknowledged them; a [FilePendingActionStore]
 *   makes them survive a process restart.
 * @param clockOffsets where the learned server-minus-phone offset survives a restart.
 * @param callMemory where the calls that ended and the answers not yet confirmed survive a restart; a
 *   [FileCallMemoryStore] makes a late data message never ring a call that is over and an answer given just before
 *   the process died still connect. An answer kept there is taken up at once, in this constructor: its call is
 *   reported again and its accept sent (before its deadline), or it ends [CallEndReason.ANSWER_NOT_DELIVERED].
 * @param bootTimeMs the phone's boot time on its wall clock, Unix ms (Android: `System.currentTimeMillis()`
 *   minus `SystemClock.elapsedRealtime()`): when it moves, the wall clock was set and the offset is forgotten.
 * @param keepaliveIntervalMs milliseconds between keepalives of an answered call while the event stream is
 *   down; at most a third of the server's `--call-idle-timeout` (120 s by default).
 * @param observer receives every [Observation], on any thread.
 */
class CallCoordinator(
    val deviceId: String,
    internal val ui: CallUi,
    internal val scope: CoroutineScope,
    internal val now: () -> Long,
    internal val sleepUntil: suspend (Long) -> Unit,
    internal val random: () -> Double,
    internal val pendingActions: PendingActionStore,
    private val clockOffsets: ClockOffsetStore,
    private val callMemory: CallMemoryStore = InMemoryCallMemoryStore(),
    private val bootTimeMs: () -> Long,
    val keepaliveIntervalMs: Long = DEFAULT_KEEPALIVE_INTERVAL_MS,
    internal val observer: (Observation) -> Unit
) {
    /** What the coordinator did, for the app's own UI and for tests. */
    sealed class Observation {
        /** A ringing data message was handled (`callId` null when it named no readable call). */
        data class PushReported(val callId: String?, val disposition: PushDisposition) : Observation()

        /** An incoming call is ringing on the native UI. */
        data class Ringing(val callId: String) : Observation()

        /** The server confirmed this device's answer; media can start once audio is active. */
        data class Answered(val callId: String, val media: MediaSession) : Observation()

        /** An outgoing call was answered by the callee. */
        data class OutgoingAnswered(val callId: String, val media: MediaSession) : Observation()

        /**
         * Start media and the microphone now: the call is answered and the call UI activated audio
         * ([audioSessionActivated]). Never sent before both.
         */
        data class MediaCanStart(val callId: String, val media: MediaSession) : Observation()

        /** A call ended; `reason` is null when the local user ended it. */
        data class Ended(val callId: String, val reason: CallEndReason?) : Observation()

        /** An event from the server's stream, as given to [handle]. */
        data class Event(val event: CallEvent) : Observation()

        /** An API request failed and will not be retried now. `detail` never holds a token. */
        data class RequestFailed(val callId: String, val detail: String) : Observation()

        /**
         * A group call's legs changed: who was rung and where each is (an event, `call.updated` included, or a
         * refresh). Show them as the call's participants; never a change of the call's phase.
         */
        data class ParticipantsChanged(val callId: String, val legs: List<CallLeg>) : Observation()

        /**
         * The call was held (pause its media: the other party's audio and the microphone) or resumed. It stays
         * answered, kept alive, and ends as any call; ending another call never resumes it (the user or the app does,
         * [setHeld]).
         */
        data class HeldChanged(val callId: String, val held: Boolean) : Observation()

        /** The call's microphone was muted or unmuted, by the system or at the app's request: stop or resume sending audio. */
        data class MutedChanged(val callId: String, val muted: Boolean) : Observation()

        /**
         * The user pressed these keypad keys on a system call surface (a car, a watch, through Telecom's
         * `onPlayDtmfTone`), or the app asked for them ([playDtmf]): send them in the call's media (RFC 4733 telephone
         * events, or in-band tones). Only the call that has the audio gets them.
         */
        data class Dtmf(val callId: String, val digits: String) : Observation()

        /**
         * Where the calls' audio goes, or the outputs to choose from, changed (a headset, a car, the app's
         * [selectAudioOutput] once Telecom did it): show it on an audio-route button.
         */
        data class AudioRouteChanged(val routes: AudioRoutes) : Observation()
    }

    /** Whether requests can be made: before [connect] requests wait; after `connect(null)` pushes are refused. */
    internal sealed class Session {
        object Launching : Session()
        class LoggedIn(val api: RingerApiClient) : Session()
        object LoggedOut : Session()

        val account: PhoneAccount
            get() = when (this) {
                is Launching -> PhoneAccount.Launching
                is LoggedIn -> PhoneAccount.LoggedIn(api.userId)
                is LoggedOut -> PhoneAccount.LoggedOut
            }
    }

    /** Everything guarded by [lock]. */
    internal class State(var machine: PhoneCallMachine, var offsetBootTimeMs: Long?, var storedMemory: PhoneCallMachine.Memory) {
        var session: Session = Session.Launching
        /** Native answer actions waiting for the server, by call id. */
        val answers = HashMap<String, (Boolean) -> Unit>()
        /** Requests waiting for the app to finish launching. */
        val waiters = HashMap<Any, CancellableContinuation<RingerApiClient?>>()
        /** True between the call UI's audio activation and deactivation. */
        var audioActive = false
        /** Where the calls' audio goes, and the app's choice (docs/decisions/0008 §2). */
        val audio = AudioRouteMachine()
        /** Answered calls whose media waits for the audio session. */
        val mediaWaitingForAudio = LinkedHashMap<String, MediaSession>()
        /** Whether the event stream is connected: the server then hears this app without keepalives. */
        var streamConnected = false
        /** Answered calls whose keepalive loop runs. */
        val keptAlive = HashSet<String>()
        /** Call ids whose stored hang-up is being sent right now (a reconnect must not send it twice). */
        val sending = HashSet<String>()
        /** Calls whose accept loop runs (a restored answer answered again must not start a second one). */
        val accepting = HashSet<String>()
    }

    internal val lock = Any()
    /** Serialises read-modify-writes of [pendingActions]; taken inside [lock] (never the other way round). */
    internal val pendingActionsLock = Any()
    internal val state: State

    init {
        // An offset learned before the wall clock was set (or before a reboot) would misjudge pushes by the change.
        val stored = clockOffsets.load()?.takeIf { !PhoneBootTime.wallClockWasSet(it.bootTimeMs, bootTimeMs()) }
        val memory = callMemory.load()
        state = State(PhoneCallMachine(deviceId, stored?.offsetMs, memory), stored?.bootTimeMs, memory)
        // Every property is set by now (none is declared below): the restored answers' effects may run.
        apply(PhoneCallInput.Launched)
    }

    /** The server's clock minus the phone's, milliseconds, as learned so far; null while unknown. */
    val clockOffsetMs: Long?
        get() = synchronized(lock) { state.machine.clockOffsetMs }

    /**
     * Makes the logged-in user's API available (after login, or at launch with a stored token), and releases
     * requests that waited for it (an answer given on the lock screen during launch); stored hang-ups from an
     * earlier process go out now. Pass null when nobody is logged in: ringing messages are refused, and calls
     * still ringing end (`failed`). Calls ringing for another user than `api.userId` end too.
     */
    fun connect(api: RingerApiClient?) {
        // Every answer's `Date` header teaches the server's clock too.
        val observing = api?.observingServerTime { serverTimeMs -> serverTimeObserved(serverTimeMs) }
        val session = if (observing != null) Session.LoggedIn(observing) else Session.LoggedOut
        val waiters = synchronized(lock) {
            state.session = session
            val waiting = state.waiters.values.toList()
            state.waiters.clear()
            waiting
        }
        apply(PhoneCallInput.AccountChanged(session.account))
        for (waiter in waiters) waiter.resume(observing)
        if (observing != null) pendingActions.load().forEach { send(it) }
    }

    /**
     * The server's clock read [serverTimeMs] (Unix ms) just now (`stream.ready`'s `server_time_ms`, or an
     * answer's `Date` header): ring deadlines are judged on the server's timeline from then on, and the offset
     * is kept in the [ClockOffsetStore].
     */
    fun serverTimeObserved(serverTimeMs: Long) {
        apply(PhoneCallInput.ServerTime(serverTimeMs))
    }

    /**
     * The calls not ended on this device (ringing, answering or active), the one whose ring deadline comes first
     * first (then by call id): a snapshot taken under the lock, for an app's own screen and the React Native package's
     * `getCalls` (Swift: `currentCalls()`, in the same order).
     */
    fun currentCalls(): List<PhoneCallMachine.PhoneCall> = synchronized(lock) {
        state.machine.calls.values.filter { it.phase != PhoneCallMachine.Phase.ENDED }
            .sortedWith(compareBy<PhoneCallMachine.PhoneCall> { it.localDeadlineMs }.thenBy { it.callId })
    }

    /** The API, waiting while the app is still launching, at most until [deadlineMs] (phone clock). */
    internal suspend fun api(deadlineMs: Long): RingerApiClient? {
        val id = Any()
        val timer = scope.launch {
            try {
                sleepUntil(deadlineMs)
            } catch (e: CancellationException) {
                return@launch
            }
            synchronized(lock) { state.waiters.remove(id) }?.resume(null)
        }
        try {
            return suspendCancellableCoroutine { continuation ->
                var ready = false
                var api: RingerApiClient? = null
                synchronized(lock) {
                    val session = state.session
                    when (session) {
                        is Session.LoggedIn -> { ready = true; api = session.api }
                        is Session.LoggedOut -> ready = true
                        is Session.Launching -> state.waiters[id] = continuation
                    }
                }
                if (ready) continuation.resume(api)
            }
        } finally {
            timer.cancel()
            synchronized(lock) { state.waiters.remove(id) }
        }
    }

    // Carrying out the machine's effects

    /**
     * Feeds an input to the machine and carries out its effects, outside the lock.
     * @param media the media session that came with [PhoneCallInput.AnswerConfirmed].
     * @param answer the native answer action of a [PhoneCallInput.Answer]: kept, under the same lock, while the
     *   machine holds the call's answer pending (its confirmation may come back on another thread at once), joined
     *   with one kept earlier for the same call; completed by the input's own [PhoneCallEffect.CompleteAnswer] if it
     *   has one, else failed.
     * @param before bookkeeping done under the same lock, before the input.
     * @return the effects carried out.
     */
    internal fun apply(input: PhoneCallInput, media: MediaSession? = null, answer: ((Boolean) -> Unit)? = null,
                      before: (State) -> Unit = {}): List<PhoneCallEffect> {
        val boot = bootTimeMs()
        // What the clock-offset store must hold afterwards, if it changes.
        var storeOffset = false
        var storedOffset: StoredClockOffset? = null
        val answers = HashMap<String, (Boolean) -> Unit>()
        val hangUps = HashMap<String, PendingCallAction>()
        var refused: ((Boolean) -> Unit)? = null
        var routeEffects: List<AudioRouteEffect> = emptyList()
        val effects = synchronized(lock) {
            before(state)
            // A second way of answering (the app's screen, then Telecom's onAnswer) joins the one kept: both
            // complete together.
            if (input is PhoneCallInput.Answer && answer != null) {
                val earlier = state.answers[input.callId]
                state.answers[input.callId] = if (earlier == null) answer else { fulfilled ->
                    earlier(fulfilled)
                    answer(fulfilled)
                }
            }
            val learnedAt = state.offsetBootTimeMs
            if (learnedAt != null && PhoneBootTime.wallClockWasSet(learnedAt, boot)) {
                state.machine.handle(PhoneCallInput.PhoneClockChanged, now())
                state.offsetBootTimeMs = null
                storeOffset = true
                storedOffset = null
            }
            val wasUp = state.machine.calls.values.any { it.phase != PhoneCallMachine.Phase.ENDED }
            val effects = state.machine.handle(input, now())
            // The last call ended: the audio route's choice is over with it, whenever the call UI says the audio
            // stopped (Telecom's connection closes before the machine hears the hang-up).
            if (wasUp && state.machine.calls.values.none { it.phase != PhoneCallMachine.Phase.ENDED }) {
                routeEffects = state.audio.handle(AudioRouteInput.AudioDeactivated(callsLeft = false))
            }
            for (effect in effects) {
                when (effect) {
                    is PhoneCallEffect.CompleteAnswer ->
                        state.answers.remove(effect.callId)?.let { answers[effect.callId] = it }
                    is PhoneCallEffect.Ended -> state.mediaWaitingForAudio.remove(effect.callId)
                    is PhoneCallEffect.SaveClockOffset -> {
                        state.offsetBootTimeMs = boot
                        storeOffset = true
                        storedOffset = StoredClockOffset(effect.offsetMs, boot)
                    }
                    is PhoneCallEffect.SendHangUp -> {
                        // Stored before the memory below: a process that dies in between still sends the hang-up of
                        // a call its memory already holds as over.
                        val action = PendingCallAction(effect.kind, effect.callId, deviceId, now())
                        updatePendingActions { stored -> stored.filter { it.callId != effect.callId } + action }
                        hangUps[effect.callId] = action
                    }
                    else -> {}
                }
            }
            // An answer the machine did not take (the call is not ringing or answering here) fails now, alone.
            if (input is PhoneCallInput.Answer && answer != null && state.machine.calls[input.callId]?.answerPending != true &&
                state.answers.remove(input.callId) != null) {
                refused = answer
            }
            // Stored before the effects run, so an accept is never sent without its answer surviving the process;
            // under the lock, so two changes reach the store in the order they were made.
            val memory = state.machine.memory
            if (memory != state.storedMemory) {
                state.storedMemory = memory
                callMemory.save(memory)
            }
            effects
        }
        if (storeOffset) clockOffsets.save(storedOffset)
        refused?.invoke(false)
        for (effect in effects) carryOut(effect, answers, hangUps, media)
        carryOut(routeEffects)
        return effects
    }

    private fun carryOut(effect: PhoneCallEffect, answers: Map<String, (Boolean) -> Unit>,
                         hangUps: Map<String, PendingCallAction>, media: MediaSession?) {
        when (effect) {
            is PhoneCallEffect.ReportIncoming -> {
                val callId = effect.callId
                ui.reportIncomingCall(effect.report) { error ->
                    apply(PhoneCallInput.ReportFinished(callId, error == null))
                }
            }
            // The call UI refuses the known id, so nothing new rings.
            is PhoneCallEffect.ReportDuplicate -> ui.reportIncomingCall(effect.report) { }
            is PhoneCallEffect.ReportAndEnd -> {
                val id = effect.callId ?: UUID.randomUUID().toString()
                ui.reportIncomingCall(IncomingCallReport(id, effect.caller, false)) { }
                ui.reportCallEnded(id, now(), effect.reason)
            }
            is PhoneCallEffect.ReportEnded -> ui.reportCallEnded(effect.callId, now(), effect.reason)
            is PhoneCallEffect.ReportOutgoingConnected -> ui.reportOutgoingCallConnected(effect.callId, now())
            is PhoneCallEffect.ReportAnswering -> ui.reportCallAnswering(effect.callId, now())
            is PhoneCallEffect.ReportAnswered -> ui.reportCallAnswered(effect.callId, now())
            is PhoneCallEffect.CompleteAnswer -> answers[effect.callId]?.invoke(effect.fulfilled)
            is PhoneCallEffect.PushHandled -> observer(Observation.PushReported(effect.callId, effect.disposition))
            is PhoneCallEffect.Ringing -> observer(Observation.Ringing(effect.callId))
            is PhoneCallEffect.Answered -> {
                if (media == null) return
                observer(Observation.Answered(effect.callId, media))
                mediaReady(effect.callId, media)
            }
            is PhoneCallEffect.Ended -> observer(Observation.Ended(effect.callId, effect.reason))
            is PhoneCallEffect.SendRinging -> {
                val callId = effect.callId
                // A refusal means the call ended while this device was waking (409 with the state), or is not
                // this user's call (a message for the phone's previous user): the machine closes it. A server that
                // could not answer (no problem reaches here then) said nothing about the call: it rings on to its
                // deadline.
                perform(callId, onFailure = { problem ->
                    if (problem != null) apply(PhoneCallInput.RingingRefused(callId, problem))
                }) { api, device -> api.ringing(callId, device) }
            }
            is PhoneCallEffect.SendAccept -> sendAccept(effect.callId)
            // Stored by apply, under the lock, before the memory.
            is PhoneCallEffect.SendHangUp -> hangUps[effect.callId]?.let { send(it) }
            is PhoneCallEffect.ArmDeadline -> {
                // The device's own end of a call whose `call.unanswered` is lost (no socket, frozen app).
                val callId = effect.callId
                val deadline = effect.atMs
                scope.launch {
                    sleepUntil(deadline)
                    apply(PhoneCallInput.DeadlineReached(callId))
                }
            }
            is PhoneCallEffect.StartKeepalive -> keepAlive(effect.callId)
            is PhoneCallEffect.FetchMedia -> {
                val callId = effect.callId
                perform(callId) { api, _ ->
                    val session = api.media(callId)
                    observer(Observation.OutgoingAnswered(callId, session))
                    mediaReady(callId, session)
                }
            }
            // Stored by apply, with the boot time read under the same lock.
            is PhoneCallEffect.SaveClockOffset -> {}
            is PhoneCallEffect.ParticipantsChanged -> observer(Observation.ParticipantsChanged(effect.callId, effect.legs))
            is PhoneCallEffect.RequestHeld -> ui.requestHeld(effect.callId, effect.held)
            is PhoneCallEffect.RequestMuted -> ui.requestMuted(effect.callId, effect.muted)
            is PhoneCallEffect.HeldChanged -> observer(Observation.HeldChanged(effect.callId, effect.held))
            is PhoneCallEffect.MutedChanged -> observer(Observation.MutedChanged(effect.callId, effect.muted))
            is PhoneCallEffect.RequestDtmf -> ui.requestDtmf(effect.callId, effect.digits)
            is PhoneCallEffect.Dtmf -> observer(Observation.Dtmf(effect.callId, effect.digits))
        }
    }

    /** Handles a ringing message body; shared with [handleDataMessage]. */
    internal fun handleIncomingPush(body: RingerPushBody?, reportsEveryPush: Boolean): PushDisposition {
        val push = try {
            body?.let { IncomingPush.fromBody(it) }
        } catch (e: RingerWireException) {
            null   // not `call.incoming`, or a call id that is no UUID
        }
        val input = if (push != null) {
            val account = synchronized(lock) { state.session.account }
            PhoneCallInput.IncomingPush(push, account, reportsEveryPush)
        } else {
            PhoneCallInput.UnreadablePush(reportsEveryPush)
        }
        for (effect in apply(input)) if (effect is PhoneCallEffect.PushHandled) return effect.disposition
        return PushDisposition.UNREADABLE
    }

    /** Handles a message that a call changed (`call.cancelled`, …); shared with [handleDataMessage]. */
    internal fun handleUpdatePush(type: EventType, callId: String) {
        apply(PhoneCallInput.UpdatePush(type, callId))
    }

    /**
     * Handles the `data` map of an FCM message (Android: `FirebaseMessagingService.onMessageReceived`,
     * `RemoteMessage.getData()`); `data["ringer"]` is the VoIP push's `ringer` object as a JSON string.
     * Never throws: a message that cannot ring is answered with its disposition and never rings.
     * The rules are in CallCoordinatorDataMessage.kt.
     * @return what became of the message.
     */
    fun handleDataMessage(data: Map<String, String>): DataMessageOutcome = readDataMessage(data)

    // Audio

    /**
     * The call UI activated audio (Android: the `Connection` went `STATE_ACTIVE` and audio focus was granted;
     * Apple: `provider(_:didActivate:)`): media of answered calls may start now.
     */
    fun audioSessionActivated() {
        var routeEffects: List<AudioRouteEffect> = emptyList()
        val ready = synchronized(lock) {
            state.audioActive = true
            val waiting = state.mediaWaitingForAudio.toList()
            state.mediaWaitingForAudio.clear()
            val video = state.machine.calls.values.any { it.phase != PhoneCallMachine.Phase.ENDED && !it.held && it.hasVideo }
            routeEffects = state.audio.handle(AudioRouteInput.AudioActivated(video))
            waiting
        }
        for ((callId, media) in ready) observer(Observation.MediaCanStart(callId, media))
        carryOut(routeEffects)
    }

    /** The call UI deactivated audio (audio focus lost, `provider(_:didDeactivate:)`). */
    fun audioSessionDeactivated() {
        synchronized(lock) {
            state.audioActive = false
            val callsLeft = state.machine.calls.values.any { it.phase != PhoneCallMachine.Phase.ENDED }
            state.audio.handle(AudioRouteInput.AudioDeactivated(callsLeft))
        }
    }

    /** Where the calls' audio goes now and the outputs the system lists, as it last said. */
    val audioRoutes: AudioRoutes get() = synchronized(lock) { state.audio.routes }

    /**
     * The system's audio route changed or was first read (the call UI calls this: `onCallEndpointChanged` and
     * `onAvailableCallEndpointsChanged` on API 34+, `onCallAudioStateChanged` below). [Observation.AudioRouteChanged]
     * follows when anything the app sees changed.
     * @param current the id of the output in use, one of [outputs]' ids; null when the system names none.
     */
    fun audioOutputsChanged(current: String?, outputs: List<AudioOutput>) {
        carryOut(synchronized(lock) { state.audio.handle(AudioRouteInput.OutputsChanged(current, outputs)) })
    }

    /**
     * Sends the calls' audio to an output the system lists (the app's audio-route button), through Telecom: applied at
     * once while a call's audio runs, else when it starts, and again when a held call resumes, until the last call
     * ends. [Observation.AudioRouteChanged] follows once Telecom moved it.
     * @param id an [AudioOutput.id] of [audioRoutes].
     * @return false when the system lists no such output: nothing was asked.
     */
    fun selectAudioOutput(id: String): Boolean {
        val (taken, effects) = synchronized(lock) {
            state.audio.maySelect(id) to state.audio.handle(AudioRouteInput.Select(id))
        }
        carryOut(effects)
        return taken
    }

    private fun carryOut(effects: List<AudioRouteEffect>) {
        for (effect in effects) {
            when (effect) {
                is AudioRouteEffect.Apply -> ui.applyAudioOutput(effect.output)
                is AudioRouteEffect.Release -> ui.applyAudioOutput(null)
                is AudioRouteEffect.RouteChanged -> observer(Observation.AudioRouteChanged(effect.routes))
            }
        }
    }

    /** A media session is known for an answered call: start at once if audio is active, else wait. */
    private fun mediaReady(callId: String, media: MediaSession) {
        val startNow = synchronized(lock) {
            if (state.machine.phase(callId) != PhoneCallMachine.Phase.ACTIVE) {
                false
            } else if (state.audioActive) {
                true
            } else {
                state.mediaWaitingForAudio[callId] = media
                false
            }
        }
        if (startNow) observer(Observation.MediaCanStart(callId, media))
    }

    // Server events

    /** Handles an event from the [EventStream]. */
    fun handle(event: CallEvent) {
        observer(Observation.Event(event))
        apply(PhoneCallInput.Event(event.type, event.call))
    }

    /**
     * Re-reads every call still up on the native UI and closes the ones that ended while no event could reach
     * this device. Call it when the event stream connects or reconnects (`CONNECTED`, `RESTORED`).
     */
    fun refreshCalls() {
        val live = synchronized(lock) { state.machine.liveCallIds }
        for (callId in live) {
            perform(callId) { api, _ ->
                val call = api.call(callId)
                apply(PhoneCallInput.CallRead(call))
            }
        }
    }

    // User actions on the native call UI

    /**
     * The user answered: on the native UI (Android: `Connection.onAnswer`), from the ringing notification, or in the
     * app's own screen. `completion(true)` once the server confirmed; `completion(false)` when the call ended
     * meanwhile (at the latest at its ring deadline, as [CallEndReason.ANSWER_NOT_DELIVERED] if the accept never got
     * through) or is not ringing here. A second answer of a call still answering waits for the same confirmation;
     * one of a call already answered completes at once. However it was answered, the call UI is told once
     * ([CallUi.reportCallAnswered]).
     * @param callId the call id (the `Connection`'s key), any case.
     */
    fun answer(callId: String, completion: (Boolean) -> Unit) {
        val id = CallIds.normalize(callId)
        if (id == null) return completion(false)
        apply(PhoneCallInput.Answer(id), answer = completion)
    }

    /**
     * The user ended or declined on the native UI (`Connection.onReject`, `onDisconnect`): declines a ringing
     * incoming call, cancels an unanswered outgoing one, ends an active one. `completion(true)` as soon as the
     * request is stored (before it is sent), so a broadcast held for it (`goAsync`) is released only once the
     * hang-up survives process death; it is retried until the server acknowledges it.
     */
    fun end(callId: String, completion: (Boolean) -> Unit) {
        val id = CallIds.normalize(callId)
        if (id != null) apply(PhoneCallInput.End(id))
        completion(true)
    }

    /**
     * Ends every call not over yet, each as [end] does, and marks audio inactive: for a reset of the native
     * call UI, which drops every call (Apple: `providerDidReset(_:)`; Android: the `ConnectionService` unbound).
     */
    fun endAllCalls() {
        // The route's choice ends with the last call ([apply]).
        apply(PhoneCallInput.EndAll, before = { it.audioActive = false })
    }

    /**
     * The system held or resumed a call (Telecom's `Connection.onHold()`/`onUnhold()`, Core-Telecom's
     * `onSetInactive`/`onSetActive`, or the call UI's own change after [CallUi.requestHeld]). Resuming asks to hold this
     * device's other active calls ([CallUi.requestHeld]), so one call has the audio.
     * @param callId the call id, any case.
     * @return true when the call is now in that state (show it so); false when it cannot be (not answered, or over).
     */
    fun hold(callId: String, held: Boolean): Boolean {
        val id = CallIds.normalize(callId) ?: return false
        apply(PhoneCallInput.SetHeld(id, held, ControlSource.SYSTEM))
        return synchronized(lock) { state.machine.isHeld(id, held) }
    }

    /**
     * The system muted or unmuted a call (Telecom's `onMuteStateChanged`/`onCallAudioStateChanged`, or the call UI's
     * own change after [CallUi.requestMuted]).
     * @return true when the call is now so; false for a call over or unknown.
     */
    fun mute(callId: String, muted: Boolean): Boolean {
        val id = CallIds.normalize(callId) ?: return false
        apply(PhoneCallInput.SetMuted(id, muted, ControlSource.SYSTEM))
        return synchronized(lock) { state.machine.isMuted(id, muted) }
    }

    /**
     * The system played keypad tones on a call (Telecom's `onPlayDtmfTone`, or the call UI's own after
     * [CallUi.requestDtmf]): [Observation.Dtmf] follows.
     * @param digits the keys, each one of [PhoneCallMachine.DTMF_DIGITS].
     * @return true when the call has the audio and the digits are keypad keys; false otherwise (a held, ringing or
     *   ended call plays no tones).
     */
    fun dtmf(callId: String, digits: String): Boolean {
        val id = CallIds.normalize(callId) ?: return false
        if (!synchronized(lock) { state.machine.mayPlayDtmf(id, digits) }) return false
        apply(PhoneCallInput.PlayDtmf(id, digits, ControlSource.SYSTEM))
        return true
    }

    // The app's call controls

    /**
     * Holds or resumes an answered call from the app, through the native call UI (Telecom: `setOnHold()`/`setActive()`
     * on its `Connection`), so the system and the app stay in step; [Observation.HeldChanged] follows once the system
     * did it. Resuming holds every other active call first.
     * @param callId the call id, any case.
     * @return false when the call is not answered here (ringing, over, unknown): nothing was asked.
     */
    fun setHeld(callId: String, held: Boolean): Boolean {
        val id = CallIds.normalize(callId) ?: return false
        if (!synchronized(lock) { state.machine.mayHold(id) }) return false
        apply(PhoneCallInput.SetHeld(id, held, ControlSource.APP))
        return true
    }

    /**
     * Mutes or unmutes a call's microphone from the app, through the native call UI; [Observation.MutedChanged]
     * follows once it took it.
     * @param callId the call id, any case.
     * @return false when the call is over or unknown: nothing was asked.
     */
    fun setMuted(callId: String, muted: Boolean): Boolean {
        val id = CallIds.normalize(callId) ?: return false
        if (!synchronized(lock) { state.machine.mayMute(id) }) return false
        apply(PhoneCallInput.SetMuted(id, muted, ControlSource.APP))
        return true
    }

    /**
     * Plays keypad tones on a call from the app's own keypad, through the native call UI; [Observation.Dtmf] follows
     * once it took them, and the app's media sends them then.
     * @param callId the call id, any case.
     * @param digits the keys, each one of [PhoneCallMachine.DTMF_DIGITS] (`0`–`9`, `*`, `#`, `A`–`D`), 1 to 64.
     * @return false when the call does not have the audio (not answered, held, over, unknown) or a digit is not a
     *   keypad key: nothing was asked.
     */
    fun playDtmf(callId: String, digits: String): Boolean {
        val id = CallIds.normalize(callId) ?: return false
        if (!synchronized(lock) { state.machine.mayPlayDtmf(id, digits) }) return false
        apply(PhoneCallInput.PlayDtmf(id, digits, ControlSource.APP))
        return true
    }

    // Keepalive

    /**
     * Tells the coordinator how the event stream is doing (pass every [EventStream.Status]): while it is
     * connected the server hears this app on it, otherwise answered calls send keepalives.
     */
    fun eventStreamStatusChanged(status: EventStream.Status) {
        val connected = status == EventStream.Status.Connected || status == EventStream.Status.Restored
        synchronized(lock) { state.streamConnected = connected }
    }

    // Outgoing calls

    /**
     * Places a call; the callee's answer arrives as [Observation.OutgoingAnswered]. Retried with one
     * `Idempotency-Key`, so a lost answer never makes the callee's phone ring twice.
     * @param callWaiting true to ring a callee who is in another call as a waiting call, false to get `busy`; null
     *   leaves it to the server's `--call-waiting` (docs/call-lifecycle.md "Call waiting").
     * @return the call (its state may already be `busy` or `failed`).
     * @throws RingerApiException the server's refusal, or a transport error (also when nobody is logged in).
     * @throws CancellationException when the coroutine is cancelled during a retry wait.
     */
    suspend fun startCall(callee: String, hasVideo: Boolean = false, callWaiting: Boolean? = null): Call =
        place { api, key -> api.createCall(callee, hasVideo, key, callWaiting) }

    /**
     * Rings several people in one call (`POST /v1/calls` with `callees`; docs/call-lifecycle.md "Group calls"): each
     * callee's phones ring with their own leg, and [Observation.ParticipantsChanged] tells where each is. Placed as
     * [startCall] places a call: retried with one `Idempotency-Key`.
     * @param callees user ids, distinct, not this user, at most the server's `--max-callees-per-call` (16 by default).
     * @param answerPolicy [AnswerPolicy.FIRST_ANSWER] (the first to answer gets the call) or [AnswerPolicy.ALL_MAY_JOIN].
     * @param callWaiting as for [startCall], for every callee.
     * @return the call with its legs (its state may already be `busy` or `failed`).
     * @throws RingerApiException 422 `duplicate-callee` or `too-many-callees`, 404 `user-not-found` naming the unknown
     *   callees (nobody rang), 429, or a transport error (also when nobody is logged in).
     * @throws CancellationException when the coroutine is cancelled during a retry wait.
     */
    suspend fun startGroupCall(
        callees: List<String>,
        answerPolicy: AnswerPolicy = AnswerPolicy.FIRST_ANSWER,
        hasVideo: Boolean = false,
        callWaiting: Boolean? = null
    ): Call = place { api, key -> api.createGroupCall(callees, answerPolicy, hasVideo, key, callWaiting) }

    /**
     * Rings more people into a call this user placed or is in (`POST /v1/calls/{id}/ring`); someone ringing or in the
     * call already is left alone, so a retry rings nobody twice.
     * @return the call with its legs.
     * @throws RingerApiException 409 `callee-already-rung` (their leg of this call ended: place a new call), 409
     *   `call-state-conflict` once the call is over, 403 for a callee not in the call.
     */
    suspend fun ringMore(callId: String, callees: List<String>): Call {
        val session = synchronized(lock) { state.session } as? Session.LoggedIn
            ?: throw RingerApiException.transport("not logged in")
        val call = session.api.ring(callId, callees)
        apply(PhoneCallInput.CallRead(call))
        return call
    }

    /**
     * The logged-in user's call history from the server, newest first, a page at a time
     * ([RingerApiClient.recentCalls]): the list an app's recent and missed calls screen shows.
     * @param limit calls per page, 1 to 100; null for the server's default.
     * @param before the previous page's [CallList.nextBefore]; null for the newest page.
     * @throws RingerApiException; a transport failure when nobody is logged in.
     */
    suspend fun recentCalls(limit: Int? = null, before: String? = null): CallList {
        val session = synchronized(lock) { state.session } as? Session.LoggedIn
            ?: throw RingerApiException.transport("not logged in")
        return session.api.recentCalls(limit, before)
    }

    /** A group call's legs as this device last heard them; null for a 1:1 call or a call it does not know. */
    fun participants(callId: String): List<CallLeg>? = synchronized(lock) {
        state.machine.calls[CallIds.asciiLowercase(callId)]?.legs
    }

    /** Creates a call with [create], retried with one Idempotency-Key, and records it as this device's outgoing call. */
    private suspend fun place(create: suspend (RingerApiClient, String) -> Call): Call {
        val session = synchronized(lock) { state.session } as? Session.LoggedIn
            ?: throw RingerApiException.transport("not logged in")
        val key = UUID.randomUUID().toString()
        var attempt = 0
        while (true) {
            attempt += 1
            val call = try {
                create(session.api, key)
            } catch (e: RingerApiException) {
                if (!e.isRetryable || attempt >= 3) throw e
                null
            }
            if (call != null) {
                apply(PhoneCallInput.OutgoingPlaced(call))
                return call
            }
            sleepUntil(now() + PLACE_CALL_BACKOFF.delayMs(attempt, random()))
        }
    }

    companion object {
        /**
         * Milliseconds between keepalives of an answered call while the event stream is down: a third of the
         * server's default `--call-idle-timeout` (120 s), so two may be lost before the server gives up.
         */
        const val DEFAULT_KEEPALIVE_INTERVAL_MS: Long = 40_000

        /** Retry waits of placing a call: 250…500 ms, then 500…1000 ms. */
        internal val PLACE_CALL_BACKOFF = Backoff(500, 2_000)

        /** Retry waits of call requests and hang-ups: from 125…250 ms, doubling, at most 4…8 s. */
        internal val REQUEST_BACKOFF = Backoff(250, 8_000)

        /**
         * Tries of a call request the machine does not keep retrying itself (`ringing`, reading the media session
         * or a call): the one count for all of them, as in the Swift SDK (`CallCoordinator.requestAttempts`).
         * Answers and hang-ups are retried by the machine until their deadline instead ([PhoneCallMachine]).
         */
        internal const val REQUEST_ATTEMPTS = 3

        /**
         * Retry waits of an answer: 250…500 ms, doubling, at most 1…2 s, so an answer given during a short outage
         * connects within two seconds of the network's return.
         */
        internal val ANSWER_BACKOFF = Backoff(500, 2_000)

        /**
         * Milliseconds one accept may take before it counts as lost and the next is sent: a request caught in a
         * dropped connection would otherwise wait out OkHttp's read timeout (10 s by default, often raised) while the
         * ring time runs out. An accept of a few hundred bytes takes well under this on any network that can carry
         * the call's audio. Swift: `CallCoordinator.acceptAttemptLimit`.
         */
        const val ACCEPT_ATTEMPT_LIMIT_MS: Long = 5_000

        /**
         * Milliseconds a hang-up is worth sending after the user acted: past it the server has ended the call itself
         * (ring deadline, idle timeout), so an older one is dropped rather than sent. The machine's memory bound.
         */
        const val HANG_UP_LIFETIME_MS: Long = PhoneCallMachine.ENDED_UNSEEN_LIFETIME_MS
    }
}
