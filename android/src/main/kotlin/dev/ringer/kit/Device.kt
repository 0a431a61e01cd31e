package dev.ringer.kit

import org.json.JSONObject

/**
 * A registered device as the API returns it (`PUT /v1/devices/{id}`).
 *
 * @property deviceId the app-chosen device id (stable per install).
 * @property userId the user the device is registered to.
 * @property platform `android` or `ios`.
 * @property voipToken PushKit VoIP token, hex.
 * @property apnsToken ordinary APNs device token, hex.
 * @property apnsEnvironment `sandbox` or `production`.
 * @property bundleId the app's bundle id.
 * @property fcmToken FCM registration token.
 * @property fcmProjectId the Firebase project of the FCM token; null for the server's default project.
 * @property updatedAtMs when the registration last changed (server clock), Unix milliseconds.
 * @property pushProblem set when the push service refused a token in a way a new registration fixes.
 * @property readiness the phone's last readiness report, problems de-duplicated and sorted, `reported_at` the
 *   server's time; null when its last registration carried none.
 */
data class Device(
    val deviceId: String,
    val userId: String,
    val platform: Platform,
    val voipToken: String? = null,
    val apnsToken: String? = null,
    val apnsEnvironment: String? = null,
    val bundleId: String? = null,
    val fcmToken: String? = null,
    val fcmProjectId: String? = null,
    val updatedAtMs: Long,
    val pushProblem: PushProblem? = null,
    val readiness: DeviceReadiness? = null
) {
    /** The record in the server's JSON shape. */
    fun toJson(): JSONObject = JSONObject().put("device_id", deviceId).put("user_id", userId)
        .put("platform", platform.rawValue)
        .putIfSet("voip_token", voipToken).putIfSet("apns_token", apnsToken)
        .putIfSet("apns_environment", apnsEnvironment).putIfSet("bundle_id", bundleId)
        .putIfSet("fcm_token", fcmToken).putIfSet("fcm_project_id", fcmProjectId)
        .put("updated_at", RingerJson.formatTimestamp(updatedAtMs))
        .putIfSet("push_problem", pushProblem?.toJson()).putIfSet("readiness", readiness?.toJson())

    /** Says which tokens are present, never their values. */
    override fun toString(): String = "Device(deviceId=$deviceId, userId=$userId, platform=$platform, tokens=" +
        DeviceRegistration.presentTokens(voipToken, apnsToken, fcmToken) + ", updatedAtMs=$updatedAtMs, " +
        "pushProblem=$pushProblem, readiness=$readiness)"

    /** Reading. */
    companion object {
        /** @throws RingerWireException when a required field is missing or a field has the wrong type. */
        @JvmStatic fun fromJson(json: JSONObject): Device {
            val what = "Device"
            return Device(
                deviceId = json.reqString("device_id", what),
                userId = json.reqString("user_id", what),
                platform = Platform(json.reqString("platform", what)),
                voipToken = json.stringOrNull("voip_token", what),
                apnsToken = json.stringOrNull("apns_token", what),
                apnsEnvironment = json.stringOrNull("apns_environment", what),
                bundleId = json.stringOrNull("bundle_id", what),
                fcmToken = json.stringOrNull("fcm_token", what),
                fcmProjectId = json.stringOrNull("fcm_project_id", what),
                updatedAtMs = json.reqTimestamp("updated_at", what),
                pushProblem = json.objectOrNull("push_problem", what)?.let { PushProblem.fromJson(it) },
                readiness = json.objectOrNull("readiness", what)?.let { DeviceReadiness.fromJson(it) })
        }
    }
}
