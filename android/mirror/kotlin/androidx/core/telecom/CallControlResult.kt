// TEST-ONLY mirror of Jetpack Core-Telecom 1.0 (see CallAttributesCompat.kt).
package androidx.core.telecom

/** Mirror of `CallControlResult`: what Telecom answered a [CallControlScope] request. */
sealed class CallControlResult {
    /** Mirror of `CallControlResult.Success`. */
    class Success : CallControlResult() {
        override fun toString(): String = "Success"
    }

    /** Mirror of `CallControlResult.Error`; [errorCode] one of [CallException]'s codes. */
    class Error(val errorCode: Int) : CallControlResult() {
        override fun toString(): String = "Error($errorCode)"
    }
}

/** Mirror of `CallException`: the platform could not add or change a call; [code] says why. */
class CallException(val code: Int = ERROR_UNKNOWN) : RuntimeException("CallException($code)") {
    /** Codes, values as in api/current.txt. */
    companion object {
        const val ERROR_UNKNOWN = 1
        const val ERROR_CANNOT_HOLD_CURRENT_ACTIVE_CALL = 2
        const val ERROR_CALL_IS_NOT_BEING_TRACKED = 3
        const val ERROR_CALL_CANNOT_BE_SET_TO_ACTIVE = 4
        const val ERROR_CALL_NOT_PERMITTED_AT_PRESENT_TIME = 5
        const val ERROR_OPERATION_TIMED_OUT = 6
        const val ERROR_CALL_DOES_NOT_SUPPORT_HOLD = 7
        const val ERROR_BLUETOOTH_DEVICE_IS_NULL = 8
    }
}
