package dev.ringer.android

import dev.ringer.kit.AudioOutput
import dev.ringer.kit.CallCoordinator

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

    /**
     * The call was held or resumed (Telecom's `onHold`/`onUnhold`, or the call UI carrying out the core's request).
     * @return true when the core took it (the `Connection` goes on hold or active then); false for a call that is not
     *   answered, or over.
     */
    fun hold(callId: String, held: Boolean): Boolean

    /**
     * The call was muted or unmuted (the app's request: a self-managed call's microphone is the app's own).
     * @return true when the core took it; false for a call over.
     */
    fun mute(callId: String, muted: Boolean): Boolean

    /**
     * Keypad tones were played on the call (`onPlayDtmfTone` from a system surface, or the app's request: a
     * self-managed call's tones are the app's media).
     * @return true when the core took them; false for a call without the audio or a key not on the keypad.
     */
    fun dtmf(callId: String, digits: String): Boolean

    /**
     * Telecom reported the phone's audio route: [current] is the id of one of [outputs], or null.
     */
    fun audioRouteChanged(current: String?, outputs: List<AudioOutput>)
}

/**
 * The coordinator as the adapters' [CallActions]: what [RingerPhone] attaches to its call UI, and what a test wiring a
 * [CallCoordinator] to a [TelecomCallUi] attaches.
 */
class CoordinatorActions(private val coordinator: CallCoordinator) : CallActions {
    override fun answer(callId: String, completion: (Boolean) -> Unit) = coordinator.answer(callId, completion)
    override fun end(callId: String, completion: (Boolean) -> Unit) = coordinator.end(callId, completion)
    override fun audioSessionActivated() = coordinator.audioSessionActivated()
    override fun audioSessionDeactivated() = coordinator.audioSessionDeactivated()
    override fun hold(callId: String, held: Boolean): Boolean = coordinator.hold(callId, held)
    override fun mute(callId: String, muted: Boolean): Boolean = coordinator.mute(callId, muted)
    override fun dtmf(callId: String, digits: String): Boolean = coordinator.dtmf(callId, digits)
    override fun audioRouteChanged(current: String?, outputs: List<AudioOutput>) =
        coordinator.audioOutputsChanged(current, outputs)
}
