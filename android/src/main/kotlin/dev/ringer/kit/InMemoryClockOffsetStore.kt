package dev.ringer.kit

/**
 * Keeps the clock offset in memory only (tests, simulated phones, or apps that relearn it every launch).
 * Thread-safe.
 *
 * @param offset an offset known already; null for none.
 */
class InMemoryClockOffsetStore(offset: StoredClockOffset? = null) : ClockOffsetStore {
    private val lock = Any()
    private var offset: StoredClockOffset? = offset

    override fun load(): StoredClockOffset? = synchronized(lock) { offset }

    override fun save(offset: StoredClockOffset?) = synchronized(lock) { this.offset = offset }
}
