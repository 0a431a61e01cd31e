package dev.ringer.kit

import org.json.JSONObject

/**
 * The frame the server sends on every event-stream connection once any replay is written:
 * `{"type":"stream.ready","seq":41,"server_time_ms":1767225600000}`. Not a call event.
 * @property seq the user's newest event `seq` when the stream went live (0: no event yet); a client that has
 *   seen no event stores it and reconnects with `?since=<seq>`.
 * @property serverTimeMs the server's clock when it sent the frame, Unix ms; null from older servers. Phones
 *   learn the server-minus-phone clock offset from it.
 */
data class StreamReady(val seq: Long, val serverTimeMs: Long? = null, val type: EventType = EventType.STREAM_READY) {
    /** Reading. */
    companion object {
        /**
         * @throws RingerWireException when `type` is not `stream.ready`, or `seq` is missing or not an integer.
         */
        @JvmStatic fun fromJson(json: JSONObject): StreamReady {
            val type = EventType(json.reqString("type", "StreamReady"))
            if (type != EventType.STREAM_READY) throw RingerWireException("StreamReady.type is ${type.rawValue}")
            return StreamReady(json.reqLong("seq", "StreamReady"), json.longOrNull("server_time_ms", "StreamReady"), type)
        }
    }
}
