package dev.ringer.android

import android.content.Context
import android.os.Build
import dev.ringer.kit.Party

/**
 * The calls' hold on [CallForegroundService], shared by the call UIs that need it ([TelecomCallUi] always,
 * [CoreTelecomCallUi] below API 34): which answered or dialled calls hold the service (the last one is the call its
 * notification shows), the starts on their way, and whether Android refused the microphone type at the last start.
 *
 * Android 8+ ends an app that stops the service between `startForegroundService` and `startForeground`
 * ("Context.startForegroundService() did not then call Service.startForeground()"), so a release while a start is on
 * its way leaves the stop to that start ([startDelivered]).
 *
 * A call holds the service only while its call UI has it open ([isOpen]): the UI closes a call (drops it from its
 * calls) before it [release]s it, and every hold checks after taking the holder's place, so a hold that races a close,
 * on any thread, is released again, and no service outlives its calls.
 *
 * Thread-safe; [isOpen] and [refused] are called without this object's lock held.
 * @param context the application context.
 * @param sdkInt the device's API level.
 * @param isOpen whether the call UI still has the call open (not closed).
 * @param refused told of a call whose start Android refused (`startForegroundService` or `startForeground` threw):
 *   the call UI ends it.
 */
class CallForeground(
    private val context: Context,
    private val sdkInt: Int,
    private val isOpen: (String) -> Boolean,
    private val refused: (String) -> Unit
) {
    private val lock = Any()
    /** `startForegroundService` calls whose `onStartCommand` has not reached `startForeground` yet. */
    private var startsPending = 0
    /** Calls holding the service, with whom each is with and whether with video; the last is the one it shows. */
    private val holders = LinkedHashMap<String, Holder>()

    private class Holder(val peer: Party, val hasVideo: Boolean)
    /** Android refused the microphone type at the service's last start (the app was in the background). */
    private var microphoneMissing = false

    /**
     * Starts (or updates) the service for [callId], asking for the microphone (every holder was answered or dialled)
     * and, while any holder is a video call ([hasVideo]) of an app that opted in, the camera (one service for every
     * call: a voice call answered beside a video call must not take the camera from it); the call becomes the one its
     * notification shows.
     * @return false when Android refused: [refused] was told, and the call no longer holds the service. True also when
     *   the call closed meanwhile (it holds nothing then).
     */
    fun hold(callId: String, peer: Party, hasVideo: Boolean = false): Boolean {
        val video = synchronized(lock) {
            startsPending += 1
            holders.remove(callId)
            holders[callId] = Holder(peer, hasVideo)
            holders.values.any { it.hasVideo }
        }
        if (!isOpen(callId)) {
            // Closed while taking its place: its release may have come first, so it is released here.
            synchronized(lock) { startsPending -= 1 }
            release(callId)
            return true
        }
        if (CallForegroundService.start(context, callId, peer, microphoneWanted = true, hasVideo = video)) return true
        synchronized(lock) { startsPending -= 1 }
        refused(callId)
        return false
    }

    /**
     * [callId] no longer holds the service (it ended): after the last holder the service stops, unless a start is on
     * its way; with holders left and [callId] the one shown, the service's notification (and its hang-up action) moves
     * to the newest remaining one.
     */
    fun release(callId: String) {
        val stop: Boolean
        val next = synchronized(lock) {
            val wasShown = holders.keys.lastOrNull() == callId
            if (holders.remove(callId) == null) return
            stop = holders.isEmpty() && startsPending == 0
            if (stop) microphoneMissing = false
            if (wasShown) holders.entries.lastOrNull()?.toPair() else null
        }
        if (stop) CallForegroundService.stop(context)
        next?.let { (nextId, holder) -> hold(nextId, holder.peer, holder.hasVideo) }
    }

    /** Whether [callId] holds the service. */
    fun isHeldBy(callId: String): Boolean = synchronized(lock) { holders.containsKey(callId) }

    /**
     * The app is visible now: a service started now may use the microphone, so the shown call starts it again when
     * Android refused the microphone in the background; on Android 11-13, which withholds the microphone without
     * saying so, whenever a call holds the service.
     */
    fun appInForeground() {
        val shown = synchronized(lock) {
            val silentlyWithheld = sdkInt >= Build.VERSION_CODES.R && sdkInt < Build.VERSION_CODES.UPSIDE_DOWN_CAKE
            if (!microphoneMissing && !silentlyWithheld) return
            holders.entries.lastOrNull()?.toPair()
        } ?: return
        hold(shown.first, shown.second.peer, shown.second.hasVideo)
    }

    /** Whether Android refused the microphone to the service at its last start. */
    val isMicrophoneMissing: Boolean get() = synchronized(lock) { microphoneMissing }

    /** The service went foreground without the microphone. @return true, so the start reads as the success it is. */
    fun microphoneRefused(): Boolean = synchronized(lock) {
        microphoneMissing = true
        true
    }

    /** The service went foreground with the microphone. */
    fun microphoneGranted() = synchronized(lock) { microphoneMissing = false }

    /**
     * The service reached `startForeground` for one start (or was refused there).
     * @return whether a call still holds the service; false: it stops itself now (the calls ended meanwhile).
     */
    fun startDelivered(): Boolean = synchronized(lock) {
        if (startsPending > 0) startsPending -= 1
        holders.isNotEmpty()
    }
}
