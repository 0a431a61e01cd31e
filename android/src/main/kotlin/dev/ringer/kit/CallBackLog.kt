package dev.ringer.kit

import org.json.JSONArray
import org.json.JSONObject
import java.io.File

/**
 * Who each Core-Telecom call was with, by Telecom's id of the call, so a tap on it in the system's call log can be
 * called back: Telecom's `ACTION_CALL_BACK` names the call only by `EXTRA_UUID`, "the call ID returned by
 * CallControl#getCallId()", which the app is to persist "along with other call-related information" during the call
 * (`TelecomManager.EXTRA_UUID`). Kept in a file (the tap may come after many launches), the newest [capacity] calls;
 * an older entry's tap is not recognised, as the call log the user scrolls that far back in is rarely tapped.
 *
 * Thread-safe.
 * @param file where the entries live (`filesDir/ringer/call-back-log.json`).
 * @param capacity how many calls are kept.
 */
class CallBackLog(private val file: File, private val capacity: Int = DEFAULT_CAPACITY) {
    private val lock = Any()

    /**
     * Keeps who the call Telecom knows as [telecomCallId] was with; the newest entries are kept, each id once.
     * @param userId the other party: the caller of an incoming call, the callee of an outgoing one.
     */
    fun remember(telecomCallId: String, userId: String, hasVideo: Boolean) = synchronized(lock) {
        val entries = read().filter { it.first != telecomCallId }.toMutableList()
        entries.add(Pair(telecomCallId, CallBackRequest(userId, hasVideo)))
        val kept = entries.takeLast(capacity)
        val array = JSONArray()
        for ((id, request) in kept) {
            array.put(JSONObject().put("telecom_call_id", id).put("user_id", request.userId).put("has_video", request.hasVideo))
        }
        DurableFile.write(file, JSONObject().put("calls", array).toString())
        Unit
    }

    /** Who the call Telecom knows as [telecomCallId] was with; null for a call not kept here. */
    fun find(telecomCallId: String): CallBackRequest? = synchronized(lock) {
        read().lastOrNull { it.first == telecomCallId }?.second
    }

    /** The entries in the file, oldest first; an entry that does not read is skipped, an unreadable file is none. */
    private fun read(): List<Pair<String, CallBackRequest>> {
        val calls = DurableFile.readObject(file)?.optJSONArray("calls") ?: return emptyList()
        val entries = ArrayList<Pair<String, CallBackRequest>>()
        for (index in 0 until calls.length()) {
            val entry = calls.optJSONObject(index) ?: continue
            val id = entry.opt("telecom_call_id") as? String ?: continue
            val userId = entry.opt("user_id") as? String ?: continue
            entries.add(Pair(id, CallBackRequest(userId, entry.optBoolean("has_video", false))))
        }
        return entries
    }

    /** Sizes. */
    companion object {
        /** Calls kept: far more than a call log shows at a glance, a few tens of kilobytes. */
        const val DEFAULT_CAPACITY = 500
    }
}
