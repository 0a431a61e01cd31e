package dev.ringer.kit

import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * The phone never loses an answer (issue 27, item 1) nor a hang-up to a short outage, an answer survives the process
 * (item 2), and every way of answering reaches the call UI (item 3). Ported from RingerKit's NeverLostAnswerTests, on
 * the harness's manual clock: each `advance` runs every timer and retry due by then. The push rings for 30 s from
 * [CoordinatorHarness.START_MS], so the device's own deadline is 32 s after it.
 */
class NeverLostAnswerTest {
    private val start = CoordinatorHarness.START_MS
    private val callId = CoordinatorHarness.newCallId()

    private fun ringing(phone: CoordinatorHarness) {
        phone.server.ring(callId)
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.RINGING),
                     phone.coordinator.handleDataMessage(phone.ringing(callId)))
    }

    @Test
    fun anAnswerGivenAsTheNetworkDropsForThreeSecondsConnectsWhenItReturns() {
        val phone = CoordinatorHarness().connect()
        ringing(phone)
        phone.server.outage(start + 1_000, start + 4_000)
        phone.clock.advanceTo(start + 1_000)
        val answered = phone.answer(callId)
        phone.clock.advanceTo(start + 3_999)
        assertNull("still answering while the network is down", answered())
        // Connected within the answer backoff's two-second ceiling of the network's return, never ended meanwhile.
        phone.clock.advanceTo(start + 4_000 + 2_000)
        assertEquals(true, answered())
        assertTrue(phone.ui.ended.isEmpty())
        assertEquals(listOf(callId), phone.ui.answered)
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/accept"))
        assertEquals(CallState.ACCEPTED, phone.server.call(callId)?.state)
    }

    @Test
    fun anAnswerNeverDeliveredEndsAnswerNotDeliveredAtTheDeadlineAndDeclines() {
        val phone = CoordinatorHarness().connect()
        ringing(phone)
        phone.server.outage(start + 1_000, start + 60_000)
        phone.clock.advanceTo(start + 1_500)
        val answered = phone.answer(callId)
        phone.clock.advanceTo(start + 31_999)
        assertNull("kept until the ring deadline and its grace", answered())
        assertTrue(phone.ui.ended.isEmpty())
        phone.clock.advanceTo(start + 32_000)
        assertEquals(false, answered())
        assertEquals(listOf(callId to CallEndReason.ANSWER_NOT_DELIVERED), phone.ui.ended)
        assertTrue(phone.observations.all.contains(CallCoordinator.Observation.Ended(callId, CallEndReason.ANSWER_NOT_DELIVERED)))
        assertEquals(listOf(PendingCallAction.Kind.DECLINE), phone.pendingActions.load().map { it.kind })
        // The decline reaches the server once the network is back; the accept never did.
        phone.clock.advanceTo(start + 70_000)
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/decline"))
        assertTrue(phone.pendingActions.load().isEmpty())
        assertEquals(0, phone.server.count("POST /v1/calls/$callId/accept"))
        assertEquals(CallState.DECLINED, phone.server.call(callId)?.state)
    }

    @Test
    fun anUnconfirmedAnswerSurvivesTheProcessAndConnectsAfterTheRelaunch() {
        val clock = ManualClock(start)
        val server = FakeRingerServer(clock)
        val memory = InMemoryCallMemoryStore()
        server.outage(start, start + 5_000)
        val first = CoordinatorHarness(clock, server, callMemory = memory).connect()
        ringing(first)
        first.coordinator.answer(callId) { }
        assertEquals("stored before the accept is sent", setOf(callId), memory.load().unconfirmedAnswers.keys)

        // The process dies; the relaunched app finds the network back.
        first.scope.coroutineContext[kotlinx.coroutines.Job]?.cancel()
        clock.advanceTo(start + 5_000)
        val second = CoordinatorHarness(clock, server, callMemory = memory)
        assertEquals("shown again", listOf(callId), second.ui.reports.map { it.callId })
        second.connect()
        assertEquals(listOf(callId), second.ui.answered)
        assertEquals(1, server.count("POST /v1/calls/$callId/accept"))
        assertEquals("not acknowledged as ringing again", 0, server.count("POST /v1/calls/$callId/ringing"))
        assertTrue(memory.load().unconfirmedAnswers.isEmpty())
        assertEquals(CallState.ACCEPTED, server.call(callId)?.state)
    }

    @Test
    fun aLatePushAfterARelaunchForACallThatEndedBeforeItsPushDoesNotRing() {
        val clock = ManualClock(start)
        val server = FakeRingerServer(clock)
        val memory = InMemoryCallMemoryStore()
        val first = CoordinatorHarness(clock, server, callMemory = memory).connect()
        assertEquals(DataMessageOutcome.Update(callId, EventType.CALL_CANCELLED),
                     first.coordinator.handleDataMessage(first.update(EventType.CALL_CANCELLED, callId)))
        first.scope.coroutineContext[kotlinx.coroutines.Job]?.cancel()

        val second = CoordinatorHarness(clock, server, callMemory = memory).connect()
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.ALREADY_ENDED),
                     second.coordinator.handleDataMessage(second.ringing(callId)))
        assertTrue("nothing rings", second.ui.reports.isEmpty())
    }

    @Test
    fun answeringThroughTheCoordinatorShowsTheCallAnsweredOnTheNativeUiOnce() {
        val phone = CoordinatorHarness().connect()
        ringing(phone)
        assertEquals(true, phone.answer(callId)())
        assertEquals(listOf(callId), phone.ui.answered)
        // Telecom's own answer that follows (the user also tapped the system's answer button) completes at once.
        assertEquals(true, phone.answer(callId)())
        assertEquals(listOf(callId), phone.ui.answered)
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/accept"))
    }

    @Test
    fun aDeclineMadeDuringAMinuteLongOutageReachesTheServerWhenItReturns() {
        val phone = CoordinatorHarness().connect()
        ringing(phone)
        phone.server.outage(start + 1_000, start + 61_000)
        phone.clock.advanceTo(start + 1_500)
        phone.coordinator.end(callId) { }
        // Eight attempts with an 8-second cap span about twenty seconds; the decline outlives them.
        phone.clock.advanceTo(start + 60_999)
        assertEquals(listOf(callId), phone.pendingActions.load().map { it.callId })
        phone.clock.advanceTo(start + 70_000)
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/decline"))
        assertTrue(phone.pendingActions.load().isEmpty())
        assertEquals(CallState.DECLINED, phone.server.call(callId)?.state)
    }

    @Test
    fun aCancelMadeDuringAMinuteLongOutageReachesTheServerWhenItReturns() {
        val phone = CoordinatorHarness().connect()
        val call = runBlockingUnconfined { phone.coordinator.startCall("alice") }
        phone.server.outage(start + 1_000, start + 61_000)
        phone.clock.advanceTo(start + 1_500)
        phone.coordinator.end(call.callId) { }
        phone.clock.advanceTo(start + 60_999)
        assertEquals(listOf(PendingCallAction.Kind.CANCEL), phone.pendingActions.load().map { it.kind })
        phone.clock.advanceTo(start + 70_000)
        assertEquals(1, phone.server.count("POST /v1/calls/${call.callId}/cancel"))
        assertTrue(phone.pendingActions.load().isEmpty())
        assertEquals(CallState.CANCELLED, phone.server.call(call.callId)?.state)
    }

    @Test
    fun anEndMadeDuringAMinuteLongOutageReachesTheServerWhenItReturns() {
        val phone = CoordinatorHarness().connect()
        ringing(phone)
        assertEquals(true, phone.answer(callId)())
        phone.server.outage(start + 1_000, start + 61_000)
        phone.clock.advanceTo(start + 1_500)
        phone.coordinator.end(callId) { }
        phone.clock.advanceTo(start + 60_999)
        assertEquals(listOf(PendingCallAction.Kind.END), phone.pendingActions.load().map { it.kind })
        phone.clock.advanceTo(start + 70_000)
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/end"))
        assertTrue(phone.pendingActions.load().isEmpty())
        assertEquals(CallState.ENDED, phone.server.call(callId)?.state)
    }

    /** Two ways of answering one call (the app's screen, then Telecom's onAnswer) wait for one accept, and complete together. */
    @Test
    fun aSecondAnswerWhileTheFirstIsUnconfirmedWaitsForTheSameAccept() {
        val phone = CoordinatorHarness().connect()
        ringing(phone)
        phone.server.hold("POST /v1/calls/$callId/accept")
        val first = phone.answer(callId)
        val second = phone.answer(callId)
        assertNull(first())
        assertNull(second())
        phone.server.release("POST /v1/calls/$callId/accept")
        assertEquals(true, first())
        assertEquals(true, second())
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/accept"))
        assertEquals(listOf(callId), phone.ui.answered)
    }

    /** A refusal that names no call state (the call is unknown to the server) ends the call `failed` at once. */
    @Test
    fun anAcceptRefusedWithoutACallStateEndsTheCallFailedWithoutRetrying() {
        val phone = CoordinatorHarness().connect()
        ringing(phone)
        phone.server.refuse("POST /v1/calls/$callId/accept", Problem(ProblemType.CALL_NOT_FOUND.rawValue, "Not Found", 404))
        assertEquals(false, phone.answer(callId)())
        assertEquals(listOf(callId to CallEndReason.FAILED), phone.ui.ended)
        phone.clock.advance(10_000)
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/accept"))
    }

    /**
     * A ringing acknowledgement whose every try the server could not answer (5xx, 408, 429) says nothing about the
     * call: it rings on to its deadline instead of ending `failed`.
     */
    @Test
    fun aRingingAcknowledgementTheServerCouldNotAnswerLeavesTheCallRinging() {
        for (status in listOf(503, 429, 408)) {
            val phone = CoordinatorHarness().connect()
            phone.server.fail("POST /v1/calls/$callId/ringing", status, times = 3)
            ringing(phone)
            phone.clock.advance(5_000)
            assertEquals("$status", 3, phone.server.count("POST /v1/calls/$callId/ringing"))
            assertTrue("$status", phone.ui.ended.isEmpty())
        }
    }

    /** RFC 6585 §4: a 429 says the accept was not processed; it is sent again, not taken as a refusal. */
    @Test
    fun anAcceptAnsweredTooManyRequestsIsSentAgain() {
        val phone = CoordinatorHarness().connect()
        ringing(phone)
        phone.server.fail("POST /v1/calls/$callId/accept", 429)
        val answered = phone.answer(callId)
        phone.clock.advance(1_000)
        assertEquals(true, answered())
        assertEquals(2, phone.server.count("POST /v1/calls/$callId/accept"))
        assertTrue(phone.ui.ended.isEmpty())
    }

    /** After a logout the accept is never sent with anyone's credentials: the unconfirmed answer's call ends `failed`. */
    @Test
    fun aLogoutWhileAnsweringEndsTheCallFailedAndStopsTheAccept() {
        val phone = CoordinatorHarness().connect()
        ringing(phone)
        phone.server.outage(start, start + 10_000)
        val answered = phone.answer(callId)
        phone.coordinator.connect(null)
        assertEquals(false, answered())
        assertEquals(listOf(callId to CallEndReason.FAILED), phone.ui.ended)
        phone.clock.advance(20_000)
        assertEquals(0, phone.server.count("POST /v1/calls/$callId/accept"))
    }

    /**
     * An accept caught in a connection that died with the network gets no answer until OkHttp's own timeout; it is
     * abandoned after [CallCoordinator.ACCEPT_ATTEMPT_LIMIT_MS] and sent again, so the call connects while it still
     * rings.
     */
    @Test
    fun anAcceptCaughtInADroppedConnectionIsSentAgainAfterTheAttemptLimit() {
        val phone = CoordinatorHarness().connect()
        ringing(phone)
        phone.server.hold("POST /v1/calls/$callId/accept")
        phone.clock.advanceTo(start + 1_000)
        val answered = phone.answer(callId)
        phone.clock.advanceTo(start + 1_000 + CallCoordinator.ACCEPT_ATTEMPT_LIMIT_MS - 1)
        assertNull("the first accept is still out", answered())
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/accept"))
        phone.clock.advanceTo(start + 1_000 + CallCoordinator.ACCEPT_ATTEMPT_LIMIT_MS + 2_000)
        assertEquals(true, answered())
        assertEquals(2, phone.server.count("POST /v1/calls/$callId/accept"))
        assertEquals(CallState.ACCEPTED, phone.server.call(callId)?.state)
    }
}
