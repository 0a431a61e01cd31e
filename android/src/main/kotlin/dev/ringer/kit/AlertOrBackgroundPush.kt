package dev.ringer.kit

import org.json.JSONObject

/**
 * The payload of an alert or background push about a call that changed:
 * `{"aps":{…},"ringer":{"v":1,"type":"call.cancelled","call_id":"…"}}`. On Android its [Body] arrives as the
 * `data.ringer` string of an FCM data message (docs/fcm.md). Never a ringing push.
 */
data class AlertOrBackgroundPush(val aps: Aps, val ringer: Body) {
    /** The payload in its wire shape. */
    fun toJson(): JSONObject = JSONObject().put("aps", aps.toJson()).put("ringer", ringer.toJson())

    /**
     * Apple's `aps` dictionary (Apple: "Generating a remote notification").
     * @property contentAvailable 1 for a background push that wakes the running app without showing anything.
     */
    data class Aps(val alert: Alert? = null, val sound: String? = null, val contentAvailable: Int? = null) {
        /** The dictionary in its wire shape (`content-available`). */
        fun toJson(): JSONObject = JSONObject().putIfSet("alert", alert?.toJson()).putIfSet("sound", sound)
            .putIfSet("content-available", contentAvailable)

        /** Reading. */
        companion object {
            /** @throws RingerWireException when a field has the wrong JSON type. */
            @JvmStatic fun fromJson(json: JSONObject): Aps = Aps(
                json.objectOrNull("alert", "Aps")?.let { Alert.fromJson(it) },
                json.stringOrNull("sound", "Aps"),
                json.intOrNull("content-available", "Aps"))
        }
    }

    /** A visible alert, e.g. title "Missed call" and the caller's name as body. */
    data class Alert(val title: String, val body: String) {
        /** The alert in its wire shape. */
        fun toJson(): JSONObject = JSONObject().put("title", title).put("body", body)

        /** Reading. */
        companion object {
            /** @throws RingerWireException when `title` or `body` is missing or not a string. */
            @JvmStatic fun fromJson(json: JSONObject): Alert =
                Alert(json.reqString("title", "Alert"), json.reqString("body", "Alert"))
        }
    }

    /**
     * What changed.
     * @property type `call.answered_elsewhere`, `call.declined_elsewhere`, `call.cancelled` or `call.unanswered`.
     */
    data class Body(val type: EventType, val callId: String, val v: Int = 1) {
        /** The body in its wire shape. */
        fun toJson(): JSONObject = JSONObject().put("v", v).put("type", type.rawValue).put("call_id", callId)

        /** Reading. */
        companion object {
            /** @throws RingerWireException when `v`, `type` or `call_id` is missing or has the wrong type. */
            @JvmStatic fun fromJson(json: JSONObject): Body = Body(
                EventType(json.reqString("type", "AlertOrBackgroundPush.Body")),
                json.reqString("call_id", "AlertOrBackgroundPush.Body"),
                json.reqInt("v", "AlertOrBackgroundPush.Body"))
        }
    }

    /** Reading. */
    companion object {
        /** @throws RingerWireException when `aps` or `ringer` is missing or malformed. */
        @JvmStatic fun fromJson(json: JSONObject): AlertOrBackgroundPush = AlertOrBackgroundPush(
            Aps.fromJson(json.reqObject("aps", "AlertOrBackgroundPush")),
            Body.fromJson(json.reqObject("ringer", "AlertOrBackgroundPush")))
    }
}
