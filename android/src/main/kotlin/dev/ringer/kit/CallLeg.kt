package dev.ringer.kit

import org.json.JSONArray
import org.json.JSONObject

/**
 * The state of one callee's leg of a group call (docs/openapi.yaml `components/schemas/LegState`; decision 0007).
 * `ringing` and `accepted` are live; every other state is final. Open: unknown raw values are kept.
 */
data class LegState(val rawValue: String) {
    /** True for `ringing` and `accepted`; false for every final state, including unknown ones. */
    val isLive: Boolean get() = this == RINGING || this == ACCEPTED

    /** The raw value, as on the wire. */
    override fun toString(): String = rawValue

    /** The leg states the server sends today. */
    companion object {
        /** The callee's devices are being rung for this leg. */
        @JvmField val RINGING = LegState("ringing")
        /** One of the callee's devices answered; the callee is in the call. */
        @JvmField val ACCEPTED = LegState("accepted")
        /** One of the callee's devices declined. */
        @JvmField val DECLINED = LegState("declined")
        /** The callee was already in an accepted call when rung; nothing rang. */
        @JvmField val BUSY = LegState("busy")
        /** Nothing of the callee's could be rung; the leg's `failure_reason` says so in words. */
        @JvmField val FAILED = LegState("failed")
        /** The leg rang to its own deadline with no answer. */
        @JvmField val UNANSWERED = LegState("unanswered")
        /** The leg stopped ringing because of someone else: a cancel, the call's end, or another callee's answer. */
        @JvmField val CANCELLED = LegState("cancelled")
        /** The callee was in the call and is no longer. */
        @JvmField val LEFT = LegState("left")

        /** Every leg state this SDK knows, for strict readers such as the test-vector runner. */
        @JvmField val KNOWN: Set<LegState> = setOf(RINGING, ACCEPTED, DECLINED, BUSY, FAILED, UNANSWERED, CANCELLED, LEFT)
    }
}

/**
 * What an answer does in a group call, chosen when it is placed (docs/openapi.yaml `AnswerPolicy`; decision 0007 §3).
 * Open: unknown raw values are kept.
 */
data class AnswerPolicy(val rawValue: String) {
    /** The raw value, as on the wire. */
    override fun toString(): String = rawValue

    /** The policies the server knows today. */
    companion object {
        /** The default: the first callee to accept gets the call; every other ringing callee stops at once. */
        @JvmField val FIRST_ANSWER = AnswerPolicy("first_answer")
        /** Every callee may accept until their own ring deadline; each may leave without ending it for the rest. */
        @JvmField val ALL_MAY_JOIN = AnswerPolicy("all_may_join")
    }
}

/**
 * One callee's part of a group call (docs/openapi.yaml `components/schemas/CallLeg`). Times are Unix milliseconds
 * on the server's clock, read from the wire's RFC 3339 strings.
 * @property user the callee, with the name the server knows.
 * @property rungAtMs when the callee was rung (the call's creation, or the ring-more that added them).
 * @property expiresAtMs the leg's own ring deadline.
 * @property ringingAtMs when one of the callee's devices first acknowledged `ringing`.
 * @property endedBy who ended the leg: the callee, the caller, or under `first_answer` the callee who answered
 *   first; null for a timeout or an end by the server.
 * @property failureReason on a `failed` leg, words an app can show.
 * @property waiting true when the callee was in another answered call when the leg rang (call waiting); else null.
 */
data class CallLeg(
    val user: Party,
    val state: LegState,
    val rungAtMs: Long,
    val expiresAtMs: Long,
    val ringingAtMs: Long? = null,
    val acceptedAtMs: Long? = null,
    val acceptedDeviceId: String? = null,
    val endedAtMs: Long? = null,
    val endedBy: String? = null,
    val failureReason: String? = null,
    val waiting: Boolean? = null
) {
    /** The leg in the server's JSON shape (nulls left out). */
    fun toJson(): JSONObject = JSONObject()
        .put("user", user.toJson()).put("state", state.rawValue)
        .put("rung_at", RingerJson.formatTimestamp(rungAtMs))
        .put("expires_at", RingerJson.formatTimestamp(expiresAtMs))
        .putIfSet("ringing_at", ringingAtMs?.let { RingerJson.formatTimestamp(it) })
        .putIfSet("accepted_at", acceptedAtMs?.let { RingerJson.formatTimestamp(it) })
        .putIfSet("accepted_device_id", acceptedDeviceId)
        .putIfSet("ended_at", endedAtMs?.let { RingerJson.formatTimestamp(it) })
        .putIfSet("ended_by", endedBy)
        .putIfSet("failure_reason", failureReason)
        .putIfSet("waiting", waiting)

    /** Reading. */
    companion object {
        /**
         * Reads a leg; unknown keys are ignored, unknown states kept.
         * @throws RingerWireException when a required field is missing, has the wrong JSON type, or a time is not
         *   an RFC 3339 timestamp.
         */
        @JvmStatic fun fromJson(json: JSONObject): CallLeg {
            val what = "CallLeg"
            return CallLeg(
                user = Party.fromJson(json.reqObject("user", what)),
                state = LegState(json.reqString("state", what)),
                rungAtMs = json.reqTimestamp("rung_at", what),
                expiresAtMs = json.reqTimestamp("expires_at", what),
                ringingAtMs = json.timestampOrNull("ringing_at", what),
                acceptedAtMs = json.timestampOrNull("accepted_at", what),
                acceptedDeviceId = json.stringOrNull("accepted_device_id", what),
                endedAtMs = json.timestampOrNull("ended_at", what),
                endedBy = json.stringOrNull("ended_by", what),
                failureReason = json.stringOrNull("failure_reason", what),
                waiting = json.boolOrNull("waiting", what))
        }

        /** Reads a JSON array of legs. @throws RingerWireException when an item is not a well-formed leg. */
        @JvmStatic fun listFromJson(array: JSONArray, what: String): List<CallLeg> = array.objects(what) { fromJson(it) }

        /** Writes legs as a JSON array. */
        @JvmStatic fun listToJson(legs: List<CallLeg>): JSONArray {
            val array = JSONArray()
            for (leg in legs) array.put(leg.toJson())
            return array
        }
    }
}
