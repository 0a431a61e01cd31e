package dev.ringer.kit

import org.json.JSONArray
import org.json.JSONObject

/**
 * Where and how to join the call's media room (a LiveKit-compatible server).
 * @property url the media server's URL (`wss://media.example.com`).
 * @property token a LiveKit-compatible access token for the room named after the call id; a secret, so
 *   [toString] never shows it.
 */
data class MediaSession(val url: String, val token: String) {
    /** `{"url":…,"token":…}`. */
    fun toJson(): JSONObject = JSONObject().put("url", url).put("token", token)

    /** Shows the URL only: the token is a credential. */
    override fun toString(): String = "MediaSession(url=$url, token=<redacted>)"

    /** Reading. */
    companion object {
        /** @throws RingerWireException when `url` or `token` is missing or not a string. */
        @JvmStatic fun fromJson(json: JSONObject): MediaSession =
            MediaSession(json.reqString("url", "MediaSession"), json.reqString("token", "MediaSession"))
    }
}

/** The answer to `POST /v1/calls/{call_id}/accept`: the call, now `accepted`, and this user's media session. */
data class AcceptResponse(val call: Call, val media: MediaSession) {
    /** Reading. */
    companion object {
        /** @throws RingerWireException when `call` or `media` is missing or malformed. */
        @JvmStatic fun fromJson(json: JSONObject): AcceptResponse = AcceptResponse(
            Call.fromJson(json.reqObject("call", "AcceptResponse")),
            MediaSession.fromJson(json.reqObject("media", "AcceptResponse")))
    }
}

/**
 * An error answer, `application/problem+json` (RFC 9457).
 * @property type stable URI (`https://ringer.dev/problems/<slug>`); compare through [problemType].
 * @property status the HTTP status code.
 * @property callState the call's state now, for conflicts such as "accept after cancel".
 * @property callees the user ids a group call's problem is about (`duplicate-callee`, `user-not-found`,
 *   `callee-already-rung`).
 * @property legState the acting callee's leg state, on a group call's conflicts (the call may go on without them).
 */
data class Problem(
    val type: String,
    val title: String,
    val status: Int,
    val detail: String? = null,
    val callState: CallState? = null,
    val callees: List<String>? = null,
    val legState: LegState? = null
) {
    /** [type] as the open [ProblemType] value, to compare with its constants. */
    val problemType: ProblemType get() = ProblemType(type)

    /** The problem in its JSON shape. */
    fun toJson(): JSONObject = JSONObject().put("type", type).put("title", title).put("status", status)
        .putIfSet("detail", detail).putIfSet("call_state", callState?.rawValue)
        .putIfSet("callees", callees?.let { JSONArray(it) }).putIfSet("leg_state", legState?.rawValue)

    /** Reading. */
    companion object {
        /** @throws RingerWireException when `type`, `title` or `status` is missing or has the wrong type. */
        @JvmStatic fun fromJson(json: JSONObject): Problem {
            val what = "Problem"
            return Problem(
                type = json.reqString("type", what),
                title = json.reqString("title", what),
                status = json.reqInt("status", what),
                detail = json.stringOrNull("detail", what),
                callState = json.stringOrNull("call_state", what)?.let { CallState(it) },
                callees = json.stringListOrNull("callees", what),
                legState = json.stringOrNull("leg_state", what)?.let { LegState(it) })
        }
    }
}

/**
 * One event on the WebSocket (docs/openapi.yaml `CallEvent`): `{"seq":12,"type":"call.incoming","call":{…}}`.
 * @property seq per user, strictly increasing; reconnect with `?since=<seq>` to replay what was missed.
 */
data class CallEvent(val seq: Long, val type: EventType, val call: Call) {
    /** The event in its JSON shape. */
    fun toJson(): JSONObject = JSONObject().put("seq", seq).put("type", type.rawValue).put("call", call.toJson())

    /** Reading. */
    companion object {
        /** @throws RingerWireException when `seq`, `type` or `call` is missing or malformed. */
        @JvmStatic fun fromJson(json: JSONObject): CallEvent = CallEvent(
            json.reqLong("seq", "CallEvent"),
            EventType(json.reqString("type", "CallEvent")),
            Call.fromJson(json.reqObject("call", "CallEvent")))
    }
}
