package dev.ringer.kit

/**
 * The type of a call event on the WebSocket (docs/openapi.yaml `components/schemas/EventType`); also the
 * `type` of push bodies. Open: unknown raw values are kept (a newer server may add types).
 *
 * Only [CALL_INCOMING] ever travels as a ringing push (VoIP push or high-priority FCM data message).
 */
data class EventType(val rawValue: String) {
    /** The raw value, as on the wire. */
    override fun toString(): String = rawValue

    /** The types the server sends today. */
    companion object {
        /** A call is ringing this user; show the incoming call UI. */
        @JvmField val CALL_INCOMING = EventType("call.incoming")
        /** A callee device is showing the call (sent to the caller once). */
        @JvmField val CALL_RINGING = EventType("call.ringing")
        /** The callee answered; sent to the caller. */
        @JvmField val CALL_ACCEPTED = EventType("call.accepted")
        /** The callee declined; sent to the caller. */
        @JvmField val CALL_DECLINED = EventType("call.declined")
        /** The caller cancelled before an answer; sent to the callee's devices. */
        @JvmField val CALL_CANCELLED = EventType("call.cancelled")
        /** Another device of the same user answered; stop ringing here. */
        @JvmField val CALL_ANSWERED_ELSEWHERE = EventType("call.answered_elsewhere")
        /** Another device of the same user declined; stop ringing here. */
        @JvmField val CALL_DECLINED_ELSEWHERE = EventType("call.declined_elsewhere")
        /** Nobody answered before the ring deadline; sent to both parties. */
        @JvmField val CALL_UNANSWERED = EventType("call.unanswered")
        /** An accepted call was hung up or ended by the server, or a new call ended at once (busy, failed). */
        @JvmField val CALL_ENDED = EventType("call.ended")
        /**
         * A group call changed in a way no other type names for this recipient (a leg rang, answered, declined, rang
         * out or left, or more callees were rung); carries the whole call with its legs. Never for a 1:1 call, never
         * pushed: update the participants and keep the call's phase.
         */
        @JvmField val CALL_UPDATED = EventType("call.updated")
        /** Not a call event: the stream is live ([StreamReady]). */
        @JvmField val STREAM_READY = EventType("stream.ready")

        /** Every type this SDK knows, for strict readers such as the test-vector runner. */
        @JvmField val KNOWN: Set<EventType> = setOf(CALL_INCOMING, CALL_RINGING, CALL_ACCEPTED, CALL_DECLINED, CALL_CANCELLED,
            CALL_ANSWERED_ELSEWHERE, CALL_DECLINED_ELSEWHERE, CALL_UNANSWERED, CALL_ENDED, CALL_UPDATED, STREAM_READY)
    }
}
