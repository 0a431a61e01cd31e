package dev.ringer.android

import android.content.ComponentName
import android.content.Context
import android.net.Uri
import android.os.Build
import android.os.Bundle
import android.telecom.CallAudioState
import android.telecom.CallEndpoint
import android.telecom.Connection
import android.telecom.ConnectionRequest
import android.telecom.DisconnectCause
import android.telecom.PhoneAccount
import android.telecom.PhoneAccountHandle
import android.telecom.TelecomManager
import android.telecom.VideoProfile
import dev.ringer.kit.AudioOutput
import dev.ringer.kit.CallEndReason
import dev.ringer.kit.IncomingCallReport
import dev.ringer.kit.Party

/**
 * A self-managed `ConnectionService` as the core's [CallUi] (Android: "Build a calling app",
 * `PhoneAccount.CAPABILITY_SELF_MANAGED`), following docs/android-integration.md's tables exactly.
 *
 * It only translates: one [RingerConnection] per server call id, Telecom's callbacks forwarded to [actions]
 * (the coordinator), the coordinator's reports turned into `Connection` states. It also holds the call's
 * foreground service ([CallForegroundService]) from answer or dial to the last call's end, and posts the
 * incoming-call notification when Telecom asks ([IncomingCallNotification]).
 *
 * On a device without Telecom (`PackageManager.FEATURE_TELECOM` absent: some tablets, Chromebooks and watches;
 * developer.android.com/develop/connectivity/telecom/voip-app, "Supported telecom devices") it plays Telecom's part itself: each call
 * is a [RingerConnection] known only to the app, and an incoming call rings through its notification alone
 * (full-screen intent, answer and decline actions). Such a call has no Telecom call, so nothing exempts its
 * notification from a denied `POST_NOTIFICATIONS`, and headsets, cars and watches cannot answer it.
 *
 * Thread-safe: the coordinator calls it from any thread, Telecom from the main thread.
 *
 * @param context the application context.
 * @param telecom the system's `TelecomManager`; null on a device without Telecom (see above).
 * @param notifications the ringing call's notification and the ongoing call's, which its foreground service
 *   must show (an app with its own call screen still needs the ongoing one).
 * @param sdkInt the device's API level (`Build.VERSION.SDK_INT`), a parameter so each level can be tested.
 * @param groupCallerName how a group call's caller is named (`setCallerDisplayName` and the ringing notification):
 *   the caller's name and how many others were rung with this user, "Alice and 2 others" by default
 *   ([IncomingCallReport.defaultGroupName]); give your own to localize it. The address stays the caller's id.
 */
class TelecomCallUi(
    private val context: Context,
    private val telecom: TelecomManager?,
    override val notifications: IncomingCallNotification,
    override val sdkInt: Int = Build.VERSION.SDK_INT,
    private val groupCallerName: (String, Int) -> String = { caller, others -> IncomingCallReport.defaultGroupName(caller, others) }
) : AndroidCallUi() {
    /** The phone account this app's calls are placed on (its `ConnectionService` and the id "ringer"). */
    val phoneAccountHandle = PhoneAccountHandle(ComponentName(context, RingerConnectionService::class.java), ACCOUNT_ID)

    private val lock = Any()
    private val connections = HashMap<String, RingerConnection>()
    private val pendingIncoming = HashMap<String, PendingIncoming>()
    private val pendingOutgoing = HashMap<String, Party>()
    private val peers = HashMap<String, Party>()
    private val reports = HashMap<String, IncomingCallReport>()
    /** Answered or dialled calls hold the foreground service while their connection is here. */
    override val foreground = CallForeground(context, sdkInt, isOpen = { callId -> synchronized(lock) { connections.containsKey(callId) } }) {
        callId -> foregroundRefused(callId)
    }
    /** Incoming calls whose ringer the user silenced (`onSilence`). */
    private val silenced = HashSet<String>()
    /** Incoming calls whose ringing notification was posted. */
    private val shownIncoming = HashSet<String>()
    /** The phone's audio route as Telecom last reported it. */
    private val routes = TelecomAudioRoutes(sdkInt)
    /** Telecom's mute as it last reported it; null before it said, and again after the last call. */
    private var telecomMuted: Boolean? = null
    /** Whether the core was last told the calls' audio runs ([audioFollows]). */
    private var audioOn = false

    override val telecomAvailable: Boolean get() = telecom != null

    private class PendingIncoming(val report: IncomingCallReport, val completion: (Throwable?) -> Unit)

    /**
     * Registers the self-managed phone account with Telecom (Android: `TelecomManager.registerPhoneAccount`);
     * call once at start-up, before any call is reported. Video calling is declared so video calls keep
     * their video state. Does nothing on a device without Telecom.
     * @param label the account's name in the system's settings (the app's name).
     */
    override fun registerWithTelecom(label: CharSequence) {
        val telecom = telecom ?: return
        val account = PhoneAccount.builder(phoneAccountHandle, label)
            .setCapabilities(
                PhoneAccount.CAPABILITY_SELF_MANAGED or PhoneAccount.CAPABILITY_VIDEO_CALLING or
                    PhoneAccount.CAPABILITY_SUPPORTS_VIDEO_CALLING
            )
            .addSupportedUriScheme(PhoneAccount.SCHEME_SIP)
            .build()
        telecom.registerPhoneAccount(account)
    }

    // CallUi

    /**
     * `TelecomManager.addNewIncomingCall(handle, extras)` with the call id, caller and video flag in
     * `EXTRA_INCOMING_CALL_EXTRAS`; [completion] runs when Telecom creates the connection (null: ringing) or
     * refuses it. A second report for a call id already shown or pending is refused
     * ([CallUiException.CODE_CALL_ALREADY_EXISTS]). Without `MANAGE_OWN_CALLS`, Telecom throws
     * `SecurityException`: the completion gets [CallUiException.CODE_NOT_PERMITTED] and the call is dropped on
     * this phone only (the core does not decline it, so the user's other devices keep ringing).
     */
    override fun reportIncomingCall(report: IncomingCallReport, completion: (Throwable?) -> Unit) {
        // A group call shows its caller with the count of the others (the ringing notification and Telecom's name);
        // the caller's id stays the call's address, so the call log calls the caller back.
        val shown = if (report.group == null) report
            else report.copy(caller = Party(report.caller.id, report.callerDisplayName(groupCallerName)))
        showIncoming(shown, completion)
    }

    private fun showIncoming(report: IncomingCallReport, completion: (Throwable?) -> Unit) {
        val refused = synchronized(lock) {
            if (connections.containsKey(report.callId) || pendingIncoming.containsKey(report.callId)) {
                true
            } else {
                pendingIncoming[report.callId] = PendingIncoming(report, completion)
                false
            }
        }
        if (refused) {
            completion(CallUiException(CallUiException.CODE_CALL_ALREADY_EXISTS, "call ${report.callId} is already shown"))
            return
        }
        val callExtras = Bundle()
        putPeer(callExtras, report.callId, report.caller, report.hasVideo)
        val extras = Bundle()
        extras.putBundle(TelecomManager.EXTRA_INCOMING_CALL_EXTRAS, callExtras)
        val telecom = telecom
        if (telecom == null) {
            // No Telecom: what it would do, done here at once (the connection, then "show your incoming-call UI").
            val connection = createIncomingConnection(ConnectionRequest(phoneAccountHandle, null, extras))
            if (connection is RingerConnection) connection.onShowIncomingCallUi()
            return
        }
        try {
            telecom.addNewIncomingCall(phoneAccountHandle, extras)
        } catch (e: SecurityException) {
            synchronized(lock) { pendingIncoming.remove(report.callId) }
            completion(CallUiException(CallUiException.CODE_NOT_PERMITTED, "MANAGE_OWN_CALLS is not granted", e))
        }
    }

    /** `setDisconnected(DisconnectCause(code))` then `destroy()`, the code from [RingerDisconnectCause]. */
    override fun reportCallEnded(callId: String, atMs: Long, reason: CallEndReason) {
        val pending = synchronized(lock) {
            pendingOutgoing.remove(callId)
            pendingIncoming.remove(callId)
        }
        pending?.completion?.invoke(CallUiException(CallUiException.CODE_ENDED, "call $callId ended before it rang"))
        close(callId, RingerDisconnectCause.forReason(reason))
    }

    /**
     * Holds every active call through the core ([hold]): the service lost Telecom's call focus to another app's call,
     * whose audio takes over.
     */
    fun holdActiveCalls() {
        val active = synchronized(lock) { connections.filterValues { it.state == Connection.STATE_ACTIVE }.keys.toList() }
        for (callId in active) hold(callId, true)
    }

    /** The coordinator's hold or resume (the app asked, or another call takes the audio): as Telecom's own, [hold]. */
    override fun requestHeld(callId: String, held: Boolean) { hold(callId, held) }

    /**
     * The app mutes or unmutes: a self-managed call's microphone is the app's own (Telecom sets no mute for it), so the
     * core is told at once and the app's media follows its `MutedChanged`.
     */
    override fun requestMuted(callId: String, muted: Boolean) { actions?.mute(callId, muted) }

    /**
     * The app plays keypad tones: a self-managed call's tones are the app's media, so the core is told at once, as for
     * a key Telecom passed ([dtmf]), and the app's media sends them on its `Dtmf`.
     */
    override fun requestDtmf(callId: String, digits: String) { actions?.dtmf(callId, digits) }

    /**
     * Sends the calls' audio to [output] as the core decided, through the connection that has the audio (an active one,
     * else any): `requestCallEndpointChange` on API 34+, `setAudioRoute` below ([TelecomAudioRoutes]).
     */
    override fun applyAudioOutput(output: AudioOutput?) {
        // Nothing to give back: Telecom's routing ends with the call.
        output ?: return
        synchronized(lock) {
            val connection = connections.values.firstOrNull { it.state == Connection.STATE_ACTIVE }
                ?: connections.values.firstOrNull() ?: return
            routes.apply(output, connection)
        }
    }

    /** API 34: Telecom moved the audio (`Connection.onCallEndpointChanged`); the core hears the new route. */
    internal fun callEndpointChanged(endpoint: CallEndpoint) {
        report(synchronized(lock) { routes.endpointChanged(endpoint) })
    }

    /** API 34: the devices Telecom can route to changed (`onAvailableCallEndpointsChanged`). */
    internal fun availableCallEndpointsChanged(endpoints: List<CallEndpoint>) {
        report(synchronized(lock) { routes.availableEndpointsChanged(endpoints) })
    }

    /** Below API 34: the route and the routes supported (`onCallAudioStateChanged`), with Telecom's mute. */
    internal fun callAudioStateChanged(callId: String, state: CallAudioState) {
        report(synchronized(lock) { routes.audioStateChanged(state) } ?: return)
        muteStateChanged(callId, state.isMuted)
    }

    /**
     * Telecom reported its mute (a headset's or a car's mute button): only a change of it reaches the core, as the
     * system's. Telecom knows nothing of the app's own mute (a self-managed call's microphone is the app's), so its
     * unmuted state, said again at every route change, must not undo the app's.
     */
    internal fun muteStateChanged(callId: String, muted: Boolean) {
        val changed = synchronized(lock) {
            connections[callId] ?: return
            val before = telecomMuted
            telecomMuted = muted
            before != muted && (before != null || muted)
        }
        if (changed) actions?.mute(callId, muted)
    }

    private fun report(reading: TelecomAudioRoutes.Reading?) {
        reading ?: return
        actions?.audioRouteChanged(reading.current, reading.outputs)
    }

    /**
     * A key pressed on a system call surface (`Connection.onPlayDtmfTone`), for a call Telecom has active.
     * @return false when no such call is active here, or the core refused the key (held, not a keypad key).
     */
    fun dtmf(callId: String, digits: String): Boolean {
        val connection = synchronized(lock) { connections[callId] } ?: return false
        if (connection.state != Connection.STATE_ACTIVE) return false
        return actions?.dtmf(callId, digits) == true
    }

    /**
     * Holds or resumes a call (Telecom's `onHold`/`onUnhold`, or the core's request): the core decides first, so its
     * other calls are held before this one resumes, then the `Connection` goes `setOnHold()` or `setActive()`. Telecom
     * awaits no reply to `onHold` and calls no `onHold` for a change the app made, so both ways end here.
     * @return false when no answered call has this id, or the core refused (the call is not answered there).
     */
    fun hold(callId: String, held: Boolean): Boolean {
        val connection = synchronized(lock) { connections[callId] } ?: return false
        val state = connection.state
        if (state != Connection.STATE_ACTIVE && state != Connection.STATE_HOLDING) return false
        if (actions?.hold(callId, held) != true) return false
        if (held) connection.setOnHold() else connection.setActive()
        return true
    }

    /** `setActive()` on the outgoing call's `Connection` (the callee answered). */
    override fun reportOutgoingCallConnected(callId: String, atMs: Long) {
        val connection = synchronized(lock) { connections[callId] } ?: return
        connection.setActive()
    }

    /**
     * The server confirmed this device's answer: if the call's `Connection` is still ringing (answered through the
     * coordinator directly, by the app's own screen, or restored after a relaunch) it holds the call's foreground
     * service with the microphone, as an answer through [answer] does, and goes active (`setActive()`, which starts
     * audio), and its ringing notification, the ringtone with it, goes. Once per call: a call answered through
     * [answer] is already active (its completion ran first), and later calls change nothing; a Telecom `onAnswer`
     * after it is ignored.
     */
    override fun reportCallAnswered(callId: String, atMs: Long) {
        val connection = synchronized(lock) { connections[callId] } ?: return
        if (!connection.incoming || connection.state != Connection.STATE_RINGING) return
        // Still ringing here when the answer was not seen at the tap (a UI that missed reportCallAnswering): the
        // call holds its foreground service as an answer through Telecom does, then goes active.
        if (beginAnswering(connection) == false) return
        connection.setActive()
    }

    /**
     * The user answered, however (the app's own screen through the coordinator, or an answer restored after a
     * relaunch, whose Telecom `Connection` still rings): at the tap, while the app is in front, the ringing
     * notification and its ringtone go and the call's foreground service starts with the microphone, as [answer]
     * does; the `Connection` goes active only at [reportCallAnswered]. A call answered through [answer] is left as
     * it is.
     */
    override fun reportCallAnswering(callId: String, atMs: Long) {
        val connection = synchronized(lock) { connections[callId] } ?: return
        if (!connection.incoming || connection.state != Connection.STATE_RINGING) return
        beginAnswering(connection)
    }

    /**
     * What every way of answering does first, once per call: the ringing notification (and its ringtone) goes and
     * the call's foreground service starts with the microphone.
     * @return null when the call was already answering; else whether the service started (false: it was refused
     *   and the call closed).
     */
    private fun beginAnswering(connection: RingerConnection): Boolean? {
        if (!connection.beginAnswer()) return null
        notifications.cancel(connection.callId)
        return holdForeground(connection)
    }

    // Outgoing calls

    /**
     * Shows a call the server created (the coordinator's `startCall`) as an outgoing Telecom call:
     * `TelecomManager.placeCall` with the callee as a `sip:` address on this app's phone account and the call
     * id in `EXTRA_OUTGOING_CALL_EXTRAS`; Telecom then calls `onCreateOutgoingConnection`.
     * @throws CallUiException [CallUiException.CODE_NOT_PERMITTED] when `MANAGE_OWN_CALLS` is missing; the
     *   caller should then end the server call.
     */
    override fun placeOutgoingCall(callId: String, callee: Party, hasVideo: Boolean) {
        synchronized(lock) { pendingOutgoing[callId] = callee }
        val callExtras = Bundle()
        putPeer(callExtras, callId, callee, hasVideo)
        val extras = Bundle()
        extras.putParcelable(TelecomManager.EXTRA_PHONE_ACCOUNT_HANDLE, phoneAccountHandle)
        extras.putInt(TelecomManager.EXTRA_START_CALL_WITH_VIDEO_STATE, videoState(hasVideo))
        extras.putBundle(TelecomManager.EXTRA_OUTGOING_CALL_EXTRAS, callExtras)
        val address = Uri.fromParts(PhoneAccount.SCHEME_SIP, callee.id, null)
        val telecom = telecom
        if (telecom == null) {
            createOutgoingConnection(ConnectionRequest(phoneAccountHandle, address, extras))
            return
        }
        try {
            telecom.placeCall(address, extras)
        } catch (e: SecurityException) {
            synchronized(lock) { pendingOutgoing.remove(callId) }
            throw CallUiException(CallUiException.CODE_NOT_PERMITTED, "MANAGE_OWN_CALLS is not granted", e)
        }
    }

    // Telecom's side (RingerConnectionService calls these)

    /**
     * `onCreateIncomingConnection`: builds the reported call's `Connection` (self-managed, caller's address and
     * name, video state), sets it ringing and completes the report with null. A request for no pending report
     * (the call ended meanwhile, or not from this SDK) gets a failed connection (`ERROR`).
     */
    fun createIncomingConnection(request: ConnectionRequest): Connection {
        val claimed = claim(request, TelecomManager.EXTRA_INCOMING_CALL_EXTRAS, incoming = true,
                            pending = pendingIncoming) ?: return failedConnection()
        val connection = claimed.connection
        val pending = claimed.pending
        configure(connection, pending.report.caller, pending.report.hasVideo)
        connection.setRinging()
        pending.completion(null)
        return connection
    }

    /** `onCreateIncomingConnectionFailed`: the report completes with [CallUiException.CODE_REFUSED]. */
    fun incomingConnectionFailed(request: ConnectionRequest) {
        val callId = callExtras(request, TelecomManager.EXTRA_INCOMING_CALL_EXTRAS)?.getString(RingerIntents.EXTRA_CALL_ID) ?: return
        val pending = synchronized(lock) { pendingIncoming.remove(callId) } ?: return
        pending.completion(CallUiException(CallUiException.CODE_REFUSED, "Telecom refused incoming call $callId"))
    }

    /**
     * `onCreateOutgoingConnection`: the placed call's `Connection`, dialing, with the call's foreground
     * service started, the microphone asked for now, while the user who dialled is in the app ([CallForegroundService]).
     * An unknown request gets a failed connection (`ERROR`).
     */
    fun createOutgoingConnection(request: ConnectionRequest): Connection {
        val claimed = claim(request, TelecomManager.EXTRA_OUTGOING_CALL_EXTRAS, incoming = false,
                            pending = pendingOutgoing) ?: return failedConnection()
        val connection = claimed.connection
        configure(connection, claimed.pending, claimed.callExtras.getBoolean(RingerIntents.EXTRA_HAS_VIDEO))
        connection.setDialing()
        holdForeground(connection)
        return connection
    }

    /** `onCreateOutgoingConnectionFailed` (e.g. another call in progress): the server call is ended. */
    fun outgoingConnectionFailed(request: ConnectionRequest) {
        val callId = callExtras(request, TelecomManager.EXTRA_OUTGOING_CALL_EXTRAS)?.getString(RingerIntents.EXTRA_CALL_ID) ?: return
        val known = synchronized(lock) { pendingOutgoing.remove(callId) != null }
        if (known) actions?.end(callId) {}
    }

    // The user's actions (RingerConnection, the notification, the app's call activity)

    /**
     * Answers a ringing call (Telecom's `onAnswer`, or the notification's answer action reaching the app's call
     * activity): the call's foreground service starts with the microphone (asked for now, while an answer from the
     * notification has the app visible; see [CallForegroundService]), the coordinator answers, and the `Connection`
     * goes active only when the server confirmed; otherwise it closes with `ERROR`. A second answer is ignored.
     * @return false when no ringing call has this id.
     */
    override fun answer(callId: String): Boolean {
        val connection = synchronized(lock) { connections[callId] } ?: return false
        if (!connection.incoming) return false
        val held = beginAnswering(connection) ?: return false
        if (!held) return true
        val actions = actions
        if (actions == null) {
            close(callId, DisconnectCause(DisconnectCause.ERROR))
            return true
        }
        actions.answer(callId) { confirmed ->
            if (confirmed) connection.setActive() else close(callId, DisconnectCause(DisconnectCause.ERROR))
        }
        return true
    }

    /** The caller as reported, for the notification and the foreground service; null when the call is unknown. */
    override fun peer(callId: String): Party? = synchronized(lock) { peers[callId] }

    internal fun showIncomingCallUi(callId: String) {
        val (report, silent) = synchronized(lock) {
            val report = reports[callId] ?: return
            shownIncoming.add(callId)
            Pair(report, silenced.contains(callId))
        }
        notifications.show(report, silent)
    }

    /**
     * The user silenced the ringer (`Connection.onSilence`): the ringing notification is posted again, only
     * alerting once, so its ringtone stops and the call still shows as ringing.
     */
    internal fun silenceRinger(callId: String) {
        val report = synchronized(lock) {
            val connection = connections[callId] ?: return
            if (!connection.incoming || connection.isAnswered || connection.state != Connection.STATE_RINGING) return
            silenced.add(callId)
            if (shownIncoming.contains(callId)) reports[callId] else null
        } ?: return
        notifications.show(report, silent = true)
    }

    /**
     * A connection's state changed (`Connection.onStateChanged`, also for the changes this UI made): the calls' audio
     * runs while any connection is `STATE_ACTIVE`, so the core hears it start (media may start, the audio route's
     * choice is asked for again after a hold) and stop (every call held or closed).
     */
    internal fun connectionStateChanged() { audioFollows() }

    /** Tells the core when the calls' audio started or stopped: while any connection is active, it runs. */
    private fun audioFollows() {
        val change = synchronized(lock) {
            val on = connections.values.any { it.state == Connection.STATE_ACTIVE }
            if (on == audioOn) return
            audioOn = on
            on
        }
        if (change) actions?.audioSessionActivated() else actions?.audioSessionDeactivated()
    }

    /**
     * Closes the call's `Connection` (disconnected, destroyed), its notification, and its hold on the foreground
     * service ([CallForeground.release]).
     */
    override fun close(callId: String, cause: DisconnectCause): Boolean {
        val connection = synchronized(lock) {
            val connection = connections.remove(callId) ?: return@synchronized null
            peers.remove(callId)
            reports.remove(callId)
            silenced.remove(callId)
            shownIncoming.remove(callId)
            // Telecom's mute ends with its last call: the next call's first report is no change.
            if (connections.isEmpty()) telecomMuted = null
            connection
        } ?: return false
        connection.setDisconnected(cause)
        connection.destroy()
        notifications.cancel(callId)
        audioFollows()
        foreground.release(callId)
        return true
    }

    /**
     * Starts (or updates) the call's foreground service, asking for the microphone (every holder was answered or
     * dialled); false when it was refused and the call closed.
     */
    private fun holdForeground(connection: RingerConnection): Boolean {
        val peer = synchronized(lock) { peers[connection.callId] } ?: return false
        return foreground.hold(connection.callId, peer, hasVideo = connection.videoState != VideoProfile.STATE_AUDIO_ONLY)
    }

    private fun configure(connection: RingerConnection, peer: Party, hasVideo: Boolean) {
        synchronized(lock) {
            peers[connection.callId] = peer
            if (connection.incoming) reports[connection.callId] = IncomingCallReport(connection.callId, peer, hasVideo)
        }
        connection.setConnectionProperties(Connection.PROPERTY_SELF_MANAGED)
        connection.setAddress(Uri.fromParts(PhoneAccount.SCHEME_SIP, peer.id, null), TelecomManager.PRESENTATION_ALLOWED)
        connection.setCallerDisplayName(peer.name ?: peer.id, TelecomManager.PRESENTATION_ALLOWED)
        connection.setVideoState(videoState(hasVideo))
        connection.setAudioModeIsVoip(true)
    }

    private fun putPeer(extras: Bundle, callId: String, peer: Party, hasVideo: Boolean) {
        extras.putString(RingerIntents.EXTRA_CALL_ID, callId)
        extras.putString(RingerIntents.EXTRA_PEER_ID, peer.id)
        peer.name?.let { extras.putString(RingerIntents.EXTRA_PEER_NAME, it) }
        extras.putBoolean(RingerIntents.EXTRA_HAS_VIDEO, hasVideo)
    }

    /** A connection Telecom asked for, with what was pending for its call and the request's call extras. */
    private class Claimed<T>(val connection: RingerConnection, val pending: T, val callExtras: Bundle)

    /**
     * The connection for a call this SDK handed to Telecom: the call id from the request's extras under [key], what
     * [pending] held for it taken out and the connection registered under one lock, so an end arriving meanwhile
     * finds either the pending call or its connection. Null for a request without a call id or with nothing pending
     * (the call ended meanwhile, or not from this SDK).
     */
    private fun <T> claim(request: ConnectionRequest, key: String, incoming: Boolean,
                          pending: HashMap<String, T>): Claimed<T>? {
        val callExtras = callExtras(request, key) ?: return null
        val callId = callExtras.getString(RingerIntents.EXTRA_CALL_ID) ?: return null
        val connection = RingerConnection(callId, incoming = incoming, owner = this)
        val taken = synchronized(lock) {
            val taken = pending.remove(callId)
            if (taken != null) connections[callId] = connection
            taken
        } ?: return null
        return Claimed(connection, taken, callExtras)
    }

    /** What Telecom gets for a request that matches no call: a connection that fails at once (`ERROR`). */
    private fun failedConnection(): Connection =
        Connection.createFailedConnection(DisconnectCause(DisconnectCause.ERROR))

    /** The app's extras: nested under [key] as passed to Telecom, or at the top level on devices that flatten them. */
    private fun callExtras(request: ConnectionRequest, key: String): Bundle? {
        val extras = request.extras ?: return null
        return extras.getBundle(key) ?: extras.takeIf { it.containsKey(RingerIntents.EXTRA_CALL_ID) }
    }

    private fun videoState(hasVideo: Boolean): Int =
        if (hasVideo) VideoProfile.STATE_BIDIRECTIONAL else VideoProfile.STATE_AUDIO_ONLY

    /** Constants. */
    companion object {
        /** The id of this app's one self-managed phone account. */
        const val ACCOUNT_ID = "ringer"
    }
}
