package dev.ringer.reactnative

import android.content.Context
import android.content.Intent
import com.facebook.react.HeadlessJsTaskService
import com.facebook.react.bridge.Arguments
import com.facebook.react.jstasks.HeadlessJsTaskConfig

/**
 * Runs the app's Headless JS task `RingerCallAnswered` (TypeScript: `CALL_ANSWERED_TASK`, registered with
 * `Ringer.registerCallAnsweredTask`) after a call was answered while no JavaScript instance was attached. React
 * Native's [HeadlessJsTaskService] starts a React instance when the app has none and runs the task in it
 * (reactnative.dev, "Headless JS"). [CallAnsweredTask] starts this service, and only for an app that opted in with
 * the meta-data `dev.ringer.headless_task_after_answer`: native code cannot see what JavaScript registered.
 *
 * The task's data is `{callId, direction}`. The media grant is not in it: its token is a secret and an Intent's
 * extras are not a place for one. The `accepted` event that carries it is kept by the relay like every event of a
 * moment without JavaScript, and reaches the task's JavaScript instance in the replay once it calls `configure`.
 *
 * Declared in the library's AndroidManifest.xml, not exported.
 */
class RingerHeadlessTaskService : HeadlessJsTaskService() {
    override fun getTaskConfig(intent: Intent?): HeadlessJsTaskConfig? = taskConfig(intent)

    /** The task's name, its extras and how its configuration is made. */
    companion object {
        /** The task's name, as JavaScript registers it (`CALL_ANSWERED_TASK` in src/index.ts). */
        const val TASK_NAME = "RingerCallAnswered"
        /** After this long React Native ends the task whether or not its promise settled. */
        const val TIMEOUT_MS = 30_000L
        const val EXTRA_CALL_ID = "dev.ringer.reactnative.extra.CALL_ID"
        const val EXTRA_DIRECTION = "dev.ringer.reactnative.extra.DIRECTION"

        /** The explicit intent that starts the task for the call [callId] (`incoming` or `outgoing`). */
        @JvmStatic fun intent(context: Context, callId: String, direction: String): Intent =
            Intent(context, RingerHeadlessTaskService::class.java)
                .putExtra(EXTRA_CALL_ID, callId).putExtra(EXTRA_DIRECTION, direction)

        /**
         * The task for [intent]: `RingerCallAnswered` with `{callId, direction}`, a [TIMEOUT_MS] timeout, and allowed
         * while the app is in front: the answer on the notification opens the app's activity, and React Native refuses
         * a task not allowed in front when the React instance is resumed (HeadlessJsTaskContext.startTask throws
         * "Tried to start task … while in foreground"). Null for an intent this library did not make.
         */
        @JvmStatic fun taskConfig(intent: Intent?): HeadlessJsTaskConfig? {
            val callId = intent?.getStringExtra(EXTRA_CALL_ID) ?: return null
            val direction = intent.getStringExtra(EXTRA_DIRECTION) ?: return null
            val data = Arguments.createMap()
            data.putString("callId", callId)
            data.putString("direction", direction)
            return HeadlessJsTaskConfig(TASK_NAME, data, TIMEOUT_MS, true)
        }
    }
}
