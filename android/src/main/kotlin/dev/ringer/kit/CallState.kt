package dev.ringer.kit

/**
 * The state of a call as the server records it (docs/openapi.yaml `components/schemas/CallState`;
 * docs/call-lifecycle.md). `ringing` and `accepted` are live; every other state is final.
 *
 * An open value set, like every wire enum: any raw string is kept, so a state added by a newer server
 * still parses and compares unequal to the known ones (Swift's `OpenStringEnum`).
 */
data class CallState(val rawValue: String) {
    /** True for `ringing` and `accepted`; false for every final state, including unknown ones. */
    val isLive: Boolean get() = this == RINGING || this == ACCEPTED

    /** The raw value, as on the wire. */
    override fun toString(): String = rawValue

    /** The states the server sends today. */
    companion object {
        /** The callee's devices are being rung; nobody has answered yet. */
        @JvmField val RINGING = CallState("ringing")
        /** One callee device answered. */
        @JvmField val ACCEPTED = CallState("accepted")
        /** A callee device declined before anyone answered. */
        @JvmField val DECLINED = CallState("declined")
        /** The caller gave up before anyone answered. */
        @JvmField val CANCELLED = CallState("cancelled")
        /** Nobody answered before the ring deadline (`--ring-timeout`, 45 s by default). */
        @JvmField val UNANSWERED = CallState("unanswered")
        /** The callee was already in an accepted call. */
        @JvmField val BUSY = CallState("busy")
        /** An accepted call is over: a party hung up or the server ended it ([Call.endReason]). */
        @JvmField val ENDED = CallState("ended")
        /** The call could not ring at all (for example the callee has no reachable device). */
        @JvmField val FAILED = CallState("failed")

        /** Every state this SDK knows, for strict readers such as the test-vector runner. */
        @JvmField val KNOWN: Set<CallState> = setOf(RINGING, ACCEPTED, DECLINED, CANCELLED, UNANSWERED, BUSY, ENDED, FAILED)
    }
}
