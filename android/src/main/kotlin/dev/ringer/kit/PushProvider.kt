package dev.ringer.kit

/** The push service a push record went through (`apns`, `fcm`). Open: unknown raw values are kept. */
data class PushProvider(val rawValue: String) {
    /** The raw value. */
    override fun toString(): String = rawValue

    /** The providers the server uses. */
    companion object {
        /** Apple Push Notification service. */
        @JvmField val APNS = PushProvider("apns")
        /** Firebase Cloud Messaging HTTP v1. */
        @JvmField val FCM = PushProvider("fcm")
    }
}

/**
 * What kind of push a record shows (`push_type`): APNs' `apns-push-type`, or an FCM message's
 * `android.priority` lowercased (Google: `AndroidMessagePriority`). Open: unknown raw values are kept.
 */
data class PushType(val rawValue: String) {
    /** The raw value. */
    override fun toString(): String = rawValue

    /** The kinds the server records. */
    companion object {
        /** APNs: a PushKit VoIP push. */
        @JvmField val VOIP = PushType("voip")
        /** APNs: an alert the system shows. */
        @JvmField val ALERT = PushType("alert")
        /** APNs: a background push (`content-available`). */
        @JvmField val BACKGROUND = PushType("background")
        /** FCM: a high-priority message. */
        @JvmField val HIGH = PushType("high")
        /** FCM: a normal-priority message. */
        @JvmField val NORMAL = PushType("normal")
    }
}
