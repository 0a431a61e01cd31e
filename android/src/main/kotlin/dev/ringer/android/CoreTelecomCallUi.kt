package dev.ringer.android

import android.content.Context
import android.net.Uri
import android.os.Build
import android.os.ParcelUuid
import android.telecom.DisconnectCause
import android.telecom.PhoneAccount
import androidx.core.telecom.CallAttributesCompat
import androidx.core.telecom.CallControlResult
import androidx.core.telecom.CallControlScope
import androidx.core.telecom.CallEndpointCompat
import androidx.core.telecom.CallException
import androidx.core.telecom.CallsManager
import dev.ringer.kit.AudioOutput
import dev.ringer.kit.AudioRoute
import dev.ringer.kit.CallBackLog
import dev.ringer.kit.CallEndReason
import dev.ringer.kit.IncomingCallReport
import dev.ringer.kit.Party
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.flow.FlowCollector
import kotlinx.coroutines.launch
import kotlin.coroutines.coroutineContext

/**
 * Jetpack Core-Telecom (`androidx.core:core-telecom` 1.0, `CallsManager.addCall`) as the core's call UI, beside the
 * self-managed `ConnectionService` one ([TelecomCallUi]); docs/android-integration.md, "Two call UIs", says when to
 * choose which. On API 34+ Core-Telecom adds calls through the platform's transactional API (`TelecomManager.addCall`),
 * which gives a call "foreground execution priority" while the app posts a `CallStyle` notification for it within 5 s
 * (`addCall`'s KDoc): such a call needs no foreground service, and an answer from a watch or a car while the app is in
 * the background keeps the process and, where Telecom delegates it (AOSP `VoipCallMonitor`; not Android 14's first
 * release), the microphone. Below 34 the library runs a
 * `ConnectionService` of its own, and answered or dialled calls hold [CallForegroundService] as with [TelecomCallUi].
 *
 * It only translates, as [TelecomCallUi] does: one `addCall` session per server call id, Core-Telecom's callbacks
 * (`onAnswer`, `onDisconnect`, `onSetActive`, `onSetInactive`, each done well within its 5 s) and flows (the audio
 * endpoints, the platform's mute) forwarded to [actions], the core's reports turned into [CallControlScope] requests,
 * sent one at a time in the order the core made them (holding one call before resuming another). Core-Telecom has no
 * ringing UI of its own for a VoIP app, so an incoming call rings through [notifications], and no mute setter or DTMF
 * callback, so the app's mute and keypad are its own media's, told to the core at once.
 *
 * Thread-safe: the core calls it from any thread, Core-Telecom on [scope].
 *
 * @param context the application context.
 * @param callsManager the app's `CallsManager`; this UI needs Telecom ([RingerPhone] uses [TelecomCallUi] on a device
 *   without it).
 * @param notifications the ringing call's notification and the ongoing call's.
 * @param scope where the `addCall` sessions and the requests run.
 * @param sdkInt the device's API level (`Build.VERSION.SDK_INT`), a parameter so each level can be tested.
 * @param groupCallerName how a group call's caller is named, as for [TelecomCallUi].
 * @param callBackLog where each call's Telecom id and other party are kept, so a tap on it in the system's call log
 *   can be called back ([RingerPhone.callBackRequest]); null keeps nothing.
 */
class CoreTelecomCallUi(
    context: Context,
    private val callsManager: CallsManager,
    override val notifications: IncomingCallNotification,
    private val scope: CoroutineScope,
    override val sdkInt: Int = Build.VERSION.SDK_INT,
    private val groupCallerName: (String, Int) -> String = { caller, others -> IncomingCallReport.defaultGroupName(caller, others) },
    private val callBackLog: CallBackLog? = null
) : AndroidCallUi() {
    /** Below API 34, answered or dialled calls hold the foreground service while they are open here. */
    override val foreground = CallForeground(context, sdkInt, isOpen = { callId -> isOpen(callId) }) { callId ->
        foregroundRefused(callId)
    }

    /** Core-Telecom needs Telecom; [RingerPhone] chooses [TelecomCallUi] where there is none. */
    override val telecomAvailable: Boolean get() = true

    private val lock = Any()
    private val calls = HashMap<String, Call>()
    /** Whether the core was last told the calls' audio runs ([audioFollows]). */
    private var audioOn = false
    /**
     * The requests to Core-Telecom not yet made, run one at a time in the order they were asked for by one coroutine
     * at a time ([draining]). A queue under [lock] rather than a channel: the channel's non-suspending send is `offer`
     * in coroutines 1.0 and `trySend` from 1.5, and the SDK builds against both.
     */
    private val pending = java.util.ArrayDeque<suspend () -> Unit>()
    private var draining = false

    /** One call's session: what was reported, Core-Telecom's state of it, and its controls once added. */
    private class Call(val callId: String, val incoming: Boolean, val peer: Party, val hasVideo: Boolean) {
        /** The incoming call's report, for its ringing notification. */
        var report: IncomingCallReport? = null
        /** The report's completion, until the call rings or is refused. */
        var completion: ((Throwable?) -> Unit)? = null
        /** The call's controls; null until Core-Telecom added it. */
        var control: CallControlScope? = null
        /** `ringing`, `dialing`, `active` or `inactive` as Telecom has it; null before it was added. */
        var state: String? = null
        /** The user answered here (the ringing notification went, the call holds its media). */
        var answering = false
        /** Telecom answered it (`onAnswer` from a watch or a car), or was asked to: no `answer` request is needed. */
        var answeredByTelecom = false
        /** The call was closed here, perhaps before Core-Telecom added it: its session only waits to end. */
        var closed: DisconnectCause? = null
        /** Telecom ended it (`onDisconnect`): no `disconnect` request is needed. */
        var endedByTelecom = false
        /** The endpoints the call can use and the one it uses, as Core-Telecom last said. */
        var endpoints: List<CallEndpointCompat> = emptyList()
        var endpoint: CallEndpointCompat? = null
        /** The platform's mute as last reported; null before it said. */
        var platformMuted: Boolean? = null
        /** The callee answered before Core-Telecom added the outgoing call: `setActive` once it is added. */
        var connectedBeforeAdded = false
        /** The call's own coroutines (its flows' collectors), a child of the UI's scope, cancelled when its session ends. */
        var session: Job? = null

        val callType: Int
            get() = if (hasVideo) CallAttributesCompat.CALL_TYPE_VIDEO_CALL else CallAttributesCompat.CALL_TYPE_AUDIO_CALL
    }

    /**
     * `CallsManager.registerAppWithTelecom` with video calling declared, so video calls keep their video state;
     * Core-Telecom names the phone account itself, so [label] is not used. Without `MANAGE_OWN_CALLS` nothing is
     * registered, and each call is then refused as [TelecomCallUi]'s are.
     */
    override fun registerWithTelecom(label: CharSequence) {
        try {
            callsManager.registerAppWithTelecom(CallsManager.CAPABILITY_BASELINE or CallsManager.CAPABILITY_SUPPORTS_VIDEO_CALLING)
        } catch (e: SecurityException) {
            // Reported per call: addCall throws the same.
        }
    }

    // CallUi

    /**
     * `addCall` as an incoming call, holdable (`SUPPORTS_SET_INACTIVE`); once Core-Telecom added it, the ringing
     * notification is posted (the call's `CallStyle` notification) and [completion] gets null. A second report of a
     * call id already here is refused ([CallUiException.CODE_CALL_ALREADY_EXISTS]); Core-Telecom's refusal
     * (`CallException`: too many calls, not permitted now) is [CallUiException.CODE_REFUSED], a missing
     * `MANAGE_OWN_CALLS` [CallUiException.CODE_NOT_PERMITTED]: the call is dropped on this phone only.
     */
    override fun reportIncomingCall(report: IncomingCallReport, completion: (Throwable?) -> Unit) {
        val shown = if (report.group == null) report
            else report.copy(caller = Party(report.caller.id, report.callerDisplayName(groupCallerName)))
        val call = synchronized(lock) {
            if (calls.containsKey(report.callId)) return@synchronized null
            Call(report.callId, incoming = true, peer = shown.caller, hasVideo = report.hasVideo).also {
                it.report = shown
                it.completion = completion
                calls[report.callId] = it
            }
        }
        if (call == null) {
            completion(CallUiException(CallUiException.CODE_CALL_ALREADY_EXISTS, "call ${report.callId} is already shown"))
            return
        }
        add(call)
    }

    /**
     * `addCall` as an outgoing call; once added it holds its media (the ongoing notification on API 34+, the
     * foreground service below) while the user who dialled is in the app. Never throws: a refusal ends the server call
     * through the core, as Telecom's `onCreateOutgoingConnectionFailed` does for [TelecomCallUi].
     */
    override fun placeOutgoingCall(callId: String, callee: Party, hasVideo: Boolean) {
        val call = synchronized(lock) {
            if (calls.containsKey(callId)) return
            Call(callId, incoming = false, peer = callee, hasVideo = hasVideo).also { calls[callId] = it }
        }
        add(call)
    }

    /** The call's session: `addCall` returns only when the call is over. */
    private fun add(call: Call) {
        val attributes = CallAttributesCompat(
            call.peer.name ?: call.peer.id,
            Uri.fromParts(PhoneAccount.SCHEME_SIP, call.peer.id, null),
            if (call.incoming) CallAttributesCompat.DIRECTION_INCOMING else CallAttributesCompat.DIRECTION_OUTGOING,
            call.callType,
            CallAttributesCompat.SUPPORTS_SET_INACTIVE
        )
        call.session = SupervisorJob(scope.coroutineContext[Job])
        scope.launch {
            try {
                callsManager.addCall(
                    attributes,
                    onAnswer = { telecomCallback(call) { telecomAnswered(call) } },
                    onDisconnect = { telecomCallback(call) { telecomEnded(call) } },
                    onSetActive = { telecomCallback(call) { telecomHeld(call, false) } },
                    onSetInactive = { telecomCallback(call) { telecomHeld(call, true) } }
                ) { added(call, this) }
            } catch (e: SecurityException) {
                refused(call, CallUiException(CallUiException.CODE_NOT_PERMITTED, "MANAGE_OWN_CALLS is not granted", e))
            } catch (e: CallException) {
                refused(call, CallUiException(CallUiException.CODE_REFUSED, "Core-Telecom refused call ${call.callId}", e))
            } catch (e: CancellationException) {
                // Not added within Core-Telecom's 5 s (a refusal), or the scope is going away during the session.
                if (synchronized(lock) { call.control } == null) {
                    refused(call, CallUiException(CallUiException.CODE_REFUSED, "Core-Telecom did not add call ${call.callId}", e))
                } else {
                    sessionEnded(call)
                }
                throw e
            } finally {
                call.session?.cancel()
            }
            sessionEnded(call)
        }
    }

    /**
     * Runs a Core-Telecom callback's handling so that it never throws: Core-Telecom rethrows a callback's exception in
     * `addCall`'s caller and tears the call down ("If the callback cannot be completed, an Exception should be thrown"),
     * which on the SDK's scope would end the app. A handling that failed (an SDK bug) closes the call here instead.
     */
    private inline fun telecomCallback(call: Call, handle: () -> Unit) {
        try {
            handle()
        } catch (e: CancellationException) {
            throw e
        } catch (e: Exception) {
            endByUser(call.callId, DisconnectCause(DisconnectCause.ERROR)) {}
        }
    }

    /**
     * Core-Telecom added the call (`addCall`'s block). An incoming call's ringing notification is posted before its
     * report completes, since the completion may answer or end the call at once (an answer given before the call UI
     * had it), which must not be undone by a ringing notification posted after.
     */
    private fun added(call: Call, control: CallControlScope) {
        val (closed, connected) = synchronized(lock) {
            call.control = control
            call.state = if (call.incoming) RINGING else DIALING
            Pair(call.closed, call.connectedBeforeAdded)
        }
        // The system logs every call Core-Telecom added (Android 16), ended ones too (a missed call): a tap on it there
        // names this id. Kept off the ringing path (a file write).
        val telecomCallId = control.getCallId().toString()
        val userId = call.report?.caller?.id ?: call.peer.id
        callBackLog?.let { log -> scope.launch { log.remember(telecomCallId, userId, call.hasVideo) } }
        if (closed != null) {
            // Ended while Core-Telecom was adding it.
            request { control.disconnect(closed) }
            return
        }
        // The call's flows are collected in its own session, cancelled when addCall returns: Core-Telecom's own
        // scope is addCall's caller's, where collectors that never complete would keep each ended call's coroutines.
        val calls = CoroutineScope(scope.coroutineContext + (call.session ?: SupervisorJob(scope.coroutineContext[Job])))
        calls.launch { control.availableEndpoints.collect(collector { endpoints -> endpointsChanged(call, endpoints, null) }) }
        calls.launch { control.currentCallEndpoint.collect(collector { endpoint -> endpointsChanged(call, null, endpoint) }) }
        calls.launch { control.isMuted.collect(collector { muted -> platformMuteChanged(call, muted) }) }
        if (call.incoming) {
            val report = synchronized(lock) { call.report?.takeIf { call.closed == null && !call.answering } }
            report?.let { notifications.show(it) }
            // Closed or answered on another thread meanwhile (a watch's answer): what they posted or cancelled came
            // before this ringing notification, which must not stay.
            val (closedNow, answeringNow) = synchronized(lock) { Pair(call.closed != null, call.answering) }
            if (report != null && closedNow) {
                notifications.cancel(call.callId)
            } else if (report != null && answeringNow) {
                if (sdkInt >= TRANSACTIONAL_API) notifications.showOngoing(call.callId, call.peer) else notifications.cancel(call.callId)
            }
            val completion = synchronized(lock) { call.completion.also { call.completion = null } }
            completion?.invoke(null)
        } else {
            holdMedia(call)
            if (connected) activateOutgoing(call, control)
        }
    }

    /** `addCall` threw: an incoming call's report fails; an outgoing call's server call is ended. */
    private fun refused(call: Call, error: CallUiException) {
        val completion = synchronized(lock) {
            if (calls[call.callId] === call) calls.remove(call.callId)
            val completion = call.completion
            call.completion = null
            completion
        }
        if (call.incoming) completion?.invoke(error) else if (call.closed == null) actions?.end(call.callId) {}
    }

    /** `addCall` returned: the session is over. A call Telecom tore down without telling (a failed callback) ends. */
    private fun sessionEnded(call: Call) {
        val known = synchronized(lock) { calls[call.callId] === call && call.closed == null }
        if (known && close(call.callId, DisconnectCause(DisconnectCause.ERROR), request = false)) actions?.end(call.callId) {}
    }

    /** `setDisconnected` in Core-Telecom's words: `disconnect` with the code [RingerDisconnectCause] gives [reason]. */
    override fun reportCallEnded(callId: String, atMs: Long, reason: CallEndReason) {
        close(callId, RingerDisconnectCause.forReason(reason))
    }

    /** `setActive()` on the outgoing call (the callee answered). */
    override fun reportOutgoingCallConnected(callId: String, atMs: Long) {
        val control = synchronized(lock) {
            val call = calls[callId]?.takeIf { !it.incoming && it.closed == null } ?: return
            // Answered before Core-Telecom added the call: made active once it is ([added]).
            if (call.control == null) call.connectedBeforeAdded = true
            call.control?.let { Pair(call, it) }
        } ?: return
        activateOutgoing(control.first, control.second)
    }

    private fun activateOutgoing(call: Call, control: CallControlScope) {
        request { if (control.setActive() is CallControlResult.Success) setState(call, ACTIVE) }
    }

    /**
     * The user answered, however: the ringing notification goes and the call holds its media, once; Telecom's answer
     * waits for [reportCallAnswered].
     */
    override fun reportCallAnswering(callId: String, atMs: Long) {
        val call = ringingIncoming(callId) ?: return
        beginAnswering(call)
    }

    /**
     * The server confirmed this device's answer: a call still ringing in Telecom is answered there (`answer`), which
     * makes it active and starts its audio; once per call.
     */
    override fun reportCallAnswered(callId: String, atMs: Long) {
        val call = ringingIncoming(callId) ?: return
        if (beginAnswering(call) == false) return
        activate(call)
    }

    override fun answer(callId: String): Boolean {
        val call = ringingIncoming(callId) ?: return false
        val held = beginAnswering(call) ?: return false
        // Refused (the call closed), or closed on another thread meanwhile: nothing to answer.
        if (!held || !isOpen(callId)) return true
        val actions = actions
        if (actions == null) {
            close(callId, DisconnectCause(DisconnectCause.ERROR))
            return true
        }
        actions.answer(callId) { confirmed -> if (confirmed) activate(call) else close(callId, DisconnectCause(DisconnectCause.ERROR)) }
        return true
    }

    /**
     * The server call id of the call Core-Telecom knows as [telecomCallId] (`CallControlScope.getCallId()`, which on
     * API 34+ is the platform call's id that Telecom's call log and `ACTION_CALL_BACK`'s `EXTRA_UUID` name), while the
     * call is here; null otherwise.
     */
    fun callId(telecomCallId: ParcelUuid): String? = synchronized(lock) {
        calls.values.firstOrNull { it.control?.getCallId() == telecomCallId }?.callId
    }

    override fun peer(callId: String): Party? = synchronized(lock) { calls[callId]?.takeIf { it.closed == null }?.peer }

    /**
     * The core's hold or resume. A hold is the core's first (the app pauses its media at once), then `setInactive`; one
     * Core-Telecom refuses puts the core back. A resume is Telecom's first (`setActive`, which Telecom may refuse while
     * another app's call is active, or grant by holding this app's other active call), and the core hears it only once
     * granted, so the media never runs while Telecom has the call held.
     */
    override fun requestHeld(callId: String, held: Boolean) {
        val call = synchronized(lock) {
            calls[callId]?.takeIf { it.closed == null && (it.state == ACTIVE || it.state == INACTIVE) }
        } ?: return
        val control = call.control ?: return
        if (held) {
            if (actions?.hold(callId, true) != true) return
            request {
                if (control.setInactive() is CallControlResult.Success) setState(call, INACTIVE) else actions?.hold(callId, false)
            }
        } else {
            request {
                if (control.setActive() is CallControlResult.Success && actions?.hold(callId, false) == true) setState(call, ACTIVE)
            }
        }
    }

    /** Core-Telecom has no mute setter: the microphone is the app's media's, so the core is told at once. */
    override fun requestMuted(callId: String, muted: Boolean) { actions?.mute(callId, muted) }

    /** Core-Telecom passes no keypad: the tones are the app's media's, so the core is told at once. */
    override fun requestDtmf(callId: String, digits: String) { actions?.dtmf(callId, digits) }

    /**
     * `requestEndpointChange` to the endpoint with [output]'s id, through the call that has the audio (an active one,
     * else any added); the route Core-Telecom reports afterwards is what the core hears. Null: nothing to give back,
     * Telecom's routing ends with the call.
     */
    override fun applyAudioOutput(output: AudioOutput?) {
        output ?: return
        val (control, endpoint) = synchronized(lock) {
            val call = calls.values.firstOrNull { it.state == ACTIVE && it.closed == null }
                ?: calls.values.firstOrNull { it.control != null && it.closed == null } ?: return
            val endpoint = call.endpoints.firstOrNull { outputOf(it).id == output.id } ?: return
            Pair(call.control ?: return, endpoint)
        }
        request { control.requestEndpointChange(endpoint) }
    }

    // Core-Telecom's side

    /**
     * `onAnswer`: a system surface (a watch, a car) answered; Telecom makes the call active when this returns, so it
     * holds its media and the core answers now, without waiting for the server (within Core-Telecom's 5 s). A refused
     * answer closes the call.
     */
    private fun telecomAnswered(call: Call) {
        synchronized(lock) { call.answeredByTelecom = true }
        val first = beginAnswering(call)
        if (first == false) return
        // Answered in the app already (null): the core has that answer; its confirmation asks Telecom for nothing more.
        if (first == true) {
            actions?.answer(call.callId) { confirmed -> if (!confirmed) close(call.callId, DisconnectCause(DisconnectCause.ERROR)) }
        }
        setState(call, ACTIVE)
    }

    /** `onDisconnect`: the system ended the call (declined or hung up from a watch, a car, Telecom itself). */
    private fun telecomEnded(call: Call) {
        synchronized(lock) { call.endedByTelecom = true }
        endByUser(call.callId, DisconnectCause(DisconnectCause.LOCAL)) {}
    }

    /** `onSetInactive`/`onSetActive`: Telecom holds the call (a SIM call answered) or makes it active again. */
    private fun telecomHeld(call: Call, held: Boolean) {
        // The core first, as for Telecom's onHold: the app pauses its media before the audio is said to stop.
        actions?.hold(call.callId, held)
        setState(call, if (held) INACTIVE else ACTIVE)
    }

    /** The endpoints or the current one changed: the core hears the phone's route. */
    private fun endpointsChanged(call: Call, endpoints: List<CallEndpointCompat>?, endpoint: CallEndpointCompat?) {
        val reading = synchronized(lock) {
            endpoints?.let { call.endpoints = ArrayList(it) }
            endpoint?.let { call.endpoint = it }
            val outputs = call.endpoints.map(::outputOf)
            val current = call.endpoint?.let { outputOf(it).id }?.takeIf { id -> outputs.any { it.id == id } }
            Pair(current, outputs)
        }
        actions?.audioRouteChanged(reading.first, reading.second)
    }

    /**
     * The platform's mute (a headset's or a car's button): only a change reaches the core, as the system's; its first
     * "unmuted" must not undo the app's own mute.
     */
    private fun platformMuteChanged(call: Call, muted: Boolean) {
        val changed = synchronized(lock) {
            val before = call.platformMuted
            call.platformMuted = muted
            before != muted && (before != null || muted)
        }
        if (changed) actions?.mute(call.callId, muted)
    }

    // Shared steps

    private fun ringingIncoming(callId: String): Call? = synchronized(lock) {
        calls[callId]?.takeIf { it.incoming && it.closed == null && it.state == RINGING }
    }

    /**
     * What every way of answering does first, once per call: the ringing notification goes and the call holds its
     * media. @return null when it was already answering; else whether the media hold succeeded (false: the call closed).
     */
    private fun beginAnswering(call: Call): Boolean? {
        synchronized(lock) {
            // A call closed here (declined, cancelled) is not revived by an answer Telecom still passes on.
            if (call.answering || calls[call.callId] !== call || call.closed != null) return null
            call.answering = true
        }
        // On API 34+ the ongoing notification replaces the ringing one in place: Android 14 stops a call's foreground
        // delegation as soon as its notification is removed (AOSP VoipCallMonitor), so it is never cancelled first.
        if (sdkInt < TRANSACTIONAL_API) notifications.cancel(call.callId)
        return holdMedia(call)
    }

    /**
     * The server confirmed the answer: Telecom answers the call unless it did or was asked to already (the answer's
     * completion and the core's [reportCallAnswered] both say so, in either order).
     */
    private fun activate(call: Call) {
        val control = synchronized(lock) {
            val control = call.control?.takeIf { !call.answeredByTelecom && call.closed == null } ?: return
            call.answeredByTelecom = true
            control
        }
        request {
            if (control.answer(call.callType) is CallControlResult.Success) {
                setState(call, ACTIVE)
            } else {
                close(call.callId, DisconnectCause(DisconnectCause.ERROR))
            }
        }
    }

    /**
     * An answered or dialled call keeps the process and the microphone: on API 34+ Core-Telecom's foreground priority,
     * which needs its `CallStyle` notification; below, the foreground service.
     * @return false when the foreground service was refused (the call was closed).
     */
    private fun holdMedia(call: Call): Boolean {
        if (sdkInt >= TRANSACTIONAL_API) {
            notifications.showOngoing(call.callId, call.peer)
            // Closed on another thread meanwhile: its close cancelled nothing yet posted.
            if (!isOpen(call.callId)) notifications.cancel(call.callId)
            return true
        }
        return foreground.hold(call.callId, call.peer, call.hasVideo)
    }

    /** Whether the call is here and not closed. */
    private fun isOpen(callId: String): Boolean = synchronized(lock) { calls[callId]?.closed == null && calls.containsKey(callId) }

    private fun setState(call: Call, state: String) {
        synchronized(lock) {
            if (call.closed != null) return
            call.state = state
        }
        audioFollows()
    }

    /**
     * Closes the call here: its notification, its hold on the foreground service, and Telecom's call (`disconnect`,
     * unless Telecom ended it, or later, once Core-Telecom added it). A report still waiting gets
     * [CallUiException.CODE_ENDED].
     * @return false when no open call has this id.
     */
    override fun close(callId: String, cause: DisconnectCause): Boolean = close(callId, cause, request = true)

    /** [close], asking Telecom to disconnect only when [request] (not for a session Telecom already ended). */
    private fun close(callId: String, cause: DisconnectCause, request: Boolean): Boolean {
        // The controls are read with the close, under one lock: an add finishing meanwhile ([added]) then either sees
        // the call closed and disconnects it, or left its controls here for this close to disconnect, never both.
        val (call, control) = synchronized(lock) {
            val call = calls.remove(callId) ?: return false
            call.closed = cause
            Pair(call, call.control?.takeIf { !call.endedByTelecom })
        }
        val completion = synchronized(lock) { call.completion.also { call.completion = null } }
        completion?.invoke(CallUiException(CallUiException.CODE_ENDED, "call $callId ended before it rang"))
        notifications.cancel(callId)
        foreground.release(callId)
        audioFollows()
        if (request && control != null) request { control.disconnect(cause) }
        return true
    }

    /** Tells the core when the calls' audio started or stopped: while any call is active in Telecom, it runs. */
    private fun audioFollows() {
        val change = synchronized(lock) {
            val on = calls.values.any { it.state == ACTIVE && it.closed == null }
            if (on == audioOn) return
            audioOn = on
            on
        }
        if (change) actions?.audioSessionActivated() else actions?.audioSessionDeactivated()
    }

    /** Asks Core-Telecom for [block] after every request asked for before it. */
    private fun request(block: suspend () -> Unit) {
        // A scope cancelled (the phone is going away) runs nothing more: a drainer launched now would never start.
        if (scope.coroutineContext[Job]?.isActive == false) return
        val start = synchronized(lock) {
            pending.addLast(block)
            !draining.also { draining = true }
        }
        if (start) scope.launch { drain() }
    }

    /**
     * Makes the pending requests one at a time until there are none; one coroutine at a time runs this. A request that
     * fails is dropped (the call's end reaches the core otherwise), one cancelled from within Core-Telecom too; only
     * this coroutine's own cancellation, or an `Error`, ends it early, and then the next [request] starts another.
     */
    private suspend fun drain() {
        var emptied = false
        try {
            while (true) {
                val next = synchronized(lock) {
                    pending.pollFirst() ?: run {
                        draining = false
                        emptied = true
                        null
                    }
                } ?: return
                try {
                    next()
                } catch (e: CancellationException) {
                    if (coroutineContext[Job]?.isActive == false) throw e
                } catch (e: Exception) {
                    // A request to a call Core-Telecom no longer tracks.
                }
            }
        } finally {
            if (!emptied) synchronized(lock) { draining = false }
        }
    }

    /** A collector for a Core-Telecom flow (an object, not a lambda: kotlinc 1.3 has no `fun interface`). */
    private fun <T> collector(body: (T) -> Unit): FlowCollector<T> = object : FlowCollector<T> {
        override suspend fun emit(value: T) = body(value)
    }

    /** Constants and the endpoint mapping. */
    companion object {
        /** The API level from which Core-Telecom uses the platform's transactional calls (Android 14). */
        const val TRANSACTIONAL_API = 34

        private const val RINGING = "ringing"
        private const val DIALING = "dialing"
        private const val ACTIVE = "active"
        private const val INACTIVE = "inactive"

        /** A Core-Telecom endpoint as an output, with the ids [TelecomCallUi] gives the same devices. */
        @JvmStatic fun outputOf(endpoint: CallEndpointCompat): AudioOutput {
            val route = when (endpoint.type) {
                CallEndpointCompat.TYPE_EARPIECE -> AudioRoute.EARPIECE
                CallEndpointCompat.TYPE_SPEAKER -> AudioRoute.SPEAKER
                CallEndpointCompat.TYPE_WIRED_HEADSET -> AudioRoute.WIRED
                CallEndpointCompat.TYPE_BLUETOOTH -> AudioRoute.BLUETOOTH
                else -> AudioRoute.OTHER
            }
            return TelecomAudioRoutes.endpointOutput(route, endpoint.identifier.toString(), endpoint.name.toString())
        }
    }
}
