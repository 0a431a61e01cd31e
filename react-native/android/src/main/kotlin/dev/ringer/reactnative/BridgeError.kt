package dev.ringer.reactnative

/**
 * Why a method of the `Ringer` module refused, as JavaScript receives it: the promise rejects with [code] and
 * [message]; a `server_refused` carries the problem's [problemType] (the problem+json `type` URI) and HTTP [status] in
 * its userInfo. The JS layer turns it into a `RingerError`. The codes are docs/react-native.md's ("Methods": the
 * "rejects with" column); the iOS half rejects with the same.
 */
class BridgeError(val code: String, message: String, val problemType: String? = null, val status: Int? = null) :
    Exception(message) {
    /** The codes. */
    companion object {
        /** No server is known (no meta-data, nothing stored), or JavaScript called a method before `configure`. */
        const val NOT_CONFIGURED = "not_configured"
        /** An argument JavaScript passed is not acceptable (a call id that is no UUID, a URL that is not http(s)). */
        const val INVALID_ARGUMENT = "invalid_argument"
        /** No call on this phone has the call id. */
        const val UNKNOWN_CALL = "unknown_call"
        /** The call is not in a state that allows this (declining a call that is not ringing). */
        const val WRONG_STATE = "wrong_state"
        /** Nobody is logged in. */
        const val NOT_LOGGED_IN = "not_logged_in"
        /** Another user is logged in: log out first. */
        const val OTHER_USER_LOGGED_IN = "other_user_logged_in"
        /** A call is ringing or up: hang up first. */
        const val CALL_IN_PROGRESS = "call_in_progress"
        /** The server refused the request (userInfo: problemType, status). */
        const val SERVER_REFUSED = "server_refused"
        /** No answer came from the server. */
        const val NETWORK = "network"
        /** The system's call service refused the call (Telecom: MANAGE_OWN_CALLS missing, or another call). */
        const val CALL_UI_REFUSED = "call_ui_refused"
        /** Anything else that went wrong natively. */
        const val NATIVE = "native"
    }
}
