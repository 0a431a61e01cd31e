package dev.ringer.kit

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * An answered call stays alive on the server while the event stream is down: a keepalive every 40 s on the
 * injected clock, none while the stream is connected, and a refusal closes the call with the server's reason.
 */
class CallCoordinatorKeepaliveTest {
    private fun answeredCall(phone: CoordinatorHarness): String {
        val callId = CoordinatorHarness.newCallId()
        phone.server.ring(callId)
        phone.coordinator.handleDataMessage(phone.ringing(callId))
        assertEquals(true, phone.answer(callId)())
        return callId
    }

    @Test
    fun keepalivesGoEveryFortySecondsOnlyWhileTheStreamIsDown() {
        val phone = CoordinatorHarness().connect()
        phone.coordinator.eventStreamStatusChanged(EventStream.Status.Connected)
        val callId = answeredCall(phone)
        val keepalive = "POST /v1/calls/$callId/keepalive"
        phone.clock.advance(40_000)
        assertEquals("the stream carries the app's presence", 0, phone.server.count(keepalive))

        phone.coordinator.eventStreamStatusChanged(EventStream.Status.Lost(250))
        phone.clock.advance(39_000)
        assertEquals(0, phone.server.count(keepalive))
        phone.clock.advance(1_000)
        assertEquals("rounds count from the answer", 1, phone.server.count(keepalive))
        phone.clock.advance(40_000)
        assertEquals(2, phone.server.count(keepalive))

        phone.coordinator.eventStreamStatusChanged(EventStream.Status.Restored)
        phone.clock.advance(80_000)
        assertEquals(2, phone.server.count(keepalive))
        assertTrue(phone.ui.ended.isEmpty())
    }

    @Test
    fun aKeepaliveWithoutAnAnswerIsTriedAgainNextRound() {
        val phone = CoordinatorHarness().connect()
        val callId = answeredCall(phone)
        val keepalive = "POST /v1/calls/$callId/keepalive"
        phone.server.fail(keepalive, null)
        phone.server.fail(keepalive, 503)
        phone.clock.advance(120_000)
        assertEquals(3, phone.server.count(keepalive))
        assertTrue(phone.ui.ended.isEmpty())
    }

    @Test
    fun aRefusedKeepaliveClosesTheCallWithTheServersReasonAndStopsTheLoop() {
        val phone = CoordinatorHarness().connect()
        val callId = answeredCall(phone)
        phone.server.update(callId) { it.copy(state = CallState.ENDED, endReason = SystemEndReason.CONNECTION_LOST) }
        phone.clock.advance(40_000)
        assertEquals(listOf(callId to CallEndReason.FAILED), phone.ui.ended)
        assertEquals(1, phone.server.count("GET /v1/calls/$callId"))
        phone.clock.advance(200_000)
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/keepalive"))
    }

    @Test
    fun theLoopStopsWhenTheCallEndsHere() {
        val phone = CoordinatorHarness().connect()
        val callId = answeredCall(phone)
        phone.coordinator.end(callId) { }
        phone.clock.advance(200_000)
        assertEquals(0, phone.server.count("POST /v1/calls/$callId/keepalive"))
        assertEquals(1, phone.server.count("POST /v1/calls/$callId/end"))
    }

    @Test
    fun aShorterIntervalIsHonoured() {
        val phone = CoordinatorHarness(keepaliveIntervalMs = 10_000).connect()
        val callId = answeredCall(phone)
        phone.clock.advance(30_000)
        assertEquals(3, phone.server.count("POST /v1/calls/$callId/keepalive"))
    }
}
