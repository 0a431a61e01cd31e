// TEST-ONLY mirror of Jetpack Core-Telecom 1.0 (see CallAttributesCompat.kt). Its test double plays Telecom: it keeps
// each added call, answers the app's requests as the library documents, and lets a test (or the laboratory's
// simulated phone) act as the system: answer from a watch, hold for a SIM call, disconnect (members named mirror...).
package androidx.core.telecom

import android.content.Context
import android.os.ParcelUuid
import android.telecom.DisconnectCause
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.FlowCollector
import kotlinx.coroutines.withTimeout
import java.util.UUID
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.coroutines.CoroutineContext

/**
 * Mirror of `CallsManager`: the app's calls as Telecom knows them. [addCall] "will NOT complete until the call session
 * has ended"; each of its callbacks must finish within 5000 ms ("Failing to complete the suspend fun before the timeout
 * will result in a failed transaction"), and a callback that throws tears the call down (KDoc of `addCall`).
 */
class CallsManager(@Suppress("UNUSED_PARAMETER") context: Context) {
    /** The capabilities [registerAppWithTelecom] was given; null before. */
    @Volatile var mirrorCapabilities: Int? = null
    /** False: `MANAGE_OWN_CALLS` is missing, and registering or adding a call throws `SecurityException`. */
    @Volatile var mirrorManageOwnCallsGranted = true
    /** A [CallException] code [addCall] throws instead of adding the next call (the platform refused it); null: added. */
    @Volatile var mirrorRefusal: Int? = null
    /** Every call added, in order, ended ones too. */
    val mirrorCalls: MutableList<MirrorCall> = CopyOnWriteArrayList<MirrorCall>()
    /** Told of each call once its block ran (the call is "ready"). */
    @Volatile var mirrorAdded: ((MirrorCall) -> Unit)? = null
    /** While set, [addCall] waits for it before adding the call: Telecom slow to add, so reports race the add. */
    @Volatile var mirrorAddGate: CompletableDeferred<Unit>? = null

    /** Registers the app's phone account with [capabilities] (`CAPABILITY_*`). */
    fun registerAppWithTelecom(capabilities: Int) {
        if (!mirrorManageOwnCallsGranted) throw SecurityException("MANAGE_OWN_CALLS is not granted")
        mirrorCapabilities = capabilities
    }

    /**
     * Adds a call and suspends until it ends; [block] runs once it is added, in the call's scope.
     * @throws SecurityException without `MANAGE_OWN_CALLS`.
     * @throws CallException when the platform refuses the call ([mirrorRefusal]).
     */
    suspend fun addCall(
        callAttributes: CallAttributesCompat,
        onAnswer: suspend (callType: Int) -> Unit,
        onDisconnect: suspend (disconnectCause: DisconnectCause) -> Unit,
        onSetActive: suspend () -> Unit,
        onSetInactive: suspend () -> Unit,
        block: CallControlScope.() -> Unit
    ) {
        if (!mirrorManageOwnCallsGranted) throw SecurityException("MANAGE_OWN_CALLS is not granted")
        mirrorRefusal?.let { throw CallException(it) }
        mirrorAddGate?.await()
        coroutineScope {
            // The call's scope is addCall's caller's, as the library's: what the app launches in it is that
            // coroutine's child. (Here addCall also waits for those children before it returns; the SDK launches
            // nothing there.)
            val call = MirrorCall(callAttributes, coroutineContext, onAnswer, onDisconnect, onSetActive, onSetInactive)
            mirrorCalls.add(call)
            call.block()
            mirrorAdded?.invoke(call)
            call.ended.await()
        }
    }

    init {
        mirrorCreated?.invoke(this)
    }

    /** Constants, values as in api/current.txt. */
    companion object {
        /** Told of each `CallsManager` created (the laboratory's phone plays Telecom around the app's). */
        @Volatile @JvmStatic var mirrorCreated: ((CallsManager) -> Unit)? = null

        const val CAPABILITY_BASELINE = 1
        const val CAPABILITY_SUPPORTS_VIDEO_CALLING = 1 shl 1
        const val CAPABILITY_SUPPORTS_CALL_STREAMING = 1 shl 2
    }
}

/**
 * One added call as the mirror's Telecom keeps it: its [CallControlScope] for the app, and the system's side for tests.
 * States: `ringing` (incoming), `dialing` (outgoing), `active`, `inactive`, `disconnected`.
 */
class MirrorCall internal constructor(
    val attributes: CallAttributesCompat,
    override val coroutineContext: CoroutineContext,
    private val onAnswer: suspend (Int) -> Unit,
    private val onDisconnect: suspend (DisconnectCause) -> Unit,
    private val onSetActive: suspend () -> Unit,
    private val onSetInactive: suspend () -> Unit
) : CallControlScope {
    private val id = ParcelUuid(UUID.randomUUID())
    internal val ended = CompletableDeferred<Unit>()

    /** The call's state (see the class). */
    @Volatile var mirrorState: String =
        if (attributes.direction == CallAttributesCompat.DIRECTION_INCOMING) "ringing" else "dialing"
        private set
    /** The app's requests, in order: `answer 1`, `setActive`, `setInactive`, `disconnect 2`, `endpoint <name>`. */
    val mirrorRequests: MutableList<String> = CopyOnWriteArrayList<String>()
    /** Why the call ended, as the app or the system said; null while it lasts. */
    @Volatile var mirrorDisconnectCause: DisconnectCause? = null
        private set
    /** An error code the app's next requests are answered with, as Telecom refusing them; null: they succeed. */
    @Volatile var mirrorFailWith: Int? = null
    /** What a system callback threw, or that it overran its 5 s; the call was torn down and it was rethrown. */
    @Volatile var mirrorCallbackFailure: Throwable? = null
        private set

    private val current = MirrorStateFlow<CallEndpointCompat>(null)
    private val available = MirrorStateFlow<List<CallEndpointCompat>>(null)
    private val muted = MirrorStateFlow(false)

    override fun getCallId(): ParcelUuid = id

    override suspend fun setActive(): CallControlResult = request("setActive") { mirrorState = "active" }

    override suspend fun setInactive(): CallControlResult {
        if (attributes.callCapabilities and CallAttributesCompat.SUPPORTS_SET_INACTIVE == 0) {
            mirrorRequests.add("setInactive")
            return CallControlResult.Error(CallException.ERROR_CALL_DOES_NOT_SUPPORT_HOLD)
        }
        return request("setInactive") { mirrorState = "inactive" }
    }

    override suspend fun answer(callType: Int): CallControlResult = request("answer $callType") {
        if (mirrorState != "ringing") return CallControlResult.Error(CallException.ERROR_CALL_CANNOT_BE_SET_TO_ACTIVE)
        mirrorState = "active"
    }

    override suspend fun disconnect(disconnectCause: DisconnectCause): CallControlResult =
        request("disconnect ${disconnectCause.code}") { end(disconnectCause) }

    override suspend fun requestEndpointChange(endpoint: CallEndpointCompat): CallControlResult =
        request("endpoint ${endpoint.name}") {
            if (available.value?.contains(endpoint) != true) return CallControlResult.Error(CallException.ERROR_UNKNOWN)
            current.value = endpoint
        }

    override val currentCallEndpoint: Flow<CallEndpointCompat> get() = current
    override val availableEndpoints: Flow<List<CallEndpointCompat>> get() = available
    override val isMuted: Flow<Boolean> get() = muted

    private inline fun request(name: String, change: () -> Unit): CallControlResult {
        mirrorRequests.add(name)
        if (mirrorState == "disconnected") return CallControlResult.Error(CallException.ERROR_CALL_IS_NOT_BEING_TRACKED)
        mirrorFailWith?.let { return CallControlResult.Error(it) }
        change()
        return CallControlResult.Success()
    }

    private fun end(cause: DisconnectCause) {
        if (mirrorState == "disconnected") return
        mirrorState = "disconnected"
        mirrorDisconnectCause = cause
        ended.complete(Unit)
    }

    // The system's side (mirror-only): Telecom asks the app, within 5 s, then the call is in the state asked for.

    /** A system surface (a watch, a car) answers the ringing call as [callType]. */
    suspend fun mirrorAnswer(callType: Int = CallAttributesCompat.CALL_TYPE_AUDIO_CALL) =
        system { onAnswer(callType); becomes("active") }

    /** The system ends the call (a watch's hang-up, the system's own end). */
    suspend fun mirrorDisconnect(cause: DisconnectCause) = system { onDisconnect(cause); end(cause) }

    /** The system holds the call ("If a SIM call arrives and the user answers it, Telecom will invoke onSetInactive"). */
    suspend fun mirrorSetInactive() = system { onSetInactive(); becomes("inactive") }

    /** The system makes the call active again. */
    suspend fun mirrorSetActive() = system { onSetActive(); becomes("active") }

    /** The state the system asked for, unless the app ended the call while handling the request. */
    private fun becomes(state: String) {
        if (mirrorState != "disconnected") mirrorState = state
    }

    /** The platform moved the audio to [endpoint]. */
    fun mirrorEndpoint(endpoint: CallEndpointCompat) { current.value = endpoint }

    /** The endpoints the platform can route to changed. */
    fun mirrorAvailableEndpoints(endpoints: List<CallEndpointCompat>) { available.value = endpoints }

    /** The platform's mute changed. */
    fun mirrorMuted(isMuted: Boolean) { muted.value = isMuted }

    /**
     * Runs a callback of the app's as Telecom does: 5 s at most; a failure tears the call down and is rethrown, as the
     * library rethrows it in `addCall`'s caller ("Telecom will rethrow the Exception and tear down the call session").
     */
    private suspend fun system(callback: suspend () -> Unit) {
        if (mirrorState == "disconnected") return
        try {
            withTimeout(CALLBACK_TIMEOUT_MS) { callback() }
        } catch (failure: Throwable) {
            mirrorCallbackFailure = failure
            end(DisconnectCause(DisconnectCause.ERROR))
            throw failure
        }
    }

    private companion object {
        const val CALLBACK_TIMEOUT_MS = 5000L
    }
}

/**
 * A mirror-only flow holding one value, as the library's flows behave (`StateFlow`-like): a collector gets the value
 * there is, then each new one (a collector too slow for a burst gets the newest); no value before the first is set.
 */
class MirrorStateFlow<T>(initial: T?) : Flow<T> {
    private val collectors = CopyOnWriteArrayList<Channel<T>>()

    /** The latest value; null before the first. */
    @Volatile var value: T? = initial
        set(newValue) {
            field = newValue
            if (newValue != null) for (collector in collectors) collector.offer(newValue)
        }

    override suspend fun collect(collector: FlowCollector<T>) {
        val channel = Channel<T>(Channel.CONFLATED)
        collectors.add(channel)
        try {
            value?.let { channel.offer(it) }
            for (item in channel) collector.emit(item)
        } finally {
            collectors.remove(channel)
        }
    }
}
