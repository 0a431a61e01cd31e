package dev.ringer.android

import dev.ringer.kit.Party
import dev.ringer.lab.app.MirrorPhone
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test

/** The calls' hold on the foreground service: no service outlives its calls, whatever order closes and holds come in. */
class CallForegroundTest {
    private val phone = MirrorPhone()
    private val open = HashSet<String>()
    private val refused = ArrayList<String>()
    private val foreground = CallForeground(phone, 35, isOpen = { synchronized(open) { it in open } }) { refused.add(it) }

    private fun close(callId: String) {
        synchronized(open) { open.remove(callId) }
        foreground.release(callId)
    }

    @Test fun aHoldForACallClosedMeanwhileStartsNothingAndHoldsNothing() {
        assertTrue(foreground.hold("c1", Party("alice")))
        assertTrue(phone.started.isEmpty())
        assertFalse(foreground.isHeldBy("c1"))
    }

    @Test fun twoCallsClosedTogetherStopTheServiceAndTheFirstIsNotHeldAgainForTheSecondsRelease() {
        synchronized(open) { open.addAll(listOf("a", "b")) }
        foreground.hold("a", Party("alice"))
        foreground.hold("b", Party("bob"))
        assertEquals(2, phone.started.size)
        // Android delivered both starts to the service.
        foreground.startDelivered()
        foreground.startDelivered()
        // Both calls close on two threads; b's release runs while a is closed but not yet released.
        synchronized(open) { open.clear() }
        foreground.release("b")
        foreground.release("a")
        assertEquals("a closed call is never held again", 2, phone.started.size)
        assertFalse(foreground.isHeldBy("a") || foreground.isHeldBy("b"))
        assertEquals(1, phone.stopped.size)
        assertTrue(refused.isEmpty())
    }

    @Test fun theShownCallsReleaseMovesTheServiceToAnOpenOne() {
        synchronized(open) { open.addAll(listOf("a", "b")) }
        foreground.hold("a", Party("alice"))
        foreground.hold("b", Party("bob"))
        foreground.startDelivered()
        foreground.startDelivered()
        close("b")
        assertEquals("the service's notification now names a", "a", phone.started.last().getStringExtra(RingerIntents.EXTRA_CALL_ID))
        assertTrue(foreground.isHeldBy("a"))
        assertTrue(phone.stopped.isEmpty())
    }
}
