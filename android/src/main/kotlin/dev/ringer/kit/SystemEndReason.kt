package dev.ringer.kit

/**
 * Why the server itself ended an accepted call (the call's `end_reason`; docs/call-lifecycle.md
 * "Accepted calls the server ends"). Set only on calls in state `ended` that no participant hung up.
 * Open: unknown raw values are kept.
 */
data class SystemEndReason(val rawValue: String) {
    /** The raw value. */
    override fun toString(): String = rawValue

    /** The reasons the server sends today. */
    companion object {
        /** Neither party's app was heard from for the idle limit (`--call-idle-timeout`, 120 s by default). */
        @JvmField val CONNECTION_LOST = SystemEndReason("connection_lost")
        /** The call lasted the maximum duration (`--max-call-duration`, 4 h by default). */
        @JvmField val MAXIMUM_DURATION = SystemEndReason("max_duration")
        /** The app's backend ended the call (`POST /v1/server/calls/{call_id}/end`, docs/backend.md). */
        @JvmField val ENDED_BY_BACKEND = SystemEndReason("ended_by_backend")

        /** Every reason this SDK knows. */
        @JvmField val KNOWN: Set<SystemEndReason> = setOf(CONNECTION_LOST, MAXIMUM_DURATION, ENDED_BY_BACKEND)
    }
}
