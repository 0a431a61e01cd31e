package dev.ringer.kit

import org.json.JSONObject

/**
 * A hang-up (decline, cancel or end) the user made that the server has not acknowledged yet.
 *
 * Kept in a [PendingActionStore] until the server answers, so a decline made on the lock screen of a
 * just-woken app still reaches the caller after the process was killed and started again.
 *
 * @property kind what to tell the server.
 * @property callId the call.
 * @property deviceId the device that acted.
 * @property createdAtMs when the user acted, Unix milliseconds.
 */
data class PendingCallAction(val kind: Kind, val callId: String, val deviceId: String, val createdAtMs: Long) {
    /** What to tell the server; [wire] is the stored name. */
    enum class Kind(val wire: String) {
        /** Decline an incoming call (or end it, if an answer reached the server first). */
        DECLINE("decline"),
        /** Cancel an outgoing call (or end it, if the callee answered meanwhile). */
        CANCEL("cancel"),
        /** End an answered call. */
        END("end");

        companion object {
            /** The kind stored as [wire], or null for a name this version does not know. */
            fun fromWire(wire: String): Kind? = values().firstOrNull { it.wire == wire }
        }
    }

    /** `{"kind":"decline","call_id":…,"device_id":…,"created_at_ms":…}`, the stored form. */
    fun toJson(): JSONObject = JSONObject()
        .put("kind", kind.wire)
        .put("call_id", callId)
        .put("device_id", deviceId)
        .put("created_at_ms", createdAtMs)

    companion object {
        /** Reads the stored form; null when a field is missing, of the wrong type, or the kind is unknown. */
        fun fromJson(json: JSONObject): PendingCallAction? {
            val kind = Kind.fromWire(json.optString("kind")) ?: return null
            val callId = json.opt("call_id") as? String ?: return null
            val deviceId = json.opt("device_id") as? String ?: return null
            val createdAt = json.opt("created_at_ms") as? Number ?: return null
            return PendingCallAction(kind, callId, deviceId, createdAt.toLong())
        }
    }
}
