package dev.ringer.kit

/**
 * Where the server-minus-phone clock offset survives a relaunch, so an FCM message that starts the app is
 * judged on the server's timeline before any event stream connected. Implementations must be thread-safe.
 */
interface ClockOffsetStore {
    /** The stored offset; null when none was stored (or it could not be read). */
    fun load(): StoredClockOffset?

    /** Replaces the stored offset; null forgets it. Never throws. */
    fun save(offset: StoredClockOffset?)
}
