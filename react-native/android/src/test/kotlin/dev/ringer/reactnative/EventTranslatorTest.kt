package dev.ringer.reactnative

import org.json.JSONObject
import org.junit.Assert.assertEquals
import org.junit.Test

/**
 * What events.json does not pin of the announce rule: how much the translator remembers of the calls it saw, and that
 * an ended call is forgotten, so a late word about it tells JavaScript nothing.
 */
class EventTranslatorTest {
    private val translator = EventTranslator()

    private fun id(n: Int) = "6f1d1c3e-3c55-4b1f-9d0a-%012x".format(n)
    private fun incoming(name: String) = CallInfo(CallInfo.INCOMING, CallInfo.Peer(name, null), false)
    private fun types(events: List<JSONObject>) = events.map { it.getString("type") }

    @Test
    fun onlyTheNewest64CallsSeenAreRemembered() {
        val seen = EventTranslator.REMEMBERED_CALLS + 1
        for (n in 1..seen) translator.translate(Observed.Readiness(emptyList()), mapOf(id(n) to incoming("caller-$n")))
        assertEquals("the oldest is forgotten", listOf<String>(), types(translator.translate(Observed.Ended(id(1), "failed"), emptyMap())))
        assertEquals(listOf("incoming", "ended"), types(translator.translate(Observed.Ended(id(2), "failed"), emptyMap())))
        // Seen again, a call is the newest once more.
        translator.translate(Observed.Readiness(emptyList()), mapOf(id(3) to incoming("caller-3")))
        for (n in seen + 1..seen + EventTranslator.REMEMBERED_CALLS - 1) {
            translator.translate(Observed.Readiness(emptyList()), mapOf(id(n) to incoming("caller-$n")))
        }
        assertEquals(listOf("incoming", "ended"), types(translator.translate(Observed.Ended(id(3), "failed"), emptyMap())))
        assertEquals(listOf<String>(), types(translator.translate(Observed.Ended(id(4), "failed"), emptyMap())))
    }

    @Test
    fun aLateWordAboutAnEndedCallTellsNothing() {
        val callId = id(1)
        val calls = mapOf(callId to CallInfo(CallInfo.OUTGOING, CallInfo.Peer("bob", "Bob"), true))
        assertEquals(listOf("outgoing"), types(translator.translate(Observed.CallStarted(callId), calls)))
        assertEquals(listOf("ended"), types(translator.translate(Observed.Ended(callId, null), emptyMap())))
        val media = Observed.Media("wss://media.example.com", "m-1")
        for (late in listOf(Observed.ServerEvent(EventTranslator.CALL_RINGING, callId, "ringing", null),
                            Observed.MediaCanStart(callId, media), Observed.Ended(callId, "remote_ended"))) {
            assertEquals("$late", listOf<String>(), types(translator.translate(late, emptyMap())))
        }
    }

    @Test
    fun aCallAnnouncedOnceIsNeverAnnouncedAgain() {
        val callId = id(1)
        val calls = mapOf(callId to incoming("alice"))
        assertEquals(listOf("incoming"), types(translator.translate(Observed.Ringing(callId), calls)))
        assertEquals(listOf<String>(), types(translator.translate(Observed.Ringing(callId), calls)))
        assertEquals(listOf("accepted"), types(translator.translate(Observed.MediaCanStart(callId, Observed.Media("wss://m", "t")), calls)))
    }
}
