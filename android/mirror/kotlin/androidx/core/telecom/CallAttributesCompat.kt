// TEST-ONLY mirror of Jetpack Core-Telecom 1.0 (androidx.core:core-telecom), NOT the library: public names, parameter
// types, defaults and constant values as in core/core-telecom/api/current.txt and the sources' KDoc (androidx/androidx),
// so dev.ringer.android compiles and is tested here as it is against the real artifact. Bodies are test doubles;
// members named mirror... are not Core-Telecom API.
package androidx.core.telecom

import android.net.Uri

/** Mirror of `CallAttributesCompat`: what Telecom shows of a call and what the call can do. */
class CallAttributesCompat(
    val displayName: CharSequence,
    val address: Uri,
    val direction: Int,
    val callType: Int = CALL_TYPE_AUDIO_CALL,
    val callCapabilities: Int = SUPPORTS_SET_INACTIVE,
    val preferredStartingCallEndpoint: CallEndpointCompat? = null
) {
    /** Constants, values as in api/current.txt. */
    companion object {
        const val DIRECTION_INCOMING = 1
        const val DIRECTION_OUTGOING = 2
        const val CALL_TYPE_AUDIO_CALL = 1
        const val CALL_TYPE_VIDEO_CALL = 2
        const val SUPPORTS_SET_INACTIVE = 1 shl 1
        const val SUPPORTS_STREAM = 1 shl 2
        const val SUPPORTS_TRANSFER = 1 shl 3
    }
}
