package dev.ringer.kit

/**
 * What [PushTokenRegistrar] knows, for the app's settings screen or diagnostics.
 *
 * @property isLoggedIn true between [PushTokenRegistrar.logIn] and [PushTokenRegistrar.logOut].
 * @property hasFcmToken true while an FCM token is held (kept across logout: it belongs to the install). The
 *   token itself is left out so a logged status never shows it.
 * @property readiness the app's last readiness report (problems normalised); null until one was set.
 * @property registeredDevice the registration the server last acknowledged for the current user; null when
 *   none is known (not yet registered, unregistered, or logged out and the `DELETE` acknowledged).
 * @property isSyncing true while a request is in flight or waiting to be retried.
 */
data class PushTokenRegistrarStatus(
    val isLoggedIn: Boolean,
    val hasFcmToken: Boolean,
    val readiness: DeviceReadiness?,
    val registeredDevice: Device?,
    val isSyncing: Boolean
)

/** An outcome [PushTokenRegistrar] reports to its observer, on any thread, outside its lock. */
sealed class PushTokenRegistrarObservation {
    /** The server stored this registration (`PUT /v1/devices/{id}` answered 2xx). */
    data class Registered(val device: Device) : PushTokenRegistrarObservation()

    /** The server removed the device for a user (`DELETE` answered 2xx): on logout, or when the token went away. */
    data class Unregistered(val deviceId: String) : PushTokenRegistrarObservation()

    /**
     * A transient failure (no answer, or 5xx); the request is tried again after [delayMs] milliseconds if the
     * state it tries to reach is still wanted then.
     * @property attempt 1 for the first retry.
     */
    data class Retrying(val attempt: Int, val delayMs: Long, val detail: String) : PushTokenRegistrarObservation()

    /** The server refused the request (4xx): not retried until the wanted state changes. */
    data class Failed(val detail: String) : PushTokenRegistrarObservation()
}
