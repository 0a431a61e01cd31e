package dev.ringer.android

import android.telecom.Connection
import android.telecom.ConnectionRequest
import android.telecom.ConnectionService
import android.telecom.DisconnectCause
import android.telecom.PhoneAccountHandle

/**
 * The app's self-managed `ConnectionService`, declared in the library's manifest with
 * `BIND_TELECOM_CONNECTION_SERVICE`. Telecom binds it for every call on the app's phone account; it hands each
 * request to the process's [TelecomCallUi] ([RingerComponents.telecomCallUi]), which owns the connections. With no
 * such call UI (the app did not create [RingerPhone], or chose Core-Telecom's) every request fails with `ERROR`.
 */
class RingerConnectionService : ConnectionService() {
    /** Telecom accepted a call reported with `addNewIncomingCall`. */
    override fun onCreateIncomingConnection(connectionManagerPhoneAccount: PhoneAccountHandle?, request: ConnectionRequest): Connection =
        RingerComponents.telecomCallUi?.createIncomingConnection(request)
            ?: Connection.createFailedConnection(DisconnectCause(DisconnectCause.ERROR))

    /** Telecom refused a reported call (another call in progress, or not permitted). */
    override fun onCreateIncomingConnectionFailed(connectionManagerPhoneAccount: PhoneAccountHandle?, request: ConnectionRequest) {
        RingerComponents.telecomCallUi?.incomingConnectionFailed(request)
    }

    /** Telecom accepted a call placed with `placeCall`. */
    override fun onCreateOutgoingConnection(connectionManagerPhoneAccount: PhoneAccountHandle?, request: ConnectionRequest): Connection =
        RingerComponents.telecomCallUi?.createOutgoingConnection(request)
            ?: Connection.createFailedConnection(DisconnectCause(DisconnectCause.ERROR))

    /** Telecom refused a placed call; the server call is ended. */
    override fun onCreateOutgoingConnectionFailed(connectionManagerPhoneAccount: PhoneAccountHandle?, request: ConnectionRequest) {
        RingerComponents.telecomCallUi?.outgoingConnectionFailed(request)
    }

    /**
     * API 28: Telecom gives the call focus to another app's call (the user answered a SIM call with "Hold & Accept").
     * It has held this service's active calls already (each declares `CAPABILITY_HOLD`) and waits at most 5 s (AOSP's
     * `ConnectionServiceFocusManager.RELEASE_FOCUS_TIMEOUT_MS`) for `connectionServiceFocusReleased()` before it
     * disconnects them all. A call still active is held through the core, so the app pauses its media, and the focus
     * is released at once.
     */
    override fun onConnectionServiceFocusLost() {
        RingerComponents.telecomCallUi?.holdActiveCalls()
        connectionServiceFocusReleased()
    }
}
