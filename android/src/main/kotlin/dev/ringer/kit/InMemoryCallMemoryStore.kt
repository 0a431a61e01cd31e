package dev.ringer.kit

/**
 * Keeps the call memory in this process only (tests, or an app that accepts losing it with the process: a late
 * push may then ring a call that is over, and an unconfirmed answer is lost). Thread-safe.
 * @param memory what it holds at first.
 */
class InMemoryCallMemoryStore(memory: PhoneCallMachine.Memory = PhoneCallMachine.Memory()) : CallMemoryStore {
    @Volatile private var memory: PhoneCallMachine.Memory = memory

    override fun load(): PhoneCallMachine.Memory = memory

    override fun save(memory: PhoneCallMachine.Memory) {
        this.memory = memory
    }
}
