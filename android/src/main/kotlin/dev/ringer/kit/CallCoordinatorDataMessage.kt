package dev.ringer.kit

import org.json.JSONException
import org.json.JSONObject

/** What became of an FCM data message given to [CallCoordinator.handleDataMessage] (Swift: `DataMessageOutcome`). */
sealed class DataMessageOutcome {
    /**
     * A `call.incoming` message, handled as a VoIP push is but without PushKit's report-every-push rule: only a
     * [PushDisposition.RINGING] call reached the call UI; every other disposition showed nothing.
     * @property callId the call id the body named (lowercase), null when it named no UUID.
     */
    data class Call(val callId: String?, val disposition: PushDisposition) : DataMessageOutcome()

    /**
     * A message about a call that changed: `call.cancelled`, `call.answered_elsewhere`,
     * `call.declined_elsewhere` or `call.unanswered` ended the call it names here (or, for a call not seen yet,
     * makes its late ringing message end at once), as the matching event would.
     */
    data class Update(val callId: String, val type: EventType) : DataMessageOutcome()

    /**
     * Not a Ringer message (no `ringer` key: the app's own; its value not a JSON object with a string `type`), or
     * a type this version does not act on. Nothing changed.
     */
    object Ignored : DataMessageOutcome() {
        override fun toString(): String = "Ignored"
    }
}

/** Event types an FCM data message about a call may carry (docs/fcm.md; the bodies of `AlertOrBackgroundPush`). */
private val updateTypes = setOf(EventType.CALL_CANCELLED, EventType.CALL_ANSWERED_ELSEWHERE,
                                EventType.CALL_DECLINED_ELSEWHERE, EventType.CALL_UNANSWERED)

/**
 * The rules of [CallCoordinator.handleDataMessage]. `data["ringer"]` holds a JSON object in a string, because
 * FCM data values must be strings (Google: FCM HTTP v1 `Message.data`): the VoIP push's `ringer` body for
 * `call.incoming`, or `{"v":1,"type":…,"call_id":…}` for the others. Keys other than `ringer` are the app's.
 *
 * Unlike iOS's VoIP push nothing is reported for a message that cannot ring (stale on the server's clock, for
 * another user, logged out, unreadable, a call already over or whose end came first): Android has no PushKit
 * rule, and a call that appears and ends at once would only flash on screen (docs/android-integration.md,
 * "Waking the app"). Nothing in a message, however malformed or deeply nested, throws.
 */
internal fun CallCoordinator.readDataMessage(data: Map<String, String>): DataMessageOutcome {
    val text = data["ringer"] ?: return DataMessageOutcome.Ignored
    val body = try {
        if (!text.trim().startsWith("{") || nestsDeeperThan(text, MAX_NESTING)) return DataMessageOutcome.Ignored
        JSONObject(text)
    } catch (e: JSONException) {
        return DataMessageOutcome.Ignored
    }
    val type = body.opt("type") as? String ?: return DataMessageOutcome.Ignored
    if (type == EventType.CALL_INCOMING.rawValue) {
        val callId = (body.opt("call_id") as? String)?.let { CallIds.normalize(it) }
        val push = try {
            RingerPushBody.fromJson(body)
        } catch (e: RingerWireException) {
            null
        }
        return DataMessageOutcome.Call(callId, handleIncomingPush(push, reportsEveryPush = false))
    }
    val eventType = EventType(type)
    if (eventType !in updateTypes) return DataMessageOutcome.Ignored
    val update = try {
        AlertOrBackgroundPush.Body.fromJson(body)
    } catch (e: RingerWireException) {
        return DataMessageOutcome.Ignored
    }
    // Call ids are UUIDs: any other id names no call, and remembering it would push a real early end out.
    val callId = CallIds.normalize(update.callId) ?: return DataMessageOutcome.Ignored
    handleUpdatePush(eventType, callId)
    return DataMessageOutcome.Update(callId, eventType)
}

/**
 * The deepest nesting a Ringer message may have: its bodies nest two levels (`caller` in the call); org.json
 * parses recursively, so a hostile message nested a few thousand levels would overflow the stack with an
 * `Error` no `JSONException` handler catches.
 */
private const val MAX_NESTING = 16

/** Whether [text]'s objects and arrays nest deeper than [max], brackets inside strings not counted. */
private fun nestsDeeperThan(text: String, max: Int): Boolean {
    var depth = 0
    var inString = false
    var escaped = false
    for (char in text) {
        if (inString) {
            when {
                escaped -> escaped = false
                char == '\\' -> escaped = true
                char == '"' -> inString = false
            }
        } else {
            when (char) {
                '"' -> inString = true
                '{', '[' -> if (++depth > max) return true
                '}', ']' -> depth -= 1
            }
        }
    }
    return false
}
