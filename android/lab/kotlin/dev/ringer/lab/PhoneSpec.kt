package dev.ringer.lab

import org.json.JSONObject

/**
 * What the user does when the phone rings (Swift: `CalleeBehaviour`), in scenario seconds after it starts ringing.
 * @property action `answer`, `decline` or `ignore`.
 * @property afterSeconds the delay in scenario seconds (0 for `ignore`).
 */
class Behaviour(val action: String, val afterSeconds: Double) {
    /** Parsing. */
    companion object {
        /** Let it ring. */
        val IGNORE = Behaviour("ignore", 0.0)

        /**
         * `{"answer_after": s}`, `{"decline_after": s}` or `{"ignore": true}` (the scenario files' shape); null is
         * [IGNORE]. @throws HostError `bad_request` for anything else or a negative delay.
         */
        fun parse(json: JSONObject?): Behaviour {
            if (json == null) return IGNORE
            val answer = json.opt("answer_after")
            val decline = json.opt("decline_after")
            val chosen = listOfNotNull(answer?.let { "answer" to it }, decline?.let { "decline" to it })
            if (chosen.isEmpty() && json.optBoolean("ignore", false)) return IGNORE
            if (chosen.size != 1) throw HostError("bad_request", "`behaviour` must be one of answer_after, decline_after, ignore")
            val (action, value) = chosen[0]
            if (value !is Number || value.toDouble() < 0) throw HostError("bad_request", "`${action}_after` must be seconds, at least 0")
            return Behaviour(action, value.toDouble())
        }
    }
}

/**
 * An `add_phone` request, read (docs/android-phone-host.md, "add_phone").
 * @property name the phone's name, unique in the host (the scenario's device id is a good one).
 * @property userId the user the app logs in as (for the log; the token decides).
 * @property deviceId the app's device id for the server.
 * @property userToken the stored login, or null when nobody is logged in. Never logged or echoed.
 * @property apiLevel the API level, 26 (the SDK's minSdk) to 35.
 * @property granted the permissions granted at the start.
 * @property appState the app's state once installed and opened.
 * @property locked whether the keyguard shows.
 * @property dozing whether the phone starts in Doze.
 * @property online whether the phone starts with a network.
 * @property behaviour what the user does when it rings.
 * @property serverUrl the Ringer server this phone's app uses, or null for `start`'s `server_url` (a cluster gives each
 *   phone a balancer port that prefers its own node).
 * @property callUi the app's call UI: [CALL_UI_CONNECTION_SERVICE] (the SDK's default) or [CALL_UI_CORE_TELECOM].
 */
class PhoneSpec(
    val name: String,
    val userId: String,
    val deviceId: String,
    val userToken: String?,
    val apiLevel: Int,
    val granted: Set<LabPermission>,
    val appState: AppState,
    val locked: Boolean,
    val dozing: Boolean,
    val online: Boolean,
    val behaviour: Behaviour,
    val serverUrl: String? = null,
    val callUi: String = CALL_UI_CONNECTION_SERVICE
) {
    /** Parsing. */
    companion object {
        /** `call_ui`: the self-managed `ConnectionService` (`CallUiKind.CONNECTION_SERVICE`). */
        const val CALL_UI_CONNECTION_SERVICE = "connection_service"
        /** `call_ui`: Jetpack Core-Telecom (`CallUiKind.CORE_TELECOM`). */
        const val CALL_UI_CORE_TELECOM = "core_telecom"

        /** Reads an `add_phone` request. @throws HostError `bad_request` naming the first bad field. */
        fun parse(request: JSONObject): PhoneSpec {
            val apiLevel = RequestFields.number(request, "api_level", 35.0)
            if (apiLevel != Math.floor(apiLevel) || apiLevel < 26 || apiLevel > 35) {
                throw HostError("bad_request", "`api_level` must be a whole number from 26 to 35")
            }
            val granted = LabPermission.values().toMutableSet()
            request.optJSONObject("permissions")?.let { permissions ->
                for (key in permissions.keys()) {
                    val permission = LabPermission.of(key) ?: throw HostError("bad_request", "unknown permission `$key`")
                    if (!RequestFields.boolean(permissions, key)) granted.remove(permission)
                }
            }
            if (request.has("full_screen_intent_allowed") && !RequestFields.boolean(request, "full_screen_intent_allowed")) {
                granted.remove(LabPermission.USE_FULL_SCREEN_INTENT)
            }
            val stateName = RequestFields.optionalString(request, "app_state") ?: AppState.FOREGROUND.wire
            val appState = AppState.of(stateName) ?: throw HostError("bad_request", "unknown app_state `$stateName`")
            val callUi = RequestFields.optionalString(request, "call_ui") ?: CALL_UI_CONNECTION_SERVICE
            if (callUi != CALL_UI_CONNECTION_SERVICE && callUi != CALL_UI_CORE_TELECOM) {
                throw HostError("bad_request", "`call_ui` must be $CALL_UI_CONNECTION_SERVICE or $CALL_UI_CORE_TELECOM")
            }
            return PhoneSpec(
                name = RequestFields.string(request, "phone"),
                userId = RequestFields.string(request, "user_id"),
                deviceId = RequestFields.string(request, "device_id"),
                userToken = RequestFields.optionalString(request, "user_token"),
                apiLevel = apiLevel.toInt(),
                granted = granted,
                appState = appState,
                locked = RequestFields.boolean(request, "locked", false),
                dozing = RequestFields.boolean(request, "dozing", false),
                online = RequestFields.boolean(request, "online", true),
                behaviour = Behaviour.parse(request.optJSONObject("behaviour")),
                serverUrl = RequestFields.optionalString(request, "server_url")?.trimEnd('/'),
                callUi = callUi
            )
        }
    }
}
