package dev.ringer.kit

import org.json.JSONObject
import java.io.File

/**
 * The event stream's resume point (`seq`, for `GET /v1/events?since=`) per user, in one small JSON file
 * `{"<user id>": <seq>, …}` replaced atomically ([DurableFile]), so events missed while the process was dead
 * replay after the next launch. Per user, so a user switch on the phone never resumes another user's stream.
 * A missing or corrupt file reads as no resume point (the stream then starts from its newest events, and the
 * coordinator re-reads its calls). Thread-safe within one process.
 *
 * @param file the JSON file; created, with its directories, on the first [save].
 */
class FileResumePoints(private val file: File) {
    private val lock = Any()

    /** The last `seq` seen for [userId], or null when none was kept. */
    fun load(userId: String): Long? = synchronized(lock) {
        (read().opt(userId) as? Number)?.toLong()
    }

    /** Keeps [seq] for [userId]; a value lower than the one kept is ignored (events arrive in `seq` order). */
    fun save(userId: String, seq: Long) = synchronized(lock) {
        val json = read()
        val kept = (json.opt(userId) as? Number)?.toLong()
        if (kept == null || seq > kept) DurableFile.write(file, json.put(userId, seq).toString())
        Unit
    }

    /** Forgets [userId]'s resume point (its login ended; a later login starts afresh). */
    fun forget(userId: String) = synchronized(lock) {
        val json = read()
        if (json.has(userId)) {
            json.remove(userId)
            DurableFile.write(file, json.toString())
        }
        Unit
    }

    private fun read(): JSONObject = DurableFile.readObject(file) ?: JSONObject()
}
