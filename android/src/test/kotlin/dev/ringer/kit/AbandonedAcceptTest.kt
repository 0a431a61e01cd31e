package dev.ringer.kit

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Job
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.IOException
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.coroutines.Continuation
import kotlin.coroutines.resume
import kotlin.coroutines.suspendCoroutine

/**
 * An accept attempt that nobody waits for any more (its limit passed, or the coordinator's scope was cancelled) may
 * still fail afterwards, and that failure must go nowhere: not to the thread's uncaught-exception handler, which on
 * Android kills the app. kotlinx-coroutines 1.0 hands it there when it reaches a cancelled waiter as an exception (its
 * `AbstractContinuation.resumeImpl` "reports racy exceptions"), which is how the React Native package's offline tests
 * printed `Exception in thread "DefaultDispatcher-worker-2" RingerApiException(TRANSPORT: …/accept …)`.
 */
class AbandonedAcceptTest {
    private val start = CoordinatorHarness.START_MS
    private val callId = CoordinatorHarness.newCallId()

    @Test
    fun anAcceptFailingAfterItsCoordinatorWasStoppedNeverReachesTheUncaughtHandler() {
        val phone = CoordinatorHarness()
        val transport = StallingTransport(phone.server)
        val uncaught = uncaughtDuring {
            phone.coordinator.connect(RingerApiClient("http://ringer.test", FakeRingerServer.userToken("bob"), transport))
            ringing(phone)
            phone.answer(callId)
            assertTrue("the accept is on its way", transport.isStalled)
            // The app stops the SDK (its process ends, a test finishes) while the accept is out...
            phone.scope.coroutineContext[Job]!!.cancel()
            // ...and the request, which does not notice cancellation, fails only now.
            transport.fail()
        }
        assertEquals("uncaught: $uncaught", emptyList<Throwable>(), uncaught)
    }

    @Test
    fun anAcceptFailingAfterItsAttemptTimedOutNeverReachesTheUncaughtHandlerAndTheNextOneConnects() {
        val phone = CoordinatorHarness()
        val transport = StallingTransport(phone.server)
        val uncaught = uncaughtDuring {
            phone.coordinator.connect(RingerApiClient("http://ringer.test", FakeRingerServer.userToken("bob"), transport))
            ringing(phone)
            phone.clock.advanceTo(start + 1_000)
            val answered = phone.answer(callId)
            // The attempt limit passes: the attempt is abandoned and the next waits out its backoff (at most 2 s).
            phone.clock.advanceTo(start + 1_000 + CallCoordinator.ACCEPT_ATTEMPT_LIMIT_MS)
            transport.fail()
            phone.clock.advanceTo(start + 1_000 + CallCoordinator.ACCEPT_ATTEMPT_LIMIT_MS + 2_000)
            assertEquals(true, answered())
        }
        assertEquals("uncaught: $uncaught", emptyList<Throwable>(), uncaught)
        assertEquals(listOf(callId), phone.ui.answered)
        assertEquals("the abandoned attempt never reached the server", 1, phone.server.count("POST /v1/calls/$callId/accept"))
    }

    @Test
    fun anAcceptWhoseTransportThrowsACancellationOfItsOwnIsSentAgain() {
        val phone = CoordinatorHarness()
        var thrown = 0
        // An app's transport with a `withTimeout` inside throws TimeoutCancellationException, a CancellationException,
        // while the accept's own coroutine is still active.
        val transport = object : HttpTransport {
            override suspend fun send(method: String, url: String, headers: Map<String, String>, body: ByteArray?): HttpResponse {
                if (url.endsWith("/accept") && thrown++ == 0) throw CancellationException("timed out inside the transport")
                return phone.server.send(method, url, headers, body)
            }
        }
        phone.coordinator.connect(RingerApiClient("http://ringer.test", FakeRingerServer.userToken("bob"), transport))
        ringing(phone)
        phone.clock.advanceTo(start + 1_000)
        val answered = phone.answer(callId)
        phone.clock.advanceTo(start + 1_000 + 2_000)
        assertEquals("answered after the second attempt", true, answered())
        assertEquals(2, thrown)
        assertEquals(listOf(callId), phone.ui.answered)
    }

    private fun ringing(phone: CoordinatorHarness) {
        phone.server.ring(callId)
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.RINGING),
                     phone.coordinator.handleDataMessage(phone.ringing(callId)))
    }
}

/**
 * [server] behind a transport whose first accept ignores cancellation, as a blocking client or one with no cancel hook
 * does: it waits until [fail], then throws as a phone without a network does, whatever became of its coroutine.
 */
private class StallingTransport(private val server: FakeRingerServer) : HttpTransport {
    private val lock = Any()
    private var stallNext = true
    private var stalled: Continuation<Unit>? = null

    /** Whether the first accept is waiting for [fail]. */
    val isStalled: Boolean get() = synchronized(lock) { stalled != null }

    /** Lets the stalled accept fail. */
    fun fail() {
        val waiting = synchronized(lock) { stalled.also { stalled = null } }
        checkNotNull(waiting) { "no accept is stalled" }.resume(Unit)
    }

    override suspend fun send(method: String, url: String, headers: Map<String, String>, body: ByteArray?): HttpResponse {
        val stall = url.endsWith("/accept") && synchronized(lock) { stallNext.also { stallNext = false } }
        if (!stall) return server.send(method, url, headers, body)
        // A plain continuation: cancelling the coroutine does not resume it.
        suspendCoroutine<Unit> { continuation -> synchronized(lock) { stalled = continuation } }
        throw IOException("no network in this test")
    }
}

/**
 * What reached an uncaught-exception handler while [block] ran: this thread's own (where the harness's coroutines run,
 * and where kotlinx-coroutines reports), or the process's default (any other thread).
 */
private fun uncaughtDuring(block: () -> Unit): List<Throwable> {
    val caught = CopyOnWriteArrayList<Throwable>()
    val probe = Thread.UncaughtExceptionHandler { _, e -> caught.add(e) }
    val thread = Thread.currentThread()
    val own = thread.uncaughtExceptionHandler.takeIf { it !== thread.threadGroup }
    val default = Thread.getDefaultUncaughtExceptionHandler()
    thread.uncaughtExceptionHandler = probe
    Thread.setDefaultUncaughtExceptionHandler(probe)
    try {
        block()
    } finally {
        thread.uncaughtExceptionHandler = own
        Thread.setDefaultUncaughtExceptionHandler(default)
    }
    return caught.toList()
}
