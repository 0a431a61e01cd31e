package dev.ringer.kit

import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.launch
import java.util.UUID

/**
 * Runs every coroutine step at once on the thread that started or resumed it, so a test reads the outcome right
 * after the call that caused it (kotlinx-coroutines 1.0's `Dispatchers.Unconfined` is still experimental).
 */
object ImmediateDispatcher : CoroutineDispatcher() {
    override fun dispatch(context: kotlin.coroutines.CoroutineContext, block: Runnable) = block.run()
}

/**
 * One phone (device `bob-android`) with a coordinator on a [ManualClock] and an unconfined scope, its call UI,
 * and a [FakeRingerServer]. Unless told otherwise the phone's clock agrees with the server's (an offset of 0
 * learned earlier this boot) and nobody is connected yet.
 */
class CoordinatorHarness(
    val clock: ManualClock = ManualClock(START_MS),
    val server: FakeRingerServer = FakeRingerServer(clock),
    val pendingActions: PendingActionStore = InMemoryPendingActionStore(),
    clockOffsetMs: Long? = 0,
    val callMemory: CallMemoryStore = InMemoryCallMemoryStore(),
    keepaliveIntervalMs: Long = CallCoordinator.DEFAULT_KEEPALIVE_INTERVAL_MS
) {
    val ui = FakeCallUi()
    val observations = Observations()
    val clockOffsets = InMemoryClockOffsetStore(clockOffsetMs?.let { StoredClockOffset(it, BOOT_MS) })
    val scope = CoroutineScope(ImmediateDispatcher + SupervisorJob())
    val coordinator = CallCoordinator(DEVICE, ui, scope, { clock.now() }, { clock.sleepUntil(it) }, { 0.5 },
                                      pendingActions, clockOffsets, callMemory, { BOOT_MS }, keepaliveIntervalMs,
                                      { observations.add(it) })

    /** An API client for [user] on the fake server. */
    fun api(user: String = "bob"): RingerApiClient =
        RingerApiClient("http://ringer.test", FakeRingerServer.userToken(user), server)

    /** Logs [user] in. */
    fun connect(user: String = "bob"): CoordinatorHarness {
        coordinator.connect(api(user))
        return this
    }

    /** The FCM data map the server sends for a ringing call: `ringer` is the VoIP push's body as a JSON string. */
    fun ringing(callId: String, expiresInMs: Long = 30_000, callee: String? = "bob"): Map<String, String> {
        val now = clock.now()
        val body = RingerPushBody(callId, Party("alice", "Alice"), callee, true, now, now + expiresInMs)
        return mapOf("ringer" to body.toJson().toString())
    }

    /** The FCM data map of a message that a call changed. */
    fun update(type: EventType, callId: String): Map<String, String> =
        mapOf("ringer" to AlertOrBackgroundPush.Body(type, callId).toJson().toString())

    /** A stream event for the server's call as it is now. */
    fun event(type: EventType, callId: String, seq: Long = 1): CallEvent = CallEvent(seq, type, server.call(callId)!!)

    /** The answer's completion, recorded: null until it is called. */
    fun answer(callId: String): () -> Boolean? {
        val lock = Any()
        var result: Boolean? = null
        coordinator.answer(callId) { fulfilled -> synchronized(lock) { result = fulfilled } }
        return { synchronized(lock) { result } }
    }

    companion object {
        const val START_MS = 1_800_000_000_000L
        const val BOOT_MS = 1_799_990_000_000L
        const val DEVICE = "bob-android"

        fun newCallId(): String = UUID.randomUUID().toString()
    }
}

/** Runs [block] to completion on this thread (it must not wait for the manual clock). */
fun <T> runBlockingUnconfined(block: suspend () -> T): T = kotlinx.coroutines.runBlocking { block() }

/** Starts [block] on an unconfined coroutine of its own: it runs until it first waits, then the test goes on. */
fun launchUnconfined(block: suspend () -> Unit): kotlinx.coroutines.Job =
    kotlinx.coroutines.CoroutineScope(ImmediateDispatcher).launch { block() }
