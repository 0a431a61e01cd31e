package dev.ringer.kit

import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Test

/**
 * Hostile `data["ringer"]` values through CallCoordinator.handleDataMessage, the call
 * RingerMessagingService.onMessageReceived makes: never a throw, never a ring.
 */
class DataMessageInputTest {
    private val callId = "9f0c2a9e-0000-4000-8000-0000000000aa"

    private fun incoming(fields: String) = mapOf("ringer" to "{\"v\":1,\"type\":\"call.incoming\",$fields}")

    @Test
    fun hostileDataMessagesNeverThrowAndNeverRing() {
        val h = CoordinatorHarness().connect()
        val now = h.clock.now()
        val ok = "\"call_id\":\"$callId\",\"caller\":{\"id\":\"alice\"},\"callee_id\":\"bob\",\"has_video\":false,\"sent_at\":$now,\"expires_at\":${now + 30_000}"
        // FCM caps a data payload at 4 KB, so ~1900 levels is the deepest a real message nests. (3000 levels overflow a
        // 1 MB HotSpot stack inside org.json: a StackOverflowError is no JSONException and would escape onMessageReceived.)
        val deep = "[".repeat(1900) + "]".repeat(1900)
        val cases = listOf(
            mapOf("ringer" to ""), mapOf("ringer" to "   "), mapOf("ringer" to "null"), mapOf("ringer" to "{}"),
            mapOf("ringer" to "{\"type\":null}"), mapOf("ringer" to "{\"type\":7}"), mapOf("ringer" to "{\"type\":[\"call.incoming\"]}"),
            mapOf("ringer" to "{\"type\":\"call.incoming\",\"x\":$deep}"),
            mapOf("ringer" to "{\"type\":\"call.incoming\"}}}}"),
            mapOf("ringer" to "{\"type\":\"call.incoming\",\"n\":1e999999}"),
            mapOf("ringer" to "{\"type\":\"call.incoming\",\"n\":NaN}"),
            incoming(ok.replace("\"has_video\":false", "\"has_video\":\"false\"")),
            incoming(ok.replace("\"sent_at\":$now", "\"sent_at\":\"$now\"")),
            incoming(ok.replace("\"sent_at\":$now", "\"sent_at\":1.5")),
            incoming(ok.replace("\"expires_at\":${now + 30_000}", "\"expires_at\":99999999999999999999999")),
            incoming(ok.replace("{\"id\":\"alice\"}", "\"alice\"")),
            incoming(ok.replace("{\"id\":\"alice\"}", "{\"id\":5}")),
            incoming(ok.replace("\"call_id\":\"$callId\"", "\"call_id\":\"not-a-uuid\"")),
            incoming(ok.replace("\"call_id\":\"$callId\"", "\"call_id\":\"${"a".repeat(200_000)}\"")),
            incoming(ok.replace("\"callee_id\":\"bob\"", "\"callee_id\":\"carol\"")),
            incoming(ok.replace("\"expires_at\":${now + 30_000}", "\"expires_at\":${now - 1}")),
            mapOf("ringer" to "{\"v\":1,\"type\":\"call.cancelled\"}"),
            mapOf("ringer" to "{\"v\":\"1\",\"type\":\"call.cancelled\",\"call_id\":\"$callId\"}"),
            mapOf("ringer" to "{\"v\":1,\"type\":\"call.unknown_future\",\"call_id\":\"$callId\"}")
        )
        for (data in cases) {
            val outcome = h.coordinator.handleDataMessage(data)
            assertTrue("$data -> $outcome", outcome !is DataMessageOutcome.Call || outcome.disposition != PushDisposition.RINGING)
        }
        assertEquals("nothing reached the call UI", emptyList<IncomingCallReport>(), h.ui.reports)
        // The well-formed message still rings after all that.
        val outcome = h.coordinator.handleDataMessage(incoming(ok))
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.RINGING), outcome)
    }

    /**
     * An update message whose call_id is no UUID is reported as `Update("not-a-uuid", …)` and remembered in the
     * machine's ended-unseen table (bounded at 64, so it can also push a real early end out); the ringing path
     * refuses such ids. It should be `Ignored`, as the KDoc of `Ignored` promises for unreadable messages.
     */
    @Test
    fun anUpdateMessageWithoutAUuidCallIdIsIgnored() {
        val h = CoordinatorHarness().connect()
        val outcome = h.coordinator.handleDataMessage(mapOf("ringer" to "{\"v\":1,\"type\":\"call.cancelled\",\"call_id\":\"not-a-uuid\"}"))
        assertEquals(DataMessageOutcome.Ignored, outcome)
    }

    @Test
    fun aMessageNestedThousandsOfLevelsDeepIsIgnoredWithoutOverflowingTheStack() {
        val h = CoordinatorHarness().connect()
        val deep = "[".repeat(50_000) + "]".repeat(50_000)
        assertEquals(DataMessageOutcome.Ignored,
                     h.coordinator.handleDataMessage(mapOf("ringer" to "{\"type\":\"call.incoming\",\"x\":$deep}")))
        // Brackets inside strings are text, not nesting.
        val now = h.clock.now()
        val brackets = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\"{{{{{{{{{{{{{{{{{{{{{{{{{{{{"
        val outcome = h.coordinator.handleDataMessage(incoming("\"call_id\":\"$callId\",\"caller\":{\"id\":\"alice\",\"name\":\"$brackets\"}," +
            "\"callee_id\":\"bob\",\"has_video\":false,\"sent_at\":$now,\"expires_at\":${now + 30_000}"))
        assertEquals(DataMessageOutcome.Call(callId, PushDisposition.RINGING), outcome)
    }
}
