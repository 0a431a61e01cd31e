package dev.ringer.android

import android.Manifest
import android.app.Service
import android.content.Context
import android.content.Intent
import android.content.pm.PackageManager
import android.content.pm.ServiceInfo
import android.os.Build
import android.os.IBinder
import dev.ringer.kit.Party

/**
 * The foreground service an answered or dialled call holds, so the process keeps running (and may use the
 * microphone) while the app is in the background (Android: "Foreground service types", `phoneCall`).
 *
 * Its type is `FOREGROUND_SERVICE_TYPE_PHONE_CALL`, plus `FOREGROUND_SERVICE_TYPE_MICROPHONE` once the call is
 * active and `RECORD_AUDIO` is granted (Android 14 refuses a microphone type without the permission). A start
 * the system refuses, in [start] (`startForegroundService`: `IllegalStateException`, API 31
 * `ForegroundServiceStartNotAllowedException`) or in [onStartCommand] (`startForeground`: `SecurityException`,
 * `ForegroundServiceStartNotAllowedException`), ends the call with `DisconnectCause.ERROR` through
 * [TelecomCallUi.foregroundRefused]; the app stays alive. A refusal of the microphone type alone (Android 14, the
 * app in the background) keeps the call on the phoneCall type. [TelecomCallUi] starts and stops it, and never
 * stops it before a start reached `startForeground`.
 */
class CallForegroundService : Service() {
    /** Goes foreground for the call in the intent, with the types its state allows. */
    override fun onStartCommand(intent: Intent?, flags: Int, startId: Int): Int {
        val callUi = RingerComponents.callUi
        val callId = intent?.getStringExtra(RingerIntents.EXTRA_CALL_ID)
        if (callUi == null || callId == null) {
            // Only a start this library did not make (RingerPhone is created in Application.onCreate, before
            // any service): there is no notification to go foreground with.
            stopSelf()
            return START_NOT_STICKY
        }
        val notifications = callUi.notifications
        val peer = Party(intent.getStringExtra(RingerIntents.EXTRA_PEER_ID) ?: callId, intent.getStringExtra(RingerIntents.EXTRA_PEER_NAME))
        val notification = notifications.buildOngoing(callId, peer)
        val active = intent.getBooleanExtra(RingerIntents.EXTRA_ACTIVE, false)
        val recordAudio = checkSelfPermission(Manifest.permission.RECORD_AUDIO) == PackageManager.PERMISSION_GRANTED
        val types = foregroundServiceTypes(active, recordAudio)
        val wentForeground = goForeground(callUi, notification, types) ||
            // Android 14 refuses the microphone type while the app is in the background (a call answered from a
            // headset, car or watch): the call keeps the phoneCall type rather than ending.
            (types != ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL &&
                goForeground(callUi, notification, ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL))
        if (!wentForeground) {
            refused(callUi, callId)
            return START_NOT_STICKY
        }
        // The calls may have ended while this start was on its way: stopped only now, after startForeground.
        if (!callUi.foregroundStartDelivered()) {
            stopForeground(STOP_FOREGROUND_REMOVE)
            stopSelf()
        }
        return START_NOT_STICKY
    }

    /**
     * `startForeground` with [types] (typed from API 29).
     * @return false when the system refused: `SecurityException` (a type the app may not use now, API 34),
     *   `IllegalStateException` incl. `ForegroundServiceStartNotAllowedException` (API 31), caught as its superclass
     *   so the handler also loads on API 26-30, where the class does not exist.
     */
    private fun goForeground(callUi: TelecomCallUi, notification: android.app.Notification, types: Int): Boolean = try {
        if (callUi.sdkInt >= Build.VERSION_CODES.Q) {
            startForeground(NOTIFICATION_ID, notification, types)
        } else {
            startForeground(NOTIFICATION_ID, notification)
        }
        true
    } catch (e: SecurityException) {
        false
    } catch (e: IllegalStateException) {
        false
    }

    /** Not bound: the service only holds the process in the foreground. */
    override fun onBind(intent: Intent?): IBinder? = null

    private fun refused(callUi: TelecomCallUi, callId: String) {
        callUi.foregroundStartDelivered()
        stopSelf()
        callUi.foregroundRefused(callId)
    }

    /** Starting and stopping, and the type rule. */
    companion object {
        /** The foreground notification's id (non-zero, as `startForeground` requires). */
        const val NOTIFICATION_ID = 0x52494E48

        /**
         * The `foregroundServiceType` for a call: `PHONE_CALL`, with `MICROPHONE` only when the call is active
         * and `RECORD_AUDIO` is granted (both declared in the manifest, as Android 14 requires).
         */
        fun foregroundServiceTypes(active: Boolean, recordAudioGranted: Boolean): Int {
            val microphone = if (active && recordAudioGranted) ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE else 0
            return ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL or microphone
        }

        /**
         * Starts the service for [callId], or updates its types (`active`).
         * @return false when the system refused (`SecurityException`, `IllegalStateException` incl.
         *   `ForegroundServiceStartNotAllowedException`); the caller ends the call.
         */
        fun start(context: Context, callId: String, peer: Party, active: Boolean): Boolean {
            val intent = Intent(context, CallForegroundService::class.java)
                .putExtra(RingerIntents.EXTRA_CALL_ID, callId)
                .putExtra(RingerIntents.EXTRA_PEER_ID, peer.id)
                .putExtra(RingerIntents.EXTRA_ACTIVE, active)
            peer.name?.let { intent.putExtra(RingerIntents.EXTRA_PEER_NAME, it) }
            return try {
                context.startForegroundService(intent)
                true
            } catch (e: SecurityException) {
                false
            } catch (e: IllegalStateException) {
                false
            }
        }

        /** Stops the service (the last call ended). */
        fun stop(context: Context) {
            context.stopService(Intent(context, CallForegroundService::class.java))
        }
    }
}
