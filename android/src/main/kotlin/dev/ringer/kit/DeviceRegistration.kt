package dev.ringer.kit

import org.json.JSONObject

/**
 * `PUT /v1/devices/{device_id}`: the push tokens of one device of the logged-in user. Android sends
 * [fcmToken]; iOS sends [voipToken] (PushKit) and usually [apnsToken]. A registration is a full replace:
 * a field left null clears what the server held (a missing [readiness] clears the last report).
 *
 * @property platform `android` or `ios`.
 * @property voipToken PushKit VoIP token, hex (iOS).
 * @property apnsToken ordinary APNs device token, hex (iOS).
 * @property apnsEnvironment `sandbox` or `production` (iOS); `production` when null.
 * @property bundleId the app's bundle id (iOS; the VoIP topic is `<bundle_id>.voip`).
 * @property fcmToken Firebase Cloud Messaging registration token: 1…4096 of `A–Z a–z 0–9 - _ : .` (Google
 *   documents no format; real tokens are about 160 such characters).
 * @property fcmProjectId the Firebase project of the token when the server sends through several; null for
 *   the server's default project.
 * @property readiness what the phone found would stop it ringing; null to report nothing.
 */
data class DeviceRegistration(
    val platform: Platform,
    val voipToken: String? = null,
    val apnsToken: String? = null,
    val apnsEnvironment: String? = null,
    val bundleId: String? = null,
    val fcmToken: String? = null,
    val fcmProjectId: String? = null,
    val readiness: DeviceReadiness? = null
) {
    /** The request body: snake_case keys, null fields left out. */
    fun toJson(): JSONObject = JSONObject().put("platform", platform.rawValue)
        .putIfSet("voip_token", voipToken).putIfSet("apns_token", apnsToken)
        .putIfSet("apns_environment", apnsEnvironment).putIfSet("bundle_id", bundleId)
        .putIfSet("fcm_token", fcmToken).putIfSet("fcm_project_id", fcmProjectId)
        .putIfSet("readiness", readiness?.toJson())

    /** Says which tokens are present, never their values (a token and the provider key wake the phone). */
    override fun toString(): String = "DeviceRegistration(platform=$platform, tokens=" +
        presentTokens(voipToken, apnsToken, fcmToken) + ", readiness=${readiness?.problems})"

    /** Shared by the records that hold tokens. */
    internal companion object {
        fun presentTokens(voip: String?, apns: String?, fcm: String?): String {
            val present = listOfNotNull(voip?.let { "voip" }, apns?.let { "apns" }, fcm?.let { "fcm" })
            return if (present.isEmpty()) "none" else present.joinToString(", ", "[", "]")
        }
    }
}
