package dev.ringer.kit

/**
 * The phone's boot time on its own wall clock (Swift: RingerKit's `PhoneBootTime`): now minus the time since
 * boot, sleep included. It stays put while the wall clock runs and moves by exactly the change when the wall
 * clock is set, which is how the SDK notices that a learned clock offset no longer holds. On Android read it
 * as `System.currentTimeMillis() - SystemClock.elapsedRealtime()` (the platform adapter passes that to
 * [CallCoordinator]; this core has no `android.*`).
 */
object PhoneBootTime {
    /**
     * Milliseconds a boot time may wander (clock reads, the wall clock's own slewing) before the wall clock
     * counts as set: the same 2 s within which two clock samples count as one clock.
     */
    const val TOLERANCE_MS: Long = 2_000

    /**
     * Whether the wall clock was set between two boot-time readings.
     * @param earlierMs the boot time read then, Unix ms.
     * @param laterMs the boot time read now, Unix ms.
     * @return true when they differ by more than [TOLERANCE_MS].
     */
    fun wallClockWasSet(earlierMs: Long, laterMs: Long): Boolean = Math.abs(laterMs - earlierMs) > TOLERANCE_MS
}
