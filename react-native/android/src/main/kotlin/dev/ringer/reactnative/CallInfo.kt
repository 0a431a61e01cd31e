package dev.ringer.reactnative

import dev.ringer.kit.PushGroup
import org.json.JSONArray
import org.json.JSONObject

/**
 * A call the SDK's coordinator holds, as the events describe it (the `calls` of TestVectors/react-native/events.json).
 * @property direction [INCOMING] or [OUTGOING].
 * @property peer the other party: the caller of an incoming call, the callee of an outgoing one.
 * @property hasVideo whether the call offers video.
 * @property group an incoming group call's `group` from its push (the count rung, some of the others); else null.
 * @property waiting an incoming call that rang while this user was in another call (the server's `waiting`).
 */
data class CallInfo(
    val direction: String,
    val peer: Peer,
    val hasVideo: Boolean,
    val group: PushGroup? = null,
    val waiting: Boolean = false
) {
    /** `incoming`'s `group`: `{count, others: [{id, name}]}` with names null rather than missing, or JSON null. */
    fun groupJson(): Any {
        val group = group ?: return JSONObject.NULL
        val others = JSONArray()
        for (party in group.others) others.put(Peer(party.id, party.name).toJson())
        return JSONObject().put("count", group.count).put("others", others)
    }

    /** A party of a call: its user id and display name, when known. */
    data class Peer(val id: String, val name: String?) {
        /** `{"id": …, "name": … | null}`: the name is null, never missing, when unknown. */
        fun toJson(): JSONObject = JSONObject().put("id", id).put("name", name ?: JSONObject.NULL)
    }

    /** The directions, as JavaScript spells them. */
    companion object {
        const val INCOMING = "incoming"
        const val OUTGOING = "outgoing"
    }
}
