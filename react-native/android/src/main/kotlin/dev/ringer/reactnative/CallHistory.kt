package dev.ringer.reactnative

import org.json.JSONArray
import org.json.JSONObject
import java.io.File

/**
 * The calls that rang or were placed on this phone, newest first, at most [capacity], kept in a file across launches
 * (getCallHistory). Built from the events JavaScript receives, whether or not it is attached: `incoming` or `outgoing`
 * opens an entry, `accepted` marks it answered, `ended` closes it and writes the file. A call still up when the
 * process dies leaves no entry (its events died with it).
 *
 * An entry is JavaScript's HistoryEntry: `{callId, direction, peer: {id, name}, hasVideo, startedAt, answered,
 * endedAt, reason, serverReason}`, times in Unix ms on the phone's clock. The file holds `{"entries": [...]}`. Not
 * thread-safe: the owner serialises calls (RingerReactHost does, under its lock).
 * @param file the JSON file, created with its folder at the first ended call.
 * @param now the phone's clock, Unix ms.
 */
class CallHistory(file: File, private val now: () -> Long, val capacity: Int = DEFAULT_CAPACITY) {
    private val store = JsonFile(file)
    private val open = HashMap<String, JSONObject>()
    private var kept: MutableList<JSONObject>? = null

    /** Takes one event JavaScript receives (or would). */
    fun record(event: JSONObject) {
        val callId = event.opt("callId") as? String ?: return
        when (event.opt("type")) {
            CallInfo.INCOMING -> open[callId] = opened(event, callId, event.optJSONObject("caller"))
            CallInfo.OUTGOING -> open[callId] = opened(event, callId, event.optJSONObject("callee"))
            "accepted" -> open[callId]?.put("answered", true)
            "ended" -> {
                val entry = open.remove(callId) ?: return
                entry.put("endedAt", now()).put("reason", event.opt("reason") ?: JSONObject.NULL)
                    .put("serverReason", event.opt("serverReason") ?: JSONObject.NULL)
                val entries = entries()
                entries.add(0, entry)
                while (entries.size > capacity) entries.removeAt(entries.size - 1)
                store.write(JSONObject().put("entries", JSONArray(entries)))
            }
        }
    }

    /** The newest [limit] entries, newest first. */
    fun newest(limit: Int): List<JSONObject> = entries().take(Math.max(0, limit))

    private fun opened(event: JSONObject, callId: String, peer: JSONObject?): JSONObject = JSONObject()
        .put("callId", callId).put("direction", event.opt("type")).put("peer", peer ?: JSONObject.NULL)
        .put("hasVideo", event.optBoolean("hasVideo")).put("startedAt", now()).put("answered", false)

    /** The entries kept, read from the file at first use (a corrupt file reads as none). */
    private fun entries(): MutableList<JSONObject> {
        kept?.let { return it }
        val array = store.read()?.optJSONArray("entries")
        val entries = ArrayList<JSONObject>()
        if (array != null) for (index in 0 until array.length()) array.optJSONObject(index)?.let { entries.add(it) }
        kept = entries
        return entries
    }

    /** The bound. */
    companion object {
        /** Entries kept: the newest 100. */
        const val DEFAULT_CAPACITY = 100
    }
}
