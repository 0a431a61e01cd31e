package dev.ringer.kit

import org.json.JSONArray
import org.json.JSONObject

/**
 * The `ringer` object of a ringing push: a PushKit VoIP push `{"ringer":{…}}` or, as a JSON string, the
 * `data.ringer` value of a high-priority FCM data message (docs/openapi.yaml `VoIPPush`, docs/fcm.md).
 * Times are Unix milliseconds on the server's clock, as the push carries them.
 * @property v payload version; this is version 1.
 * @property type always [EventType.CALL_INCOMING] for a ringing push.
 * @property calleeId the user being called; a phone now logged in as someone else must not ring. Absent from
 *   servers before it was added.
 * @property expiresAtMs the ring deadline (in a group call, the recipient's leg's): a push read after it is stale and
 *   must not ring.
 * @property group present for a group call only: the count rung and some of the others, to show "Alice and 2 others".
 * @property waiting true when the recipient is in another answered call and this one rings as a waiting call; else null.
 */
data class RingerPushBody(
    val callId: String,
    val caller: Party,
    val calleeId: String?,
    val hasVideo: Boolean,
    val sentAtMs: Long,
    val expiresAtMs: Long,
    val v: Int = 1,
    val type: EventType = EventType.CALL_INCOMING,
    val group: PushGroup? = null,
    val waiting: Boolean? = null
) {
    /** The body in its wire shape (`sent_at`/`expires_at` as ms numbers). */
    fun toJson(): JSONObject = JSONObject().put("v", v).put("type", type.rawValue).put("call_id", callId)
        .put("caller", caller.toJson()).putIfSet("callee_id", calleeId).put("has_video", hasVideo)
        .put("sent_at", sentAtMs).put("expires_at", expiresAtMs).putIfSet("group", group?.toJson())
        .putIfSet("waiting", waiting)

    /** Reading. */
    companion object {
        /**
         * Reads the `ringer` object itself (not the whole push).
         * @throws RingerWireException when a required field is missing or has the wrong JSON type.
         */
        @JvmStatic fun fromJson(json: JSONObject): RingerPushBody {
            val what = "RingerPushBody"
            return RingerPushBody(
                callId = json.reqString("call_id", what),
                caller = Party.fromJson(json.reqObject("caller", what)),
                calleeId = json.stringOrNull("callee_id", what),
                hasVideo = json.reqBool("has_video", what),
                sentAtMs = json.reqLong("sent_at", what),
                expiresAtMs = json.reqLong("expires_at", what),
                v = json.reqInt("v", what),
                type = EventType(json.reqString("type", what)),
                group = json.objectOrNull("group", what)?.let { PushGroup.fromJson(it) },
                waiting = json.boolOrNull("waiting", what))
        }

        /**
         * Reads a whole push payload, `{"ringer":{…}}` (other top-level keys are the app's and ignored).
         * @throws RingerWireException when there is no `ringer` object or it is malformed.
         */
        @JvmStatic fun fromPushPayload(json: JSONObject): RingerPushBody =
            fromJson(json.reqObject("ringer", "push"))
    }
}

/**
 * The `group` of a group call's ringing push (decision 0007 §6): `{"count":3,"others":[{"id":"carol"}]}`.
 * @property count the callees rung, the recipient included, so "Alice and `count - 1` others" is exact even when
 *   [others] was cut short to fit the payload.
 * @property others other callees in the order rung, as many as fit the server's 3,072-byte budget, at most 8.
 */
data class PushGroup(val count: Int, val others: List<Party>) {
    /** The group in its wire shape. */
    fun toJson(): JSONObject {
        val array = JSONArray()
        for (party in others) array.put(party.toJson())
        return JSONObject().put("count", count).put("others", array)
    }

    /** Reading. */
    companion object {
        /** @throws RingerWireException when `count` is missing or an entry of `others` is not a party. */
        @JvmStatic fun fromJson(json: JSONObject): PushGroup {
            val what = "PushGroup"
            val others = json.arrayOrNull("others", what)?.objects("PushGroup.others") { Party.fromJson(it) } ?: emptyList()
            return PushGroup(json.reqInt("count", what), others)
        }
    }
}
