package dev.ringer.android

/**
 * Why [TelecomCallUi] could not show a call, given to the core's report completion.
 * @property code one of the `CODE_` constants, for the core's and the app's logs.
 */
class CallUiException(val code: String, message: String, cause: Throwable? = null) : Exception(message, cause) {
    /** The codes, named after CallKit's incoming-call errors where one fits. */
    companion object {
        /** A call with this id is already on screen (CallKit: `callUUIDAlreadyExists`). */
        const val CODE_CALL_ALREADY_EXISTS = "call_already_exists"
        /** `addNewIncomingCall` or `placeCall` threw `SecurityException`: `MANAGE_OWN_CALLS` is missing. */
        const val CODE_NOT_PERMITTED = "not_permitted"
        /** Telecom refused the call (`onCreateIncomingConnectionFailed`: another call in progress, or not allowed). */
        const val CODE_REFUSED = "refused"
        /** The call ended before Telecom created its `Connection`. */
        const val CODE_ENDED = "ended"
    }
}
