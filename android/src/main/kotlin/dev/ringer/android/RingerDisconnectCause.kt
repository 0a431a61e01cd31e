package dev.ringer.android

import android.os.Build
import android.telecom.DisconnectCause
import dev.ringer.kit.CallEndReason

/** The end-reason table of docs/android-integration.md ("End reasons"), in one place. */
object RingerDisconnectCause {
    /** The reason string Telecom logs for a call another device of this user declined. */
    const val DECLINED_ELSEWHERE_REASON = "declined elsewhere"

    /**
     * The `DisconnectCause` for a call the local user did not end (Android: `Connection.setDisconnected`).
     * A reason added by a newer server closes the call as `REMOTE` (ended by the other party), as RingerKit
     * maps it to CallKit's `remoteEnded`.
     * @param sdkInt the device's API level: `ANSWERED_ELSEWHERE` exists from API 25 (Android 7.1; developer.android.com,
     *   API diff 24 to 25 for `android.telecom.DisconnectCause`), `OTHER` before. Self-managed calls need API 26, so
     *   on every device this SDK supports the call closes as `ANSWERED_ELSEWHERE`.
     */
    fun forReason(reason: CallEndReason, sdkInt: Int): DisconnectCause = when (reason) {
        CallEndReason.REMOTE_ENDED -> DisconnectCause(DisconnectCause.REMOTE)
        CallEndReason.UNANSWERED -> DisconnectCause(DisconnectCause.MISSED)
        CallEndReason.ANSWERED_ELSEWHERE -> DisconnectCause(
            if (sdkInt >= Build.VERSION_CODES.N_MR1) DisconnectCause.ANSWERED_ELSEWHERE else DisconnectCause.OTHER
        )
        CallEndReason.DECLINED_ELSEWHERE -> DisconnectCause(DisconnectCause.REJECTED, DECLINED_ELSEWHERE_REASON)
        CallEndReason.FAILED -> DisconnectCause(DisconnectCause.ERROR)
        else -> DisconnectCause(DisconnectCause.REMOTE)
    }
}
