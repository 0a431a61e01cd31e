package dev.ringer.kit

/** Where unacknowledged hang-ups survive process death and relaunch. Implementations must be thread-safe. */
interface PendingActionStore {
    /** Every stored action, oldest first; empty when none (or none could be read). */
    fun load(): List<PendingCallAction>

    /** Replaces the stored actions. Never throws: a failed write leaves the previous list stored. */
    fun save(actions: List<PendingCallAction>)
}
