package dev.ringer.android

import android.Manifest
import android.app.Service
import android.content.ComponentName
import android.content.Context
import android.content.Intent
import android.content.pm.PackageManager
import android.content.pm.ServiceInfo
import android.os.Build
import android.os.IBinder
import dev.ringer.kit.Party

/**
 * The foreground service an answered or dialled call holds, so the process keeps running and may use the
 * microphone while the app is in the background (Android: "Foreground service types", `phoneCall` and
 * `microphone`).
 *
 * Its type is `FOREGROUND_SERVICE_TYPE_PHONE_CALL`, plus `FOREGROUND_SERVICE_TYPE_MICROPHONE` from the moment the
 * user answers or dials, when `RECORD_AUDIO` is granted. The microphone is a while-in-use permission: Android 11+
 * lets a foreground service use it only when the service was started while the app was visible or under one of the
 * documented exemptions, and Android 14 refuses the `microphone` type otherwise (`SecurityException`;
 * developer.android.com, "Restrictions on starting a foreground service from the background", "Restrictions on
 * starting foreground services that need while-in-use permissions"). None of those exemptions covers a call a
 * self-managed `ConnectionService` app answers from a headset, car or watch while in the background (Telecom gives
 * foreground-service delegation, microphone included, only to calls added with `TelecomManager.addCall`, the API
 * Core-Telecom uses). So the type is asked for at answer or dial, when the user is usually in the app (the
 * notification's answer action opens the app's call activity; a locked phone shows it full screen), not later when
 * the server confirms; a refusal keeps the call on `phoneCall` alone, shows "microphone off" in the call's
 * notification, and [AndroidCallUi.appInForeground] asks again once the user opens the app.
 *
 * A video call adds `FOREGROUND_SERVICE_TYPE_CAMERA` when the app opted in: its manifest declares the service with
 * `camera` among its types (and `FOREGROUND_SERVICE_CAMERA`), which the library's manifest does not, as Google Play
 * asks an app that declares the camera type to justify it, and the user granted `CAMERA` (and, on Android 14, the
 * app declares `FOREGROUND_SERVICE_CAMERA`). Android 11+ requires the type for a camera used in the background, and
 * Android 14 refuses it as it refuses the microphone's (while-in-use); a refusal tries again without the camera, then
 * without the microphone, so the call itself never ends for it.
 *
 * A start the system refuses, in [start] (`startForegroundService`: `IllegalStateException`, API 31
 * `ForegroundServiceStartNotAllowedException`) or in [onStartCommand] (`startForeground`: `SecurityException`,
 * `ForegroundServiceStartNotAllowedException`), ends the call with `DisconnectCause.ERROR` through
 * [AndroidCallUi.foregroundRefused]; the app stays alive. The call UI starts and stops it through [CallForeground],
 * which never stops it before a start reached `startForeground`.
 */
class CallForegroundService : Service() {
    /** Goes foreground for the call in the intent, with the types its state allows. */
    override fun onStartCommand(intent: Intent?, flags: Int, startId: Int): Int {
        val callUi = RingerComponents.callUi
        val foreground = callUi?.foreground
        val callId = intent?.getStringExtra(RingerIntents.EXTRA_CALL_ID)
        if (callUi == null || foreground == null || callId == null) {
            // Only a start this library did not make (RingerPhone is created in Application.onCreate, before
            // any service): there is no notification to go foreground with.
            stopSelf()
            return START_NOT_STICKY
        }
        val notifications = callUi.notifications
        val peer = Party(intent.getStringExtra(RingerIntents.EXTRA_PEER_ID) ?: callId, intent.getStringExtra(RingerIntents.EXTRA_PEER_NAME))
        val microphoneWanted = intent.getBooleanExtra(RingerIntents.EXTRA_MICROPHONE, false)
        val recordAudio = checkSelfPermission(Manifest.permission.RECORD_AUDIO) == PackageManager.PERMISSION_GRANTED
        val declared = declaredTypes(callUi.sdkInt)
        val cameraWanted = intent.getBooleanExtra(RingerIntents.EXTRA_HAS_VIDEO, false) && callUi.sdkInt >= Build.VERSION_CODES.R &&
            declared and ServiceInfo.FOREGROUND_SERVICE_TYPE_CAMERA != 0 &&
            checkSelfPermission(Manifest.permission.CAMERA) == PackageManager.PERMISSION_GRANTED &&
            (callUi.sdkInt < Build.VERSION_CODES.UPSIDE_DOWN_CAKE ||
                checkSelfPermission(Manifest.permission.FOREGROUND_SERVICE_CAMERA) == PackageManager.PERMISSION_GRANTED)
        // Never a type the merged manifest lacks (Android answers that with IllegalArgumentException): an app that
        // replaced the service's types keeps phoneCall, which the SDK needs, and only what it declared besides.
        val types = foregroundServiceTypes(microphoneWanted, recordAudio, cameraWanted) and
            (declared or ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL)
        val microphone = ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE
        // Android 14 refuses a while-in-use type with SecurityException (the app was in the background): the call goes
        // on without the camera, then without the microphone, rather than ending, and its notification says how to
        // turn the microphone on.
        val attempts = listOf(types, types and ServiceInfo.FOREGROUND_SERVICE_TYPE_CAMERA.inv(), ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL)
            .distinct()
        var wentForeground = false
        for (attempt in attempts) {
            val microphoneOff = types and microphone != 0 && attempt and microphone == 0
            val start = goForeground(callUi, notifications.buildOngoing(callId, peer, microphoneOff = microphoneOff), attempt)
            if (start == Start.TYPE_REFUSED) continue
            if (start == Start.STARTED) {
                wentForeground = true
                if (attempt and microphone != 0) foreground.microphoneGranted() else if (microphoneOff) foreground.microphoneRefused()
            }
            break
        }
        if (!wentForeground) {
            refused(callUi, callId)
            return START_NOT_STICKY
        }
        // The calls may have ended while this start was on its way: stopped only now, after startForeground.
        if (!foreground.startDelivered()) {
            stopForeground(STOP_FOREGROUND_REMOVE)
            stopSelf()
        }
        return START_NOT_STICKY
    }

    /** How a `startForeground` went. */
    private enum class Start {
        STARTED,
        /** `SecurityException`: a type the app may not use now (API 34); another type set may pass. */
        TYPE_REFUSED,
        /** `IllegalStateException`, incl. `ForegroundServiceStartNotAllowedException` (API 31): no foreground now. */
        REFUSED
    }

    /**
     * `startForeground` with [types] (typed from API 29). `ForegroundServiceStartNotAllowedException` is caught as
     * its superclass `IllegalStateException`, so the handler also loads on API 26-30, where the class does not exist.
     */
    private fun goForeground(callUi: AndroidCallUi, notification: android.app.Notification, types: Int): Start = try {
        if (callUi.sdkInt >= Build.VERSION_CODES.Q) {
            startForeground(NOTIFICATION_ID, notification, types)
        } else {
            startForeground(NOTIFICATION_ID, notification)
        }
        Start.STARTED
    } catch (e: SecurityException) {
        Start.TYPE_REFUSED
    } catch (e: IllegalArgumentException) {
        // A type the manifest does not declare (the SDK masks with it; a manifest read wrong): fewer types may pass.
        Start.TYPE_REFUSED
    } catch (e: IllegalStateException) {
        Start.REFUSED
    }

    /**
     * The types the app's merged manifest declares for this service (the library's: `phoneCall|microphone`; an app
     * that opted into the camera adds `camera`). Types exist from API 29; before, or when unreadable, the library's.
     */
    private fun declaredTypes(sdkInt: Int): Int {
        val library = ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL or ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE
        if (sdkInt < Build.VERSION_CODES.Q) return library
        return try {
            packageManager.getServiceInfo(ComponentName(this, CallForegroundService::class.java), 0).foregroundServiceType
        } catch (e: PackageManager.NameNotFoundException) {
            library
        }
    }

    /** Not bound: the service only holds the process in the foreground. */
    override fun onBind(intent: Intent?): IBinder? = null

    private fun refused(callUi: AndroidCallUi, callId: String) {
        callUi.foreground.startDelivered()
        stopSelf()
        callUi.foregroundRefused(callId)
    }

    /** Starting and stopping, and the type rule. */
    companion object {
        /** The foreground notification's id (non-zero, as `startForeground` requires). */
        const val NOTIFICATION_ID = 0x52494E48

        /**
         * The `foregroundServiceType` for a call: `PHONE_CALL`, with `MICROPHONE` only when the call was answered
         * or dialled ([microphoneWanted]) and `RECORD_AUDIO` is granted (both types declared in the manifest, as
         * Android 14 requires; Android 14 refuses a microphone type without the permission), and `CAMERA` for a video
         * call of an app that opted in with `CAMERA` granted ([cameraWanted]).
         */
        fun foregroundServiceTypes(microphoneWanted: Boolean, recordAudioGranted: Boolean, cameraWanted: Boolean = false): Int {
            val microphone = if (microphoneWanted && recordAudioGranted) ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE else 0
            val camera = if (cameraWanted) ServiceInfo.FOREGROUND_SERVICE_TYPE_CAMERA else 0
            return ServiceInfo.FOREGROUND_SERVICE_TYPE_PHONE_CALL or microphone or camera
        }

        /**
         * Starts the service for [callId], or updates its types and notification.
         * @param microphoneWanted whether to ask for the microphone type (the call was answered or dialled).
         * @param hasVideo whether the call is a video call (the camera type, for an app that opted in).
         * @return false when the system refused (`SecurityException`, `IllegalStateException` incl.
         *   `ForegroundServiceStartNotAllowedException`); the caller ends the call.
         */
        fun start(context: Context, callId: String, peer: Party, microphoneWanted: Boolean, hasVideo: Boolean = false): Boolean {
            val intent = Intent(context, CallForegroundService::class.java)
                .putExtra(RingerIntents.EXTRA_CALL_ID, callId)
                .putExtra(RingerIntents.EXTRA_PEER_ID, peer.id)
                .putExtra(RingerIntents.EXTRA_MICROPHONE, microphoneWanted)
                .putExtra(RingerIntents.EXTRA_HAS_VIDEO, hasVideo)
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
