// TEST-ONLY mirror of Jetpack Core-Telecom 1.0 (see CallAttributesCompat.kt).
package androidx.core.telecom

import android.os.ParcelUuid
import android.telecom.DisconnectCause
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.flow.Flow

/**
 * Mirror of `CallControlScope`: the call's controls, valid from [CallsManager.addCall]'s block until the call ends; a
 * `CoroutineScope` cancelled when it does, so coroutines launched in it (flow collectors) end with the call.
 */
interface CallControlScope : CoroutineScope {
    /** Telecom's id of the call (on API 34+ the platform `CallControl`'s, which `ACTION_CALL_BACK` names). */
    fun getCallId(): ParcelUuid

    /** Makes the call active (an outgoing call answered, a held call resumed). */
    suspend fun setActive(): CallControlResult

    /** Holds the call; only for calls added with [CallAttributesCompat.SUPPORTS_SET_INACTIVE]. */
    suspend fun setInactive(): CallControlResult

    /** Answers an incoming call as [callType] ([CallAttributesCompat.CALL_TYPE_AUDIO_CALL] or `_VIDEO_CALL`). */
    suspend fun answer(callType: Int): CallControlResult

    /** Ends the call with [disconnectCause]; the call's [CallsManager.addCall] then returns. */
    suspend fun disconnect(disconnectCause: DisconnectCause): CallControlResult

    /** Asks Telecom to move the call's audio to [endpoint], one of [availableEndpoints]' latest. */
    suspend fun requestEndpointChange(endpoint: CallEndpointCompat): CallControlResult

    /** The endpoint the call's audio uses now, then each change. */
    val currentCallEndpoint: Flow<CallEndpointCompat>

    /** The endpoints the call can use now, then each change. */
    val availableEndpoints: Flow<List<CallEndpointCompat>>

    /** Whether the platform muted the call's microphone (a headset's or a car's button), then each change. */
    val isMuted: Flow<Boolean>
}
