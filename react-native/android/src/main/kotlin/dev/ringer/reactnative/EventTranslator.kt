package dev.ringer.reactnative

import org.json.JSONArray
import org.json.JSONObject

/**
 * Turns what the native half observed into the events JavaScript receives, as TestVectors/react-native/events.json
 * pins them (Swift: `EventTranslator` in react-native/ios; the same rules):
 *
 * - `incoming` when an incoming call rings, `outgoing` when the app placed a ringing call, with the other party and
 *   video from the coordinator's calls at that moment; from then on JavaScript has heard of the call.
 * - `ringing` for the first server `call.ringing` of an outgoing call; `accepted` when media can start.
 * - `ended` only for calls JavaScript has heard of (a late push for a call already over is handled natively and
 *   never told), with the SDK's reason (`local` when this user ended it) and the server's last word on the call:
 *   its `end_reason`, else the final state it last reported, else null.
 * - `connectionChanged`, `readinessChanged` and `requestFailed` as they come.
 *
 * Events are JSON objects with camelCase keys, `null` where a value is unknown, never a missing key. Pure: no I/O,
 * no clock. Not thread-safe: the owner serialises calls (RingerReactHost does, under its lock).
 */
class EventTranslator {
    /** The calls JavaScript has heard of, with their direction. */
    private val heard = HashMap<String, String>()
    /** Outgoing calls whose `ringing` was sent. */
    private val ringingSent = HashSet<String>()
    /** The server's word on each call: its end reason and final state, as last reported; the oldest go past the bound. */
    private val serverWords = object : LinkedHashMap<String, ServerWord>() {
        override fun removeEldestEntry(eldest: MutableMap.MutableEntry<String, ServerWord>?): Boolean = size > REMEMBERED_CALLS
    }

    /** What a server's events said of one call. */
    private data class ServerWord(val endReason: String?, val finalState: String?)

    /**
     * The events [observed] makes.
     * @param calls the calls the coordinator holds now, by call id (those not ended).
     * @return the events to send, in order; often none.
     */
    fun translate(observed: Observed, calls: Map<String, CallInfo>): List<JSONObject> = when (observed) {
        is Observed.Ringing -> announce(observed.callId, calls, CallInfo.INCOMING)
        is Observed.CallStarted -> announce(observed.callId, calls, CallInfo.OUTGOING)
        is Observed.ServerEvent -> serverEvent(observed, calls)
        is Observed.MediaCanStart -> {
            val direction = calls[observed.callId]?.direction ?: heard[observed.callId]
            if (direction == null) emptyList() else {
                heard[observed.callId] = direction
                listOf(event("accepted", observed.callId).put("direction", direction)
                    .put("media", JSONObject().put("url", observed.media.url).put("token", observed.media.token)))
            }
        }
        is Observed.Ended -> ended(observed)
        is Observed.RequestFailed ->
            listOf(event("requestFailed", observed.callId).put("detail", observed.detail))
        is Observed.StreamStatus -> listOf(JSONObject().put("type", "connectionChanged").put("status", observed.status))
        is Observed.Readiness -> listOf(JSONObject().put("type", "readinessChanged").put("problems", JSONArray(observed.problems)))
        // Told by other events: the push by `incoming` once it rings, an answer by `accepted` once media can start.
        is Observed.PushReported, is Observed.Answered, is Observed.OutgoingAnswered -> emptyList()
    }

    /** `incoming` or `outgoing` for a call of that [direction] the coordinator holds; JavaScript has heard of it then. */
    private fun announce(callId: String, calls: Map<String, CallInfo>, direction: String): List<JSONObject> {
        val call = calls[callId]
        if (call == null || call.direction != direction) return emptyList()
        heard[callId] = direction
        val party = if (direction == CallInfo.INCOMING) "caller" else "callee"
        return listOf(event(direction, callId).put(party, call.peer.toJson()).put("hasVideo", call.hasVideo))
    }

    private fun serverEvent(observed: Observed.ServerEvent, calls: Map<String, CallInfo>): List<JSONObject> {
        val callId = observed.callId
        val finalState = if (observed.state in LIVE_STATES) null else observed.state
        if (observed.endReason != null || finalState != null) {
            val earlier = serverWords[callId]
            serverWords[callId] = ServerWord(observed.endReason ?: earlier?.endReason, finalState ?: earlier?.finalState)
        }
        val outgoing = calls[callId]?.direction == CallInfo.OUTGOING
        if (observed.type != CALL_RINGING || !outgoing || !ringingSent.add(callId)) return emptyList()
        return listOf(event("ringing", callId))
    }

    private fun ended(observed: Observed.Ended): List<JSONObject> {
        val callId = observed.callId
        val word = serverWords.remove(callId)
        ringingSent.remove(callId)
        if (heard.remove(callId) == null) return emptyList()
        return listOf(event("ended", callId).put("reason", observed.reason ?: LOCAL)
            .put("serverReason", word?.endReason ?: word?.finalState ?: JSONObject.NULL))
    }

    private fun event(type: String, callId: String): JSONObject = JSONObject().put("type", type).put("callId", callId)

    /** Names the events use. */
    companion object {
        /** The `reason` of a call this user ended (declined, cancelled or hung up here). */
        const val LOCAL = "local"
        /** The server's event of a callee's phone ringing. */
        const val CALL_RINGING = "call.ringing"
        /** The server's call states that are not final (docs/call-lifecycle.md). */
        private val LIVE_STATES = setOf("ringing", "accepted")
        /** Calls whose server word is kept at most: far more than ever ring at once. */
        private const val REMEMBERED_CALLS = 64
    }
}
