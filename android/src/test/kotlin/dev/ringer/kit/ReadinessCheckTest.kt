package dev.ringer.kit

import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Test

class ReadinessCheckTest {
    private val now = 1_767_225_600_000L
    private val day = 24L * 60 * 60 * 1000
    private val ready = ReadinessFacts(notificationsEnabled = true, canUseFullScreenIntent = true,
                                       ignoringBatteryOptimizations = true, canManageOwnCalls = true,
                                       fcmToken = "fcm-token-1", tokenObtainedAtMs = now - day)

    @Test
    fun aPhoneWithEverythingGrantedHasNoProblem() {
        assertEquals(emptyList<String>(), ReadinessCheck.evaluate(ready, now))
    }

    @Test
    fun eachDeniedFactIsReportedInTheDocumentedOrder() {
        val facts = ready.copy(notificationsEnabled = false, canUseFullScreenIntent = false,
                               ignoringBatteryOptimizations = false, canManageOwnCalls = false, fcmToken = null)
        assertEquals(ReadinessProblem.KNOWN - ReadinessProblem.PUSH_TOKEN_STALE, ReadinessCheck.evaluate(facts, now))
        assertEquals(listOf(ReadinessProblem.BATTERY_OPTIMIZED),
                     ReadinessCheck.evaluate(ready.copy(ignoringBatteryOptimizations = false), now))
        assertEquals(listOf(ReadinessProblem.CALLS_NOT_PERMITTED),
                     ReadinessCheck.evaluate(ready.copy(canManageOwnCalls = false), now))
    }

    @Test
    fun factsThatDoNotApplyOnThisVersionAddNothing() {
        val facts = ReadinessFacts(fcmToken = "fcm-token-1")
        assertEquals(emptyList<String>(), ReadinessCheck.evaluate(facts, now))
    }

    @Test
    fun anEmptyTokenCountsAsNone() {
        assertEquals(listOf(ReadinessProblem.NO_PUSH_TOKEN),
                     ReadinessCheck.evaluate(ready.copy(fcmToken = "", tokenObtainedAtMs = null), now))
    }

    @Test
    fun aTokenIsStaleOnlyWhenOlderThan270Days() {
        val atLimit = ready.copy(tokenObtainedAtMs = now - 270 * day)
        assertEquals(emptyList<String>(), ReadinessCheck.evaluate(atLimit, now))
        val past = ready.copy(tokenObtainedAtMs = now - 270 * day - 1)
        assertEquals(listOf(ReadinessProblem.PUSH_TOKEN_STALE), ReadinessCheck.evaluate(past, now))
        assertEquals(emptyList<String>(), ReadinessCheck.evaluate(ready.copy(tokenObtainedAtMs = null), now))
    }

    @Test
    fun theTokenNeverAppearsInToString() {
        assertFalse(ready.toString().contains("fcm-token-1"))
    }
}
