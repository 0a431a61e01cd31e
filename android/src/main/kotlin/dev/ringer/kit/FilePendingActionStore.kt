package dev.ringer.kit

import org.json.JSONArray
import org.json.JSONException
import java.io.File

/**
 * Keeps pending hang-ups in a JSON file (e.g. under `Context.getNoBackupFilesDir()`), replaced atomically on
 * every save ([DurableFile]), so a decline survives the process being killed right after the tap.
 *
 * The file holds a JSON array of [PendingCallAction.toJson] objects. A missing, unreadable or corrupt file
 * loads as an empty list, and an entry this version cannot read (an unknown kind) is skipped: a bad file must
 * never crash the app woken to ring. Thread-safe within one process; use one instance per file.
 *
 * @param file the JSON file; created, with its directories, on the first save.
 */
class FilePendingActionStore(private val file: File) : PendingActionStore {
    private val lock = Any()

    override fun load(): List<PendingCallAction> = synchronized(lock) {
        val text = DurableFile.read(file) ?: return emptyList()
        try {
            val array = JSONArray(text)
            (0 until array.length()).mapNotNull { index ->
                array.optJSONObject(index)?.let { PendingCallAction.fromJson(it) }
            }
        } catch (e: JSONException) {
            emptyList()
        }
    }

    override fun save(actions: List<PendingCallAction>) = synchronized(lock) {
        val array = JSONArray()
        for (action in actions) array.put(action.toJson())
        DurableFile.write(file, array.toString())
        Unit
    }
}
