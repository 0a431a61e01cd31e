package dev.ringer.reactnative

import org.json.JSONArray
import org.json.JSONObject

/**
 * Turns what the native half observed into the events JavaScript receives, as TestVectors/react-native/events.json
 * pins them (Swift: `EventTranslator` in react-native/ios; the same rules):
 *
 * - `incoming` when an incoming call rings, `outgoing` when the app placed a ringing call, with the other party and
 *   video from the coordinator's calls; from then on JavaScript has heard of the call, and a second announcement of
 *   it (startCall returning after the callee's phone rang) adds nothing.
 * - `ringing` for the first server `call.ringing` of an outgoing call; `accepted` when media can start.
 * - `ended` with the SDK's reason (`local` when this user ended it) and the server's last word on the call: its
 *   `end_reason`, else the final state it last reported, else null.
 * - An `accepted`, `ringing` or `ended` of a call JavaScript has not heard of (an answer restored after a relaunch
 *   never rings again; the callee's phone can ring before startCall returns) comes after the call's `incoming` or
 *   `outgoing`, from what the translator saw of the call among the coordinator's calls (the newest
 *   [REMEMBERED_CALLS]); of a call it never saw (a late push for a call already over, handled natively) nothing is
 *   told.
 * - `connectionChanged`, `readinessChanged`, `requestFailed` and `callBackRequested` as they come.
 *
 * Events are JSON objects with camelCase keys, `null` where a value is unknown, never a missing key. Pure: no I/O,
 * no clock. Not thread-safe: the owner serialises calls (RingerReactHost does, under its lock).
 */
class EventTranslator {
    /** The calls JavaScript has heard of, with their direction. */
    private val heard = HashMap<String, String>()
    /** Outgoing calls whose `ringing` was sent. */
    private val ringingSent = HashSet<String>()
    /** Every call seen among the coordinator's calls until it ends, the most recently seen last. */
    private val seen = bounded<CallInfo>()
    /** The server's word on each call: its end reason and final state, as last reported. */
    private val serverWords = bounded<ServerWord>()

    /** What a server's events said of one call. */
    private data class ServerWord(val endReason: String?, val finalState: String?)

    /**
     * The events [observed] makes.
     * @param calls the calls the coordinator holds now, by call id (those not ended).
     * @return the events to send, in order; often none.
     */
    fun translate(observed: Observed, calls: Map<String, CallInfo>): List<JSONObject> {
        for ((callId, call) in calls) {
            seen.remove(callId)
            seen[callId] = call
        }
        return when (observed) {
            is Observed.Ringing -> announce(observed.callId, CallInfo.INCOMING)
            is Observed.CallStarted -> announce(observed.callId, CallInfo.OUTGOING)
            is Observed.ServerEvent -> serverEvent(observed)
            is Observed.MediaCanStart -> {
                val told = introduce(observed.callId) ?: emptyList()
                val direction = heard[observed.callId]
                if (direction == null) told else told + event("accepted", observed.callId).put("direction", direction)
                    .put("media", JSONObject().put("url", observed.media.url).put("token", observed.media.token))
            }
            is Observed.Ended -> ended(observed)
            is Observed.RequestFailed ->
                listOf(event("requestFailed", observed.callId).put("detail", observed.detail))
            is Observed.StreamStatus -> listOf(JSONObject().put("type", "connectionChanged").put("status", observed.status))
            is Observed.Readiness ->
                listOf(JSONObject().put("type", "readinessChanged").put("problems", JSONArray(observed.problems)))
            is Observed.ParticipantsChanged -> {
                val told = introduce(observed.callId) ?: return emptyList()
                val participants = JSONArray()
                for (leg in observed.legs) participants.put(JSONObject().put("user", leg.user.toJson()).put("state", leg.state))
                told + event("participants", observed.callId).put("participants", participants)
            }
            // Told by other events: the push by `incoming` once it rings, an answer by `accepted` once media can start.
            is Observed.PushReported, is Observed.Answered, is Observed.OutgoingAnswered -> emptyList()
            is Observed.HeldChanged -> {
                val told = introduce(observed.callId) ?: return emptyList()
                told + event("held", observed.callId).put("held", observed.held)
            }
            is Observed.MutedChanged -> {
                val told = introduce(observed.callId) ?: return emptyList()
                told + event("muted", observed.callId).put("muted", observed.muted)
            }
            is Observed.Dtmf -> {
                val told = introduce(observed.callId) ?: return emptyList()
                told + event("dtmf", observed.callId).put("digits", observed.digits)
            }
            is Observed.AudioRouteChanged ->
                listOf(SdkObservations.routesJson(observed.routes).put("type", "audioRouteChanged"))
            is Observed.CallBackRequested -> listOf(JSONObject().put("type", "callBackRequested")
                .put("userId", observed.userId).put("hasVideo", observed.hasVideo))
        }
    }

    /** `incoming` or `outgoing` for a call of that [direction] that JavaScript has not heard of yet. */
    private fun announce(callId: String, direction: String): List<JSONObject> =
        if (seen[callId]?.direction != direction) emptyList() else introduce(callId) ?: emptyList()

    /**
     * The announcement JavaScript needs before any other event of [callId]: none when it heard of the call already,
     * the call's `incoming` or `outgoing` when the translator saw it (JavaScript has heard of it then).
     * @return null when the translator never saw the call: nothing may be told of it.
     */
    private fun introduce(callId: String): List<JSONObject>? {
        if (heard.containsKey(callId)) return emptyList()
        val call = seen[callId] ?: return null
        heard[callId] = call.direction
        if (call.direction != CallInfo.INCOMING) {
            return listOf(event(call.direction, callId).put("callee", call.peer.toJson()).put("hasVideo", call.hasVideo))
        }
        return listOf(event(call.direction, callId).put("caller", call.peer.toJson()).put("hasVideo", call.hasVideo)
            .put("group", call.groupJson()).put("waiting", call.waiting))
    }

    private fun serverEvent(observed: Observed.ServerEvent): List<JSONObject> {
        val callId = observed.callId
        val finalState = if (observed.state in LIVE_STATES) null else observed.state
        if (observed.endReason != null || finalState != null) {
            val earlier = serverWords.remove(callId)
            serverWords[callId] = ServerWord(observed.endReason ?: earlier?.endReason, finalState ?: earlier?.finalState)
        }
        val outgoing = (heard[callId] ?: seen[callId]?.direction) == CallInfo.OUTGOING
        if (observed.type != CALL_RINGING || !outgoing || callId in ringingSent) return emptyList()
        val told = introduce(callId) ?: return emptyList()
        ringingSent.add(callId)
        return told + event("ringing", callId)
    }

    /** The call is over: `ended` (after its announcement when JavaScript has not heard of it), and it is forgotten. */
    private fun ended(observed: Observed.Ended): List<JSONObject> {
        val callId = observed.callId
        val told = introduce(callId)
        val word = serverWords.remove(callId)
        ringingSent.remove(callId)
        heard.remove(callId)
        seen.remove(callId)
        if (told == null) return emptyList()
        return told + event("ended", callId).put("reason", observed.reason ?: LOCAL)
            .put("serverReason", word?.endReason ?: word?.finalState ?: JSONObject.NULL)
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
        /** Calls remembered at most (seen, or with a server word): far more than ever ring at once. */
        const val REMEMBERED_CALLS = 64

        /** A map by call id that drops its oldest entry beyond [REMEMBERED_CALLS]. */
        private fun <V> bounded(): LinkedHashMap<String, V> = object : LinkedHashMap<String, V>() {
            override fun removeEldestEntry(eldest: MutableMap.MutableEntry<String, V>?): Boolean = size > REMEMBERED_CALLS
        }
    }
}
