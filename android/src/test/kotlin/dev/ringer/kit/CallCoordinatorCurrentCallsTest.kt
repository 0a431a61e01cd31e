package dev.ringer.kit

import org.junit.Assert.assertEquals
import org.junit.Test

/** `currentCalls()`: the calls not ended, first deadline first, as a snapshot (the React Native package's getCalls). */
class CallCoordinatorCurrentCallsTest {
    @Test
    fun theCallsRingingOrUpAreListedAndAnEndedOneIsNot() {
        val phone = CoordinatorHarness().connect()
        assertEquals(listOf<PhoneCallMachine.PhoneCall>(), phone.coordinator.currentCalls())
        val later = CoordinatorHarness.newCallId()
        val sooner = CoordinatorHarness.newCallId()
        phone.server.ring(later, ringMs = 40_000)
        phone.coordinator.handleDataMessage(phone.ringing(later, expiresInMs = 40_000))
        phone.server.ring(sooner, ringMs = 20_000)
        phone.coordinator.handleDataMessage(phone.ringing(sooner, expiresInMs = 20_000))
        val calls = phone.coordinator.currentCalls()
        assertEquals("the deadline that comes first first", listOf(sooner, later), calls.map { it.callId })
        assertEquals(listOf(PhoneCallMachine.Phase.RINGING, PhoneCallMachine.Phase.RINGING), calls.map { it.phase })
        assertEquals(Party("alice", "Alice"), calls[0].caller)

        phone.coordinator.end(sooner) {}
        assertEquals(listOf(later), phone.coordinator.currentCalls().map { it.callId })
        assertEquals("a snapshot: later changes leave it as it was", listOf(sooner, later), calls.map { it.callId })
        phone.coordinator.handle(phone.event(EventType.CALL_CANCELLED, later))
        assertEquals(listOf<PhoneCallMachine.PhoneCall>(), phone.coordinator.currentCalls())
    }
}
