// TEST-ONLY mirror of Jetpack Core-Telecom 1.0 (see CallAttributesCompat.kt).
package androidx.core.telecom

import android.os.ParcelUuid

/** Mirror of `CallEndpointCompat`: an audio endpoint a call can use. Equal by all three properties, as a data value. */
class CallEndpointCompat(val name: CharSequence, val type: Int, val identifier: ParcelUuid) : Comparable<CallEndpointCompat> {
    /** The library sorts by type (earpiece, wired, Bluetooth, speaker, streaming, unknown), then by name. */
    override fun compareTo(other: CallEndpointCompat): Int {
        val byType = rank(type).compareTo(rank(other.type))
        return if (byType != 0) byType else name.toString().compareTo(other.name.toString())
    }

    override fun equals(other: Any?): Boolean =
        other is CallEndpointCompat && other.name.toString() == name.toString() && other.type == type && other.identifier == identifier

    override fun hashCode(): Int = identifier.hashCode()

    override fun toString(): String = "CallEndpoint($name, $type, $identifier)"

    private fun rank(type: Int): Int = if (type == TYPE_UNKNOWN) Int.MAX_VALUE else type

    /** Types, values as in api/current.txt. */
    companion object {
        const val TYPE_UNKNOWN = -1
        const val TYPE_EARPIECE = 1
        const val TYPE_BLUETOOTH = 2
        const val TYPE_WIRED_HEADSET = 3
        const val TYPE_SPEAKER = 4
        const val TYPE_STREAMING = 5
    }
}
