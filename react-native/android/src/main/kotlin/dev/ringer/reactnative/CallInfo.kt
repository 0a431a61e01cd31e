package dev.ringer.reactnative

import org.json.JSONObject

/**
 * A call the SDK's coordinator holds, as the events describe it (the `calls` of TestVectors/react-native/events.json).
 * @property direction [INCOMING] or [OUTGOING].
 * @property peer the other party: the caller of an incoming call, the callee of an outgoing one.
 * @property hasVideo whether the call offers video.
 */
data class CallInfo(val direction: String, val peer: Peer, val hasVideo: Boolean) {
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
