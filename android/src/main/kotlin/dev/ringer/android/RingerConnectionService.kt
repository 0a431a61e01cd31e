package dev.ringer.android

import android.telecom.Connection
import android.telecom.ConnectionRequest
import android.telecom.ConnectionService
import android.telecom.DisconnectCause
import android.telecom.PhoneAccountHandle

/**
 * The app's self-managed `ConnectionService`, declared in the library's manifest with
 * `BIND_TELECOM_CONNECTION_SERVICE`. Telecom binds it for every call on the app's phone account; it hands each
 * request to the process's [TelecomCallUi] ([RingerComponents.callUi]), which owns the connections. With no
 * call UI (the app did not create [RingerPhone]) every request fails with `ERROR`.
 */
class RingerConnectionService : ConnectionService() {
    /** Telecom accepted a call reported with `addNewIncomingCall`. */
    override fun onCreateIncomingConnection(connectionManagerPhoneAccount: PhoneAccountHandle?, request: ConnectionRequest): Connection =
        RingerComponents.callUi?.createIncomingConnection(request)
            ?: Connection.createFailedConnection(DisconnectCause(DisconnectCause.ERROR))

    /** Telecom refused a reported call (another call in progress, or not permitted). */
    override fun onCreateIncomingConnectionFailed(connectionManagerPhoneAccount: PhoneAccountHandle?, request: ConnectionRequest) {
        RingerComponents.callUi?.incomingConnectionFailed(request)
    }

    /** Telecom accepted a call placed with `placeCall`. */
    override fun onCreateOutgoingConnection(connectionManagerPhoneAccount: PhoneAccountHandle?, request: ConnectionRequest): Connection =
        RingerComponents.callUi?.createOutgoingConnection(request)
            ?: Connection.createFailedConnection(DisconnectCause(DisconnectCause.ERROR))

    /** Telecom refused a placed call; the server call is ended. */
    override fun onCreateOutgoingConnectionFailed(connectionManagerPhoneAccount: PhoneAccountHandle?, request: ConnectionRequest) {
        RingerComponents.callUi?.outgoingConnectionFailed(request)
    }
}
