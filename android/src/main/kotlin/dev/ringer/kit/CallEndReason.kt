package dev.ringer.kit

/**
 * Why a call ended on this device, in the terms of Android's `DisconnectCause` and CallKit's
 * `CXCallEndedReason` (Apple: `CXProvider.reportCall(with:endedAt:reason:)`). The SDK reports exactly one
 * per call when the native call UI must close for a reason other than the local user's own action.
 * Open: unknown raw values are kept.
 */
data class CallEndReason(val rawValue: String) {
    /** The raw value (`remote_ended`…). */
    override fun toString(): String = rawValue

    /** The reasons the SDK produces. */
    companion object {
        /** The call could not be set up (bad push, server error, lost connection). */
        @JvmField val FAILED = CallEndReason("failed")
        /** The other party hung up, cancelled, declined or was busy. */
        @JvmField val REMOTE_ENDED = CallEndReason("remote_ended")
        /** Nobody answered before the ring deadline. */
        @JvmField val UNANSWERED = CallEndReason("unanswered")
        /** Another device of this user answered. */
        @JvmField val ANSWERED_ELSEWHERE = CallEndReason("answered_elsewhere")
        /** Another device of this user declined. */
        @JvmField val DECLINED_ELSEWHERE = CallEndReason("declined_elsewhere")
        /**
         * The user answered, but the answer never reached the server before the ring deadline (no network the whole
         * time): the call was missed because of the network. Telecom shows it as `DisconnectCause.ERROR`, CallKit as
         * `failed`; the app can say why from this reason. Never sent by the server.
         */
        @JvmField val ANSWER_NOT_DELIVERED = CallEndReason("answer_not_delivered")

        /** Every reason this SDK knows. */
        @JvmField val KNOWN: Set<CallEndReason> =
            setOf(FAILED, REMOTE_ENDED, UNANSWERED, ANSWERED_ELSEWHERE, DECLINED_ELSEWHERE, ANSWER_NOT_DELIVERED)
    }
}
