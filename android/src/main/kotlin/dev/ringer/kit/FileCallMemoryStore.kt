package dev.ringer.kit

import org.json.JSONObject
import java.io.File

/**
 * Keeps the call memory in a JSON file (e.g. under `Context.getNoBackupFilesDir()`), replaced atomically on every
 * save ([DurableFile]): a process killed mid-write leaves the previous version.
 *
 * The file holds
 * `{"ended_calls": {"<call id>": {"reason": "remote_ended", "learned_at_ms": …, "shown_here": true}},
 *   "unconfirmed_answers": {"<call id>": {"caller": {"id": …, "name": …}, "callee_id": …, "has_video": false,
 *   "expires_at_ms": …, "local_deadline_ms": …}}}` (times Unix ms; `callee_id` and the caller's `name` left out
 * when unknown; an entry without `shown_here`, as an older version wrote, is an end heard first). A missing, unreadable or corrupt file loads as an empty memory, and an entry this version cannot
 * read is skipped: a bad file must never crash the app woken to ring. Thread-safe within one process; use one
 * instance per file.
 *
 * @param file the JSON file; created, with its directories, on the first save.
 */
class FileCallMemoryStore(private val file: File) : CallMemoryStore {
    private val lock = Any()

    override fun load(): PhoneCallMachine.Memory = synchronized(lock) {
        val json = DurableFile.readObject(file) ?: return PhoneCallMachine.Memory()
        val ended = HashMap<String, PhoneCallMachine.EndedUnseen>()
        json.optJSONObject("ended_calls")?.let { calls ->
            for (callId in calls.keys()) {
                val entry = calls.optJSONObject(callId) ?: continue
                val reason = entry.opt("reason") as? String ?: continue
                val learnedAt = entry.opt("learned_at_ms") as? Number ?: continue
                val shownHere = entry.opt("shown_here") as? Boolean ?: false
                ended[callId] = PhoneCallMachine.EndedUnseen(CallEndReason(reason), learnedAt.toLong(), shownHere)
            }
        }
        val answers = HashMap<String, PhoneCallMachine.UnconfirmedAnswer>()
        json.optJSONObject("unconfirmed_answers")?.let { calls ->
            for (callId in calls.keys()) {
                val answer = calls.optJSONObject(callId)?.let { readAnswer(it) } ?: continue
                answers[callId] = answer
            }
        }
        PhoneCallMachine.Memory(ended, answers)
    }

    override fun save(memory: PhoneCallMachine.Memory) = synchronized(lock) {
        val ended = JSONObject()
        for ((callId, entry) in memory.endedCalls) {
            ended.put(callId, JSONObject().put("reason", entry.reason.rawValue).put("learned_at_ms", entry.learnedAtMs)
                .put("shown_here", entry.shownHere))
        }
        val answers = JSONObject()
        for ((callId, answer) in memory.unconfirmedAnswers) {
            answers.put(callId, JSONObject()
                .put("caller", answer.caller.toJson())
                .putIfSet("callee_id", answer.calleeId)
                .put("has_video", answer.hasVideo)
                .put("expires_at_ms", answer.expiresAtMs)
                .put("local_deadline_ms", answer.localDeadlineMs)
                .putIfSet("group", answer.group?.toJson()))
        }
        DurableFile.write(file, JSONObject().put("ended_calls", ended).put("unconfirmed_answers", answers).toString())
        Unit
    }

    /** One stored answer; null when a field is missing or of the wrong type. */
    private fun readAnswer(json: JSONObject): PhoneCallMachine.UnconfirmedAnswer? {
        val caller = try {
            json.optJSONObject("caller")?.let { Party.fromJson(it) }
        } catch (e: RingerWireException) {
            null
        } ?: return null
        val calleeId = json.opt("callee_id") as? String
        val hasVideo = json.opt("has_video") as? Boolean ?: return null
        val expiresAt = json.opt("expires_at_ms") as? Number ?: return null
        val deadline = json.opt("local_deadline_ms") as? Number ?: return null
        // Absent from answers stored before group calls; unreadable, it is dropped rather than the answer.
        val group = try {
            json.optJSONObject("group")?.let { PushGroup.fromJson(it) }
        } catch (e: RingerWireException) {
            null
        }
        return PhoneCallMachine.UnconfirmedAnswer(caller, calleeId, hasVideo, expiresAt.toLong(), deadline.toLong(), group)
    }
}
