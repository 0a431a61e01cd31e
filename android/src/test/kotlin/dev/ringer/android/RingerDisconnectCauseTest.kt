package dev.ringer.android

import android.telecom.DisconnectCause
import dev.ringer.kit.CallEndReason
import org.junit.Assert.assertEquals
import org.junit.Test

class RingerDisconnectCauseTest {
    @Test fun answeredElsewhereIsUsedFromApi25WhereTelecomAddedIt() {
        // developer.android.com's API diff 24 -> 25 lists DisconnectCause.ANSWERED_ELSEWHERE (and CALL_PULLED) as added.
        for (sdk in listOf(25, 26, 28, 29, 35)) {
            assertEquals("$sdk", DisconnectCause.ANSWERED_ELSEWHERE, RingerDisconnectCause.forReason(CallEndReason.ANSWERED_ELSEWHERE, sdk).code)
        }
        for (sdk in listOf(23, 24)) {
            assertEquals("$sdk", DisconnectCause.OTHER, RingerDisconnectCause.forReason(CallEndReason.ANSWERED_ELSEWHERE, sdk).code)
        }
    }

    @Test fun otherReasonsDoNotDependOnTheLevel() {
        for (sdk in listOf(24, 26, 35)) {
            assertEquals(DisconnectCause.REMOTE, RingerDisconnectCause.forReason(CallEndReason.REMOTE_ENDED, sdk).code)
            assertEquals(DisconnectCause.MISSED, RingerDisconnectCause.forReason(CallEndReason.UNANSWERED, sdk).code)
            val declined = RingerDisconnectCause.forReason(CallEndReason.DECLINED_ELSEWHERE, sdk)
            assertEquals(DisconnectCause.REJECTED, declined.code)
            assertEquals(RingerDisconnectCause.DECLINED_ELSEWHERE_REASON, declined.reason)
            assertEquals(DisconnectCause.ERROR, RingerDisconnectCause.forReason(CallEndReason.FAILED, sdk).code)
        }
    }
}
