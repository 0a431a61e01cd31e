package dev.ringer.kit

import org.json.JSONObject

/**
 * Why the push service refused one of a device's tokens in a way the app's next registration can fix, so the
 * server kept the token and marked the device (cleared by the next `PUT /v1/devices/{id}`). FCM's
 * `SENDER_ID_MISMATCH`, for instance, means the token belongs to another Firebase project.
 *
 * @property reason the provider's reason, e.g. `BadDeviceToken`.
 * @property token which token was refused: `voip_token`, `apns_token` or `fcm_token` (the field name, not the value).
 * @property atMs when the push service said so, Unix milliseconds.
 */
data class PushProblem(val reason: String, val token: String, val atMs: Long) {
    /** `{"reason":…,"token":…,"at":"…"}`. */
    fun toJson(): JSONObject = JSONObject().put("reason", reason).put("token", token)
        .put("at", RingerJson.formatTimestamp(atMs))

    /** Reading. */
    companion object {
        /** @throws RingerWireException when a field is missing or has the wrong type. */
        @JvmStatic fun fromJson(json: JSONObject): PushProblem {
            val what = "PushProblem"
            return PushProblem(json.reqString("reason", what), json.reqString("token", what),
                               json.reqTimestamp("at", what))
        }
    }
}
