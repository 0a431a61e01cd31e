package dev.ringer.android

import android.telecom.DisconnectCause
import dev.ringer.kit.CallEndReason

/** The end-reason table of docs/android-integration.md ("End reasons"), in one place. */
object RingerDisconnectCause {
    /** The reason string Telecom logs for a call another device of this user declined. */
    const val DECLINED_ELSEWHERE_REASON = "declined elsewhere"

    /** The reason string Telecom logs for a call whose answer never reached the server before its ring deadline. */
    const val ANSWER_NOT_DELIVERED_REASON = "answer not delivered"

    /**
     * The `DisconnectCause` for a call the local user did not end (Android: `Connection.setDisconnected`):
     * `remote_ended` → REMOTE, `unanswered` → MISSED, `answered_elsewhere` → ANSWERED_ELSEWHERE, `declined_elsewhere`
     * → REJECTED with "declined elsewhere", `failed` → ERROR, `answer_not_delivered` → ERROR with "answer not
     * delivered" (as RingerSandbox's `DisconnectCause(endReason:)`).
     * A reason added by a newer server closes the call as `REMOTE` (ended by the other party), as RingerKit
     * maps it to CallKit's `remoteEnded`. `ANSWERED_ELSEWHERE` needs no API-level gate: it exists from API 25
     * (Android's API 24→25 diff of `DisconnectCause`), below the library's minSdk 26.
     */
    fun forReason(reason: CallEndReason): DisconnectCause = when (reason) {
        CallEndReason.REMOTE_ENDED -> DisconnectCause(DisconnectCause.REMOTE)
        CallEndReason.UNANSWERED -> DisconnectCause(DisconnectCause.MISSED)
        CallEndReason.ANSWERED_ELSEWHERE -> DisconnectCause(DisconnectCause.ANSWERED_ELSEWHERE)
        CallEndReason.DECLINED_ELSEWHERE -> DisconnectCause(DisconnectCause.REJECTED, DECLINED_ELSEWHERE_REASON)
        CallEndReason.FAILED -> DisconnectCause(DisconnectCause.ERROR)
        // The network failed the user, who did answer: an error, not a missed call.
        CallEndReason.ANSWER_NOT_DELIVERED -> DisconnectCause(DisconnectCause.ERROR, ANSWER_NOT_DELIVERED_REASON)
        else -> DisconnectCause(DisconnectCause.REMOTE)
    }
}
