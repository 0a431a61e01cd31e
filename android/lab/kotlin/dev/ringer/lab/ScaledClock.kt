package dev.ringer.lab

import kotlinx.coroutines.delay

/**
 * A scenario's clock, the same as the Swift scenario runner's `ScenarioClock` and `ringer-lab node
 * --test-time-scale/--test-time-origin`: scenario time equals the wall clock at [originMs] and runs `1 / scale`
 * times faster since, so a 45 s ring-out takes 0.45 s of real time at scale 0.01. Read against the wall clock once,
 * at construction, then on the monotonic clock (`System.nanoTime`), so a wall-clock step does not move it.
 * Processes given the same scale and origin agree on scenario time as far as their wall clocks agree.
 * Immutable and thread-safe.
 *
 * @property scale real seconds per scenario second; anything not above 0 means 1 (real time).
 * @property originMs the Unix milliseconds at which scenario time and real time agree.
 */
class ScaledClock(scale: Double, val originMs: Long) {
    val scale: Double = if (scale > 0) scale else 1.0
    private val realOriginNanos: Long = System.nanoTime() - (System.currentTimeMillis() - originMs) * 1_000_000

    /** Scenario time now, Unix milliseconds. */
    fun nowMs(): Long = originMs + ((System.nanoTime() - realOriginNanos) / 1e6 / scale).toLong()

    /** Real milliseconds that [scenarioMs] of scenario time take (rounded up, so a wait never ends early). */
    fun realMs(scenarioMs: Long): Long = Math.ceil(scenarioMs * scale).toLong()

    /** Suspends until scenario time reaches [untilMs] (Unix milliseconds); at once when it has. */
    suspend fun sleepUntil(untilMs: Long) {
        val left = untilMs - nowMs()
        if (left > 0) delay(realMs(left))
    }

    /** Scenario clocks. */
    companion object {
        /** Real time: scale 1, origin now. */
        fun real(): ScaledClock = ScaledClock(1.0, System.currentTimeMillis())
    }
}
