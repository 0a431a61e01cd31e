package dev.ringer.kit

/**
 * Where [PhoneCallMachine.Memory] (the calls that ended, the answers the server has not confirmed) survives the
 * app's process, so a new process neither rings a call that is over nor forgets an answer the user gave. The
 * [CallCoordinator] saves under its lock before it carries out what a change decided (an answer is stored before
 * its accept is sent). Implementations must be thread-safe. Swift: `CallMemoryStore`.
 */
interface CallMemoryStore {
    /** The stored memory; empty when none is stored or it cannot be read. Never throws. */
    fun load(): PhoneCallMachine.Memory

    /** Replaces the stored memory. Never throws: a failed write leaves the previous memory stored. */
    fun save(memory: PhoneCallMachine.Memory)
}
