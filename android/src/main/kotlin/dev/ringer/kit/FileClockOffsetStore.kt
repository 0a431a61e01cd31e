package dev.ringer.kit

import org.json.JSONObject
import java.io.File

/**
 * Keeps the clock offset in a small JSON file, `{"offset_ms":…,"boot_time_ms":…}`, replaced atomically
 * ([DurableFile]). A missing, corrupt or incomplete file loads as no offset. Thread-safe within one process.
 *
 * @param file the JSON file; created, with its directories, on the first save.
 */
class FileClockOffsetStore(private val file: File) : ClockOffsetStore {
    private val lock = Any()

    override fun load(): StoredClockOffset? = synchronized(lock) {
        val json = DurableFile.readObject(file) ?: return null
        val offset = json.opt("offset_ms") as? Number ?: return null
        val bootTime = json.opt("boot_time_ms") as? Number ?: return null
        StoredClockOffset(offset.toLong(), bootTime.toLong())
    }

    override fun save(offset: StoredClockOffset?) = synchronized(lock) {
        if (offset == null) {
            DurableFile.delete(file)
        } else {
            DurableFile.write(file, JSONObject().put("offset_ms", offset.offsetMs)
                .put("boot_time_ms", offset.bootTimeMs).toString())
        }
        Unit
    }
}
