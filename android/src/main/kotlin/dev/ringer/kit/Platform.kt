package dev.ringer.kit

/**
 * The operating system of a registered device, which decides how the server wakes it. Open: unknown raw
 * values are kept (the server refuses to register one).
 */
data class Platform(val rawValue: String) {
    /** The raw value. */
    override fun toString(): String = rawValue

    /** The platforms the server knows. */
    companion object {
        /** iPhone/iPad: woken by a PushKit VoIP push through APNs. */
        @JvmField val IOS = Platform("ios")
        /** Android: woken by a high-priority FCM HTTP v1 data message (docs/fcm.md). */
        @JvmField val ANDROID = Platform("android")
    }
}
