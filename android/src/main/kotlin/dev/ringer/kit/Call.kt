package dev.ringer.kit

import org.json.JSONArray
import org.json.JSONObject

/**
 * A party of a call as shown to the other side.
 * @property id the user id (the user token's `sub`).
 * @property name the display name from the token's `name` claim, when known.
 */
data class Party(val id: String, val name: String? = null) {
    /** `{"id":…,"name":…}`; `name` left out when null. */
    fun toJson(): JSONObject = JSONObject().put("id", id).putIfSet("name", name)

    /** Reading. */
    companion object {
        /** @throws RingerWireException when `id` is missing or a field has the wrong type. */
        @JvmStatic fun fromJson(json: JSONObject): Party =
            Party(json.reqString("id", "Party"), json.stringOrNull("name", "Party"))
    }
}

/**
 * A call as the API returns it (docs/openapi.yaml `components/schemas/Call`). Times are Unix milliseconds,
 * read from the wire's RFC 3339 strings.
 *
 * The [callId] is a lowercase UUID, also the native call UI's id, so one server call is one call on screen.
 * @property expiresAtMs the ring deadline (server clock): after it an unanswered call ends `unanswered`.
 * @property endedBy the user whose action ended the call; null for a timeout, failure or an end by the server.
 * @property endReason why the server ended an accepted call itself; null when a participant hung up.
 * @property failureReason on a `failed` call, words an app can show.
 * @property pushes every push's outcome, only in `GET /v1/calls/{id}` read by the callee.
 * @property calleeReadiness only in `GET /v1/calls/{id}`, either side: what would stop the callee's phones
 *   ringing ([ReadinessProblem] names, sorted, no device named); null when nothing was reported.
 * @property legs a group call's legs, one per callee in the order rung; null for a 1:1 call. A callee reads
 *   [state] and the times above as its own leg's; the caller reads the call's (decision 0007 §1).
 * @property answerPolicy what an answer does in a group call; null for a 1:1 call.
 * @property waiting true when the callee was already in an answered call when this one rang them (call waiting): their
 *   phone shows it as a second call; a group call's callee reads their leg's. Null otherwise (decision 0008 §3).
 */
data class Call(
    val callId: String,
    val state: CallState,
    val caller: Party,
    val callee: Party,
    val hasVideo: Boolean,
    val createdAtMs: Long,
    val expiresAtMs: Long,
    val acceptedAtMs: Long? = null,
    val acceptedDeviceId: String? = null,
    val endedAtMs: Long? = null,
    val endedBy: String? = null,
    val endReason: SystemEndReason? = null,
    val failureReason: String? = null,
    val pushes: List<PushAttempt>? = null,
    val calleeReadiness: List<String>? = null,
    val legs: List<CallLeg>? = null,
    val answerPolicy: AnswerPolicy? = null,
    val waiting: Boolean? = null
) {
    /** Whether this is a group call: it has legs. */
    val isGroup: Boolean get() = legs != null

    /** The leg of [user], when this is a group call and [user] one of its callees. */
    fun legOf(user: String): CallLeg? = legs?.firstOrNull { it.user.id == user }

    /** The call in the server's JSON shape (snake_case keys, RFC 3339 times, nulls left out). */
    fun toJson(): JSONObject {
        val json = JSONObject()
            .put("call_id", callId).put("state", state.rawValue)
            .put("caller", caller.toJson()).put("callee", callee.toJson()).put("has_video", hasVideo)
            .put("created_at", RingerJson.formatTimestamp(createdAtMs))
            .put("expires_at", RingerJson.formatTimestamp(expiresAtMs))
            .putIfSet("accepted_at", acceptedAtMs?.let { RingerJson.formatTimestamp(it) })
            .putIfSet("accepted_device_id", acceptedDeviceId)
            .putIfSet("ended_at", endedAtMs?.let { RingerJson.formatTimestamp(it) })
            .putIfSet("ended_by", endedBy)
            .putIfSet("end_reason", endReason?.rawValue)
            .putIfSet("failure_reason", failureReason)
        if (pushes != null) {
            val array = JSONArray()
            for (push in pushes) array.put(push.toJson())
            json.put("pushes", array)
        }
        if (calleeReadiness != null) json.put("callee_readiness", JSONArray(calleeReadiness))
        if (legs != null) json.put("legs", CallLeg.listToJson(legs))
        json.putIfSet("answer_policy", answerPolicy?.rawValue)
        json.putIfSet("waiting", waiting)
        return json
    }

    /** Reading. */
    companion object {
        /**
         * Reads a call; unknown keys are ignored, unknown states and end reasons kept.
         * @throws RingerWireException when a required field is missing, a field has the wrong JSON type, or a
         *   time is not an RFC 3339 timestamp.
         */
        @JvmStatic fun fromJson(json: JSONObject): Call {
            val what = "Call"
            val pushes = json.arrayOrNull("pushes", what)?.objects("Call.pushes") { PushAttempt.fromJson(it) }
            return Call(
                callId = json.reqString("call_id", what),
                state = CallState(json.reqString("state", what)),
                caller = Party.fromJson(json.reqObject("caller", what)),
                callee = Party.fromJson(json.reqObject("callee", what)),
                hasVideo = json.reqBool("has_video", what),
                createdAtMs = json.reqTimestamp("created_at", what),
                expiresAtMs = json.reqTimestamp("expires_at", what),
                acceptedAtMs = json.timestampOrNull("accepted_at", what),
                acceptedDeviceId = json.stringOrNull("accepted_device_id", what),
                endedAtMs = json.timestampOrNull("ended_at", what),
                endedBy = json.stringOrNull("ended_by", what),
                endReason = json.stringOrNull("end_reason", what)?.let { SystemEndReason(it) },
                failureReason = json.stringOrNull("failure_reason", what),
                pushes = pushes,
                calleeReadiness = json.stringListOrNull("callee_readiness", what),
                legs = json.arrayOrNull("legs", what)?.let { CallLeg.listFromJson(it, "Call.legs") },
                answerPolicy = json.stringOrNull("answer_policy", what)?.let { AnswerPolicy(it) },
                waiting = json.boolOrNull("waiting", what))
        }
    }
}

/**
 * A page of the user's calls (`GET /v1/calls`), newest first.
 * @property nextBefore when the page is full, the id of its last call: pass it as `before` for the next, older
 *   page; null on the last page.
 */
data class CallList(val calls: List<Call>, val nextBefore: String?) {
    /** Reading. */
    companion object {
        /** @throws RingerWireException when `calls` is missing or holds something that is not a call. */
        @JvmStatic fun fromJson(json: JSONObject): CallList {
            val what = "CallList"
            val array = json.arrayOrNull("calls", what) ?: throw RingerWireException("$what.calls is missing")
            val calls = array.objects("$what.calls") { Call.fromJson(it) }
            return CallList(calls, json.stringOrNull("next_before", what))
        }
    }
}

/**
 * The outcome of one push to one device, shown on the call for the callee and operators.
 * @property status the provider's HTTP status; null when no answer came.
 * @property latencyMs time from sending to the answer, milliseconds (fractional).
 * @property attempts requests it took (0 when none could be sent before its deadline).
 * @property sentAtMs when the push was sent, Unix ms.
 * @property readiness the device's [ReadinessProblem] names when the push was sent (its last readiness report
 *   then), so an accepted push still says why the phone may not have rung; null when it had reported none.
 * @property userId group calls: whose device it is (device ids are unique per user only); null for a 1:1 call.
 */
data class PushAttempt(
    val callId: String,
    val deviceId: String,
    val provider: PushProvider,
    val pushType: PushType,
    val status: Int?,
    val reason: String?,
    val apnsId: String?,
    val messageName: String?,
    val latencyMs: Double,
    val attempts: Int,
    val sentAtMs: Long,
    val readiness: List<String>? = null,
    val userId: String? = null
) {
    /** The record in the server's JSON shape; `readiness` and `user_id` left out when null. */
    fun toJson(): JSONObject = JSONObject()
        .put("call_id", callId).put("device_id", deviceId).putIfSet("user_id", userId)
        .put("provider", provider.rawValue).put("push_type", pushType.rawValue).putIfSet("status", status).putIfSet("reason", reason)
        .putIfSet("apns_id", apnsId).putIfSet("message_name", messageName).put("latency_ms", latencyMs)
        .put("attempts", attempts).put("sent_at", RingerJson.formatTimestamp(sentAtMs))
        .putIfSet("readiness", readiness?.let { problems ->
            val array = JSONArray()
            for (problem in problems) array.put(problem)
            array
        })

    /** Reading. */
    companion object {
        /**
         * Reads an attempt; `readiness` names unknown to this build are kept as they are (an open vocabulary).
         * @throws RingerWireException when a required field is missing or has the wrong type, or `readiness`
         *   is not an array of strings.
         */
        @JvmStatic fun fromJson(json: JSONObject): PushAttempt {
            val what = "PushAttempt"
            val readiness = json.stringListOrNull("readiness", what)
            return PushAttempt(
                callId = json.reqString("call_id", what),
                deviceId = json.reqString("device_id", what),
                provider = PushProvider(json.reqString("provider", what)),
                pushType = PushType(json.reqString("push_type", what)),
                status = json.intOrNull("status", what),
                reason = json.stringOrNull("reason", what),
                apnsId = json.stringOrNull("apns_id", what),
                messageName = json.stringOrNull("message_name", what),
                latencyMs = json.reqDouble("latency_ms", what),
                attempts = json.reqInt("attempts", what),
                sentAtMs = json.reqTimestamp("sent_at", what),
                readiness = readiness,
                userId = json.stringOrNull("user_id", what))
        }
    }
}
