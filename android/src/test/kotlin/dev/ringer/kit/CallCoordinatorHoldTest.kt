package dev.ringer.kit

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * The coordinator's hold and mute (docs/decisions/0008 §1): the app's requests go to the call UI, the system's changes
 * come back as observations, and the call UI learns whether the system's change was taken. Swift: HoldAndMuteTests.
 */
class CallCoordinatorHoldTest {
    /** A phone with [count] calls answered and confirmed. */
    private fun answered(count: Int): Pair<CoordinatorHarness, List<String>> {
        val phone = CoordinatorHarness().connect()
        val ids = (0 until count).map {
            val callId = CoordinatorHarness.newCallId()
            phone.server.ring(callId)
            phone.coordinator.handleDataMessage(phone.ringing(callId))
            assertEquals(true, phone.answer(callId)())
            callId
        }
        return phone to ids
    }

    private fun seen(phone: CoordinatorHarness): List<String> = phone.observations.all.mapNotNull {
        when (it) {
            is CallCoordinator.Observation.HeldChanged -> "${if (it.held) "held" else "resumed"} ${it.callId}"
            is CallCoordinator.Observation.MutedChanged -> "${if (it.muted) "muted" else "unmuted"} ${it.callId}"
            is CallCoordinator.Observation.Dtmf -> "tones ${it.digits} ${it.callId}"
            else -> null
        }
    }

    @Test
    fun theAppsHoldGoesToTheCallUiAndCountsOnceTheSystemDidIt() {
        val (phone, ids) = answered(1)
        val callId = ids[0]
        assertTrue(phone.coordinator.setHeld(callId.toUpperCase(), true))
        assertEquals(listOf("hold $callId"), phone.ui.controlRequests)
        assertEquals(listOf<String>(), seen(phone))
        assertFalse(phone.coordinator.currentCalls()[0].held)
        assertTrue("the system carries it out", phone.coordinator.hold(callId, true))
        assertEquals(listOf("held $callId"), seen(phone))
        assertTrue(phone.coordinator.currentCalls()[0].held)
        assertTrue("again: taken, nothing more to say", phone.coordinator.hold(callId, true))
        assertEquals(listOf("held $callId"), seen(phone))
    }

    @Test
    fun aCallNotAnsweredCannotBeHeldAndTheSystemsChangeIsRefused() {
        val (phone, _) = answered(0)
        val ringing = CoordinatorHarness.newCallId()
        phone.server.ring(ringing)
        phone.coordinator.handleDataMessage(phone.ringing(ringing))
        assertFalse(phone.coordinator.setHeld(ringing, true))
        assertFalse(phone.coordinator.hold(ringing, true))
        assertFalse(phone.coordinator.hold(CoordinatorHarness.newCallId(), true))
        assertFalse(phone.coordinator.setHeld("not-a-call", true))
        assertEquals(listOf<String>(), phone.ui.controlRequests)
        assertEquals(listOf<String>(), seen(phone))
    }

    @Test
    fun answeringASecondCallAsksToHoldTheFirstAndResumingItHoldsTheSecond() {
        val (phone, ids) = answered(2)
        val (first, second) = ids
        assertEquals(listOf("hold $first"), phone.ui.controlRequests)
        assertTrue(phone.coordinator.hold(first, true))
        assertTrue(phone.coordinator.setHeld(first, false))
        assertEquals(listOf("hold $first", "hold $second", "resume $first"), phone.ui.controlRequests)
        assertTrue(phone.coordinator.hold(second, true))
        assertTrue(phone.coordinator.hold(first, false))
        assertEquals(listOf("held $first", "held $second", "resumed $first"), seen(phone))
    }

    @Test
    fun muteFromTheSystemAndFromTheApp() {
        val (phone, ids) = answered(1)
        val callId = ids[0]
        assertTrue(phone.coordinator.mute(callId, true))
        assertTrue(phone.coordinator.setMuted(callId, false))
        assertEquals(listOf("unmute $callId"), phone.ui.controlRequests)
        assertTrue(phone.coordinator.mute(callId, false))
        assertEquals(listOf("muted $callId", "unmuted $callId"), seen(phone))
        phone.coordinator.end(callId) {}
        assertFalse(phone.coordinator.setMuted(callId, true))
        assertFalse(phone.coordinator.mute(callId, true))
    }

    @Test
    fun keypadTonesPlayOnlyOnTheCallWithTheAudio() {
        val (phone, ids) = answered(1)
        val callId = ids[0]
        assertTrue("a key from a system surface", phone.coordinator.dtmf(callId, "5"))
        assertTrue("the app's keypad goes through the call UI", phone.coordinator.playDtmf(callId.toUpperCase(), "12#"))
        assertEquals(listOf("dtmf 12# $callId"), phone.ui.controlRequests)
        assertTrue(phone.coordinator.dtmf(callId, "12#"))
        assertFalse("not a keypad key", phone.coordinator.playDtmf(callId, "1,2"))
        assertFalse("lowercase is not RFC 4733's spelling", phone.coordinator.dtmf(callId, "a"))
        assertTrue(phone.coordinator.hold(callId, true))
        assertFalse("a held call plays no tones", phone.coordinator.dtmf(callId, "5"))
        assertFalse(phone.coordinator.playDtmf(callId, "5"))
        assertFalse(phone.coordinator.playDtmf(CoordinatorHarness.newCallId(), "5"))
        assertEquals(listOf("tones 5 $callId", "tones 12# $callId", "held $callId"), seen(phone))
        assertEquals(listOf("dtmf 12# $callId"), phone.ui.controlRequests)
    }

    @Test
    fun theAudioRoutesChoiceEndsWithTheLastCallWhateverTheOrderOfTheUisNews() {
        val (phone, ids) = answered(1)
        val outputs = listOf(AudioOutput("earpiece", AudioRoute.EARPIECE, "Phone"), AudioOutput("speaker", AudioRoute.SPEAKER, "Speaker"))
        phone.coordinator.audioOutputsChanged("earpiece", outputs)
        phone.coordinator.audioSessionActivated()
        assertEquals("the harness's call has video: it starts on the speaker", listOf("route speaker"), phone.ui.controlRequests)
        assertTrue("already asked: not asked twice", phone.coordinator.selectAudioOutput("speaker"))
        assertFalse(phone.coordinator.selectAudioOutput("a-headset"))
        phone.coordinator.audioOutputsChanged("speaker", outputs)
        // Telecom closes the connection (the audio stops) before the core hears the hang-up.
        phone.coordinator.audioSessionDeactivated()
        assertEquals(listOf("route speaker"), phone.ui.controlRequests)
        phone.coordinator.end(ids[0]) {}
        assertEquals(listOf("route speaker", "route released"), phone.ui.controlRequests)
        phone.coordinator.audioOutputsChanged("earpiece", outputs)
        phone.coordinator.audioSessionActivated()
        assertEquals("the next call starts where the system puts it", listOf("route speaker", "route released"),
            phone.ui.controlRequests)
    }
}

