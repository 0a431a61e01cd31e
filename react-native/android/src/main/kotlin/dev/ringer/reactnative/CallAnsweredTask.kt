package dev.ringer.reactnative

import android.content.Context
import android.os.Handler
import android.os.Looper
import android.util.Log
import org.json.JSONObject

/**
 * Starts the app's Headless JS task after an answer ([RingerHeadlessTaskService]): for an `accepted` event (media can
 * start: the server confirmed the answer and audio is up) that no JavaScript instance takes, because none is attached
 * to the relay, and only when the app opted in (meta-data `dev.ringer.headless_task_after_answer`). Never on the
 * ringing path, and never in the way of the answer: the answer is complete when `accepted` exists, and the start is
 * posted to the main thread, not made on the SDK's thread that delivered the event.
 *
 * Android may refuse the start. `startService` throws `IllegalStateException` for an app in the background
 * (developer.android.com, "Background Execution Limits", Android 8.0+), and an app counts as in the foreground for
 * that rule while it has a foreground service. The call's `CallForegroundService` runs from the answer on (the SDK
 * starts it before it sends the accept), so the start is normally allowed; Android 12's "Restrictions on starting a
 * foreground service from the background" concern `startForegroundService`, which this does not use. A refusal all
 * the same (the call's foreground service was refused, say) is caught and logged with the call id and direction
 * only: the call goes on, and JavaScript hears of it in the replay when it next attaches.
 *
 * @param context the application context the service is started from.
 * @param enabled whether the app opted in ([ManifestSettings.headlessTaskAfterAnswer]).
 * @param post runs the start later on the main thread (a [Handler] on the main [Looper]); tests give their own.
 */
class CallAnsweredTask(
    private val context: Context,
    val enabled: Boolean,
    private val post: (Runnable) -> Unit = mainThread()
) {
    /**
     * The host handed [event] on; [attached] says whether a JavaScript instance takes it now.
     * @return true when a start of the task was posted (an `accepted` event, opted in, nobody attached).
     */
    fun offered(event: JSONObject, attached: Boolean): Boolean {
        if (!enabled || attached || event.optString("type") != ACCEPTED) return false
        val callId = event.optString("callId")
        val direction = event.optString("direction")
        if (callId.isBlank() || direction.isBlank()) return false
        val intent = RingerHeadlessTaskService.intent(context, callId, direction)
        post(Runnable {
            try {
                context.startService(intent)
            } catch (e: RuntimeException) {
                // IllegalStateException (API 31: ServiceStartNotAllowedException) or SecurityException: not started.
                Log.w(TAG, "${RingerHeadlessTaskService.TASK_NAME} not started for the $direction call $callId: $e")
            }
        })
        return true
    }

    /** Names. */
    companion object {
        const val TAG = "Ringer"
        private const val ACCEPTED = "accepted"

        /** Posts to the app's main thread. */
        private fun mainThread(): (Runnable) -> Unit {
            val handler = Handler(Looper.getMainLooper())
            return { runnable -> handler.post(runnable) }
        }
    }
}
