package dev.ringer.kit

import org.junit.Assert.assertEquals
import org.junit.Assert.assertNull
import org.junit.Test

/**
 * The machine's bounds at their edges (docs/test-vectors.md "The numbers the vectors rely on"), each once broken
 * by one off in a constant: the vectors pin the bounds from one side only, so these pin the other.
 */
class PhoneCallMachineTest {
    private val start = 1_800_000_000_000L

    private fun id(n: Int): String = String.format("%08x-0000-4000-8000-%012x", n, n)

    private fun push(callId: String, atMs: Long) = PhoneCallInput.IncomingPush(
        IncomingPush(callId, Party("alice"), "bob", false, atMs, atMs + 30_000), PhoneAccount.LoggedIn("bob"), false)

    @Test fun aClockSampleExactlyTwoSecondsAboveTheOffsetRefinesIt() {
        val machine = PhoneCallMachine("bob-pixel", 5_000)
        assertEquals(listOf(PhoneCallEffect.SaveClockOffset(7_000)), machine.handle(PhoneCallInput.ServerTime(start + 7_000), start))
        assertEquals(7_000L, machine.clockOffsetMs)
    }

    @Test fun aClockSampleExactlyTwoSecondsBelowTheOffsetIsTheSameClock() {
        val machine = PhoneCallMachine("bob-pixel", 5_000)
        assertEquals(emptyList<PhoneCallEffect>(), machine.handle(PhoneCallInput.ServerTime(start + 3_000), start))
        assertEquals(5_000L, machine.clockOffsetMs)
    }

    @Test fun aClockSampleMoreThanTwoSecondsOffReplacesTheOffset() {
        val machine = PhoneCallMachine("bob-pixel", 5_000)
        assertEquals(listOf(PhoneCallEffect.SaveClockOffset(2_999)), machine.handle(PhoneCallInput.ServerTime(start + 2_999), start))
        assertEquals(listOf(PhoneCallEffect.SaveClockOffset(5_000)), machine.handle(PhoneCallInput.ServerTime(start + 5_000), start))
    }

    @Test fun anEndHeardFirstIsRememberedUntilJustBeforeTenMinutes() {
        val machine = PhoneCallMachine("bob-pixel", 0)
        val call = id(1)
        machine.handle(PhoneCallInput.UpdatePush(EventType.CALL_CANCELLED, call), start)
        machine.handle(PhoneCallInput.End(id(99)), start + 599_999)
        assertEquals(CallEndReason.REMOTE_ENDED, machine.endedUnseen[call]?.reason)
        machine.handle(PhoneCallInput.End(id(99)), start + 600_000)
        assertNull(machine.endedUnseen[call])
    }

    /** A call that ended here is forgotten like an end heard first, so the table does not grow with every call. */
    @Test fun aCallThatEndedHereIsForgottenAtTenMinutesAndNotBefore() {
        val machine = PhoneCallMachine("bob-pixel", 0)
        val call = id(1)
        machine.handle(push(call, start), start)
        machine.handle(PhoneCallInput.End(call), start + 1_000)
        machine.handle(PhoneCallInput.End(id(99)), start + 600_999)
        assertEquals(PhoneCallMachine.Phase.ENDED, machine.phase(call))
        assertEquals(setOf(call), machine.memory.endedCalls.keys)
        machine.handle(PhoneCallInput.End(id(99)), start + 601_000)
        assertNull(machine.phase(call))
        assertEquals(emptySet<String>(), machine.memory.endedCalls.keys)
    }

    /** What a relaunch must know goes into memory: the ended call as `remote_ended` when ended here, the answer unconfirmed. */
    @Test fun theMemoryHoldsTheEndedCallsAndTheUnconfirmedAnswers() {
        val machine = PhoneCallMachine("bob-pixel", 0)
        machine.handle(push(id(1), start), start)
        machine.handle(push(id(2), start), start)
        machine.handle(PhoneCallInput.Answer(id(2)), start + 500)
        machine.handle(PhoneCallInput.End(id(1)), start + 1_000)
        assertEquals(mapOf(id(1) to PhoneCallMachine.EndedUnseen(CallEndReason.REMOTE_ENDED, start + 1_000, shownHere = true)),
                     machine.memory.endedCalls)
        assertEquals(mapOf(id(2) to PhoneCallMachine.UnconfirmedAnswer(Party("alice"), "bob", false, start + 30_000, start + 30_000)),
                     machine.memory.unconfirmedAnswers)
        machine.handle(PhoneCallInput.AnswerConfirmed(id(2)), start + 1_500)
        assertEquals(emptyMap<String, PhoneCallMachine.UnconfirmedAnswer>(), machine.memory.unconfirmedAnswers)
    }

    @Test fun sixtyFourEndsHeardFirstAreAllKept() {
        val machine = PhoneCallMachine("bob-pixel", 0)
        for (n in 0 until 64) machine.handle(PhoneCallInput.UpdatePush(EventType.CALL_UNANSWERED, id(n)), start + n)
        assertEquals(64, machine.endedUnseen.size)
        val effects = machine.handle(push(id(0), start + 100), start + 100)
        assertEquals(PhoneCallEffect.PushHandled(id(0), PushDisposition.ALREADY_ENDED), effects.last())
    }

    @Test fun theSixtyFifthEndHeardFirstForgetsTheOldestTiesByCallId() {
        val machine = PhoneCallMachine("bob-pixel", 0)
        for (n in 64 downTo 0) machine.handle(PhoneCallInput.UpdatePush(EventType.CALL_UNANSWERED, id(n)), start)
        assertEquals(64, machine.endedUnseen.size)
        assertNull(machine.endedUnseen[id(0)])
        assertEquals(CallEndReason.UNANSWERED, machine.endedUnseen[id(1)]?.reason)
    }

    @Test fun answersHeardBeforeTheirOutgoingCallAreBoundedAlike() {
        val machine = PhoneCallMachine("bob-pixel", 0)
        for (n in 0..64) {
            val call = Call(id(n), CallState.ACCEPTED, Party("bob"), Party("carol"), false, start, start + 30_000)
            machine.handle(PhoneCallInput.Event(EventType.CALL_ACCEPTED, call), start + n)
        }
        assertEquals(64, machine.answeredUnseen.size)
        assertNull(machine.answeredUnseen[id(0)])
        machine.handle(PhoneCallInput.End(id(99)), start + 64 + 600_000)
        assertEquals(0, machine.answeredUnseen.size)
    }
}
