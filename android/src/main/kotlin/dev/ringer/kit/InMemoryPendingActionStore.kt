package dev.ringer.kit

/** Keeps pending hang-ups in memory only (tests, or apps that accept losing them with the process). Thread-safe. */
class InMemoryPendingActionStore : PendingActionStore {
    private val lock = Any()
    private var actions: List<PendingCallAction> = emptyList()

    override fun load(): List<PendingCallAction> = synchronized(lock) { actions }

    override fun save(actions: List<PendingCallAction>) = synchronized(lock) { this.actions = actions.toList() }
}
