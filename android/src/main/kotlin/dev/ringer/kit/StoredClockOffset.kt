package dev.ringer.kit

/**
 * A learned server-minus-phone clock offset as kept across launches, with the phone's boot time (on its wall
 * clock) when it was learned: a wall clock set since (by the user, or the network's time) moves the boot time,
 * and the offset is then dropped instead of misjudging every push by the change. On Android the boot time is
 * `System.currentTimeMillis() - SystemClock.elapsedRealtime()`.
 *
 * @property offsetMs the server's clock minus the phone's, milliseconds.
 * @property bootTimeMs the phone's wall-clock time of its boot when the offset was learned, Unix milliseconds.
 */
data class StoredClockOffset(val offsetMs: Long, val bootTimeMs: Long)
