package dev.ringer.kit

import kotlin.math.pow

/**
 * How long to wait before trying again after a failure: exponential backoff with "equal jitter", Ringer's
 * one retry timing (request retries and event-stream reconnects here; the server's push retries), each use
 * with its own parameters.
 *
 * The ceiling before retry n is `min(maximumDelayMs, initialDelayMs × 2^(n-1))`; the wait is half of it plus
 * a random part of up to the other half, so clients that failed together do not retry in step and none
 * retries sooner than half the ceiling (AWS Architecture Blog, "Exponential Backoff and Jitter").
 * A pure value: the random number is an argument, so callers inject their randomness and tests fix it.
 *
 * @property initialDelayMs ceiling of the first retry's wait, milliseconds (negative counts as 0).
 * @property maximumDelayMs cap of every ceiling, milliseconds (negative counts as 0).
 */
data class Backoff(val initialDelayMs: Long, val maximumDelayMs: Long) {
    /**
     * The longest wait before a retry, without jitter.
     * @param retry 1 for the first retry; smaller values count as 1.
     * @return milliseconds, never negative.
     */
    fun ceilingMs(retry: Int): Long {
        // 2^30 × any sane initial delay is past every cap; the bound keeps the power finite.
        val exponent = (retry - 1).coerceIn(0, 30).toDouble()
        val uncapped = initialDelayMs.coerceAtLeast(0).toDouble() * 2.0.pow(exponent)
        return minOf(maximumDelayMs.toDouble(), uncapped).coerceAtLeast(0.0).toLong()
    }

    /**
     * The wait before a retry.
     * @param retry 1 for the first retry; smaller values count as 1.
     * @param random a number in `0..1` (clamped; NaN counts as 0): 0 waits half the ceiling, 1 the whole.
     * @return milliseconds, never negative.
     */
    fun delayMs(retry: Int, random: Double): Long {
        val ceiling = ceilingMs(retry).toDouble()
        val unit = if (random.isNaN()) 0.0 else random.coerceIn(0.0, 1.0)
        return Math.round(ceiling / 2 + ceiling / 2 * unit)
    }
}
