package dev.ringer.kit

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test
import java.io.File

/**
 * Hang-ups reach the server even when it fails, the app is not logged in yet, or the process dies first
 * (ported from RingerKit's DurableHangUpTests, ServerErrorHangUpTests, EndAllCallsTests and LostRaceTests).
 */
class CallCoordinatorHangUpTest {
    private fun ringingPhone(phone: CoordinatorHarness, callId: String) {
        phone.server.ring(callId)
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.RINGING),
                     phone.coordinator.handleDataMessage(phone.ringing(callId)))
    }

    @Test
    fun aDeclineIsStoredSentAndLeavesTheStoreOnceAcknowledged() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        ringingPhone(phone, callId)
        var completed: Boolean? = null
        phone.coordinator.end(callId) { completed = it }
        assertEquals(true, completed)
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/decline"))
        assertEquals(CallState.DECLINED, phone.server.call(callId)?.state)
        assertTrue(phone.pendingActions.load().isEmpty())
        phone.connect()   // a reconnect must not resend it
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/decline"))
        assertTrue("the local user's end is no remote ending", phone.ui.ended.isEmpty())
    }

    /** A reconnect while the hang-up is on its way must not send it a second time. */
    @Test
    fun aReconnectWhileTheDeclineIsInFlightDoesNotSendItTwice() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        ringingPhone(phone, callId)
        val decline = "POST /v1/calls/$callId/decline"
        phone.server.hold(decline)
        phone.coordinator.end(callId) { }
        assertTrue(phone.server.isHeld(decline))
        phone.connect()
        phone.server.release(decline)
        assertEquals(1, phone.server.count(decline))
        assertTrue(phone.pendingActions.load().isEmpty())
    }

    /**
     * A 5xx is no acknowledgement: the decline keeps being sent, past the eight attempts that once ended the
     * retries, until the server acknowledges it.
     */
    @Test
    fun aDeclineAnsweredWithServerErrorsKeepsBeingSentUntilTheServerAcknowledgesIt() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        ringingPhone(phone, callId)
        val decline = "POST /v1/calls/$callId/decline"
        phone.server.fail(decline, 503, times = 10)
        phone.coordinator.end(callId) { }
        assertEquals(listOf(PendingCallAction.Kind.DECLINE), phone.pendingActions.load().map { it.kind })
        phone.clock.advance(120_000)
        assertEquals("ten 503s, then the acknowledgement", 11, phone.server.count(decline))
        assertEquals(CallState.DECLINED, phone.server.call(callId)?.state)
        assertTrue(phone.pendingActions.load().isEmpty())
    }

    /** RFC 9110 §15.5.9, RFC 6585 §4: a 408 or 429 says the decline was not processed, so it is sent again. */
    @Test
    fun aDeclineAnsweredRequestTimeoutOrTooManyRequestsIsSentAgain() {
        for (status in listOf(408, 429)) {
            val phone = CoordinatorHarness().connect()
            val callId = CoordinatorHarness.newCallId()
            ringingPhone(phone, callId)
            val decline = "POST /v1/calls/$callId/decline"
            phone.server.fail(decline, status)
            phone.coordinator.end(callId) { }
            phone.clock.advance(10_000)
            assertEquals("$status", 2, phone.server.count(decline))
            assertEquals("$status", CallState.DECLINED, phone.server.call(callId)?.state)
            assertTrue("$status", phone.pendingActions.load().isEmpty())
        }
    }

    /**
     * Ten minutes after the user acted the server has ended the call itself (ring deadline, idle timeout): a decline
     * the network never let through is dropped then, rather than sent forever or kept for every later launch.
     */
    @Test
    fun aHangUpUnacknowledgedForTenMinutesIsDropped() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        ringingPhone(phone, callId)
        val endedAt = phone.clock.now()
        phone.server.outage(endedAt, endedAt + 3_600_000)
        phone.coordinator.end(callId) { }
        phone.clock.advanceTo(endedAt + CallCoordinator.HANG_UP_LIFETIME_MS - 1)
        assertEquals("still kept just before ten minutes", listOf(callId), phone.pendingActions.load().map { it.callId })
        phone.clock.advanceTo(endedAt + CallCoordinator.HANG_UP_LIFETIME_MS + 10_000)
        assertTrue(phone.pendingActions.load().isEmpty())
        assertEquals("no retry is left sleeping", 0, phone.clock.sleeping)

        // One stored by a process that died more than ten minutes ago is dropped at connect, unsent.
        val store = InMemoryPendingActionStore()
        val stale = CoordinatorHarness.newCallId()
        store.save(listOf(PendingCallAction(PendingCallAction.Kind.DECLINE, stale, CoordinatorHarness.DEVICE,
                                            CoordinatorHarness.START_MS - CallCoordinator.HANG_UP_LIFETIME_MS)))
        val relaunched = CoordinatorHarness(pendingActions = store)
        relaunched.server.ring(stale)
        relaunched.connect()
        assertEquals(0, relaunched.server.count("POST /v1/calls/$stale/decline"))
        assertTrue(store.load().isEmpty())
    }

    /** Declined on the lock screen of a just-woken app that never logged in; a new process sends it. */
    @Test
    fun aDeclineMadeBeforeConnectSurvivesAProcessRestartInTheFileStore() {
        val file = File.createTempFile("ringer-actions", ".json")
        file.delete()
        try {
            val clock = ManualClock(CoordinatorHarness.START_MS)
            val server = FakeRingerServer(clock)
            val callId = CoordinatorHarness.newCallId()
            val first = CoordinatorHarness(clock, server, FilePendingActionStore(file))
            ringingPhone(first, callId)
            first.coordinator.end(callId) { }
            assertTrue("nothing is sent before login", server.requests.isEmpty())
            assertTrue(file.exists())
            first.scope.coroutineContext[kotlinx.coroutines.Job]?.cancel()   // the process dies

            val second = CoordinatorHarness(clock, server, FilePendingActionStore(file))
            assertEquals(listOf(PendingCallAction.Kind.DECLINE), second.pendingActions.load().map { it.kind })
            second.connect()
            assertEquals(1, server.count("POST /v1/calls/$callId/decline"))
            assertEquals(CallState.DECLINED, server.call(callId)?.state)
            assertTrue(FilePendingActionStore(file).load().isEmpty())
        } finally {
            file.delete()
        }
    }

    /** The accept reached the server first: a decline refused as a state conflict with `accepted` becomes an end. */
    @Test
    fun aDeclineRefusedBecauseThisDevicesAnswerArrivedFirstEndsTheCall() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        ringingPhone(phone, callId)
        // This device's accept reached the server, but its answer never came back; the user then declines.
        phone.server.update(callId) { it.copy(state = CallState.ACCEPTED, acceptedDeviceId = CoordinatorHarness.DEVICE) }
        phone.coordinator.end(callId) { }
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/decline"))
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/end"))
        assertEquals("not left accepted (the user would look busy)", CallState.ENDED, phone.server.call(callId)?.state)
        assertTrue(phone.pendingActions.load().isEmpty())
    }

    /** `answered-elsewhere` also carries `accepted`, but ending would hang up the call the user took on another device. */
    @Test
    fun aDeclineThatLostToAnotherDevicesAnswerIsNotTurnedIntoAnEnd() {
        val phone = CoordinatorHarness().connect()
        val callId = CoordinatorHarness.newCallId()
        ringingPhone(phone, callId)
        phone.server.refuse("POST /v1/calls/$callId/decline",
                            Problem(ProblemType.ANSWERED_ELSEWHERE.rawValue, "Conflict", 409, "lost", CallState.ACCEPTED))
        phone.coordinator.end(callId) { }
        assertEquals(0, phone.server.count("POST /v1/calls/$callId/end"))
        assertTrue("a 4xx is an answer: nothing to resend", phone.pendingActions.load().isEmpty())
    }

    @Test
    fun endAllCallsHangsUpEveryLiveCallOnceAndLeavesEndedOnesAlone() {
        val phone = CoordinatorHarness().connect()
        val ringing = CoordinatorHarness.newCallId()
        val answered = CoordinatorHarness.newCallId()
        val over = CoordinatorHarness.newCallId()
        for (id in listOf(ringing, answered, over)) ringingPhone(phone, id)
        assertEquals(true, phone.answer(answered)())
        phone.coordinator.handleDataMessage(phone.update(EventType.CALL_CANCELLED, over))
        phone.coordinator.endAllCalls()
        phone.coordinator.endAllCalls()
        assertEquals(1, phone.server.count("POST /v1/calls/$ringing/decline"))
        assertEquals(1, phone.server.count("POST /v1/calls/$answered/end"))
        assertTrue(phone.server.requests.none { it.startsWith("POST /v1/calls/$over/") && !it.endsWith("/ringing") })
        // Audio is inactive after a reset: a later call's media waits for a new activation.
        assertTrue(phone.pendingActions.load().isEmpty())
    }

    @Test
    fun aCancelOfAnOutgoingCallTheCalleeAnsweredMeanwhileBecomesAnEnd() {
        val phone = CoordinatorHarness().connect()
        val call = runBlockingUnconfined { phone.coordinator.startCall("alice") }
        phone.server.update(call.callId) { it.copy(state = CallState.ACCEPTED, acceptedDeviceId = "alice-phone") }
        phone.coordinator.end(call.callId) { }
        assertEquals(1, phone.server.count("POST /v1/calls/${call.callId}/cancel"))
        assertEquals(1, phone.server.count("POST /v1/calls/${call.callId}/end"))
        assertEquals(CallState.ENDED, phone.server.call(call.callId)?.state)
    }

    /** Plays another thread running between a settle's load and save, deterministically. */
    private class InterleavingStore : PendingActionStore {
        private val inner = InMemoryPendingActionStore()
        @Volatile var betweenLoadAndSave: (() -> Unit)? = null
        override fun load(): List<PendingCallAction> {
            val read = inner.load()
            val hook = betweenLoadAndSave
            betweenLoadAndSave = null
            hook?.invoke()
            return read
        }
        override fun save(actions: List<PendingCallAction>) = inner.save(actions)
    }

    @Test
    fun aDeclineStoredWhileAnotherHangUpIsAcknowledgedStaysStored() {
        val store = InterleavingStore()
        val phone = CoordinatorHarness(pendingActions = store).connect()
        val first = CoordinatorHarness.newCallId()
        val second = CoordinatorHarness.newCallId()
        for (id in listOf(first, second)) {
            phone.server.ring(id)
            phone.coordinator.handleDataMessage(phone.ringing(id))
        }
        phone.server.hold("POST /v1/calls/$first/decline")
        phone.server.hold("POST /v1/calls/$second/decline")
        phone.coordinator.end(first) { }
        // While the first decline's acknowledgement is being settled, the user declines the second call (on
        // another thread: it waits for the settle instead of being overwritten by it).
        val other = Thread { phone.coordinator.end(second) { } }
        store.betweenLoadAndSave = { other.start(); Thread.sleep(100) }
        phone.server.release("POST /v1/calls/$first/decline")
        other.join(5_000)
        assertTrue("the second decline is still unacknowledged", phone.server.isHeld("POST /v1/calls/$second/decline"))
        assertEquals("the unacknowledged decline survives process death", listOf(second), store.load().map { it.callId })
    }
}
