package dev.ringer.kit

import org.junit.Assert.assertEquals
import org.junit.Test

class BackoffTest {
    private val backoff = Backoff(initialDelayMs = 250, maximumDelayMs = 30_000)

    @Test
    fun ceilingDoublesPerRetryUpToTheCap() {
        assertEquals(250L, backoff.ceilingMs(1))
        assertEquals(500L, backoff.ceilingMs(2))
        assertEquals(1_000L, backoff.ceilingMs(3))
        assertEquals(16_000L, backoff.ceilingMs(7))
        assertEquals(30_000L, backoff.ceilingMs(8))
        assertEquals(30_000L, backoff.ceilingMs(10_000))
    }

    @Test
    fun retriesBelowOneCountAsTheFirst() {
        assertEquals(250L, backoff.ceilingMs(0))
        assertEquals(250L, backoff.ceilingMs(-5))
    }

    @Test
    fun equalJitterWaitsBetweenHalfAndAllOfTheCeiling() {
        assertEquals(500L, backoff.delayMs(3, 0.0))
        assertEquals(750L, backoff.delayMs(3, 0.5))
        assertEquals(1_000L, backoff.delayMs(3, 1.0))
    }

    @Test
    fun randomOutsideTheUnitIntervalIsClamped() {
        assertEquals(500L, backoff.delayMs(3, -1.0))
        assertEquals(1_000L, backoff.delayMs(3, 7.0))
        assertEquals(500L, backoff.delayMs(3, Double.NaN))
    }

    @Test
    fun negativeParametersNeverGiveANegativeWait() {
        val odd = Backoff(initialDelayMs = -10, maximumDelayMs = -20)
        assertEquals(0L, odd.ceilingMs(3))
        assertEquals(0L, odd.delayMs(3, 1.0))
        assertEquals(0L, Backoff(initialDelayMs = 100, maximumDelayMs = -1).delayMs(1, 1.0))
    }
}
