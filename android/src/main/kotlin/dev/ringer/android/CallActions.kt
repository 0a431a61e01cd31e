package dev.ringer.android

/**
 * What the adapters tell the core when the user or the system acts on a call: the user-action half of
 * `CallCoordinator` (docs/android-integration.md, "The user's actions"). [RingerPhone] passes the
 * coordinator's methods through; tests pass a recorder. Implementations are thread-safe and return at once.
 */
interface CallActions {
    /**
     * The user answered. @param completion true once the server confirmed the answer (the call may go
     * active); false when it refused or could not be reached (the call closes with `ERROR`).
     */
    fun answer(callId: String, completion: (Boolean) -> Unit)

    /**
     * The user declined, cancelled or hung up. @param completion true once the hang-up is stored durably (it is
     * then sent and retried until the server acknowledges it).
     */
    fun end(callId: String, completion: (Boolean) -> Unit)

    /** The call's audio may start (its `Connection` went `STATE_ACTIVE`). */
    fun audioSessionActivated()

    /** The call's audio stopped (its active `Connection` was disconnected). */
    fun audioSessionDeactivated()
}
