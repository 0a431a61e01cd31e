package dev.ringer.kit

import org.json.JSONException
import org.json.JSONObject
import java.io.File
import java.io.FileOutputStream
import java.io.IOException

/**
 * Small state files that must survive process death whole: written to a temporary file beside the target,
 * flushed to the disk (`FileDescriptor.sync`), then renamed over it, so a reader sees the old content or the
 * new, never half of one (POSIX `rename(2)` replaces atomically within a file system). `File.renameTo` is
 * used rather than `java.nio.file.Files.move`, which Android has only from API 26.
 */
internal object DurableFile {
    /** The file's text (UTF-8), or null when it is missing or unreadable. */
    fun read(file: File): String? = try {
        if (file.isFile) file.readText(Charsets.UTF_8) else null
    } catch (e: IOException) {
        null
    } catch (e: SecurityException) {
        null
    }

    /** The file's JSON object, or null when it is missing, unreadable, or not a JSON object (a corrupt file reads as none). */
    fun readObject(file: File): JSONObject? {
        val text = read(file) ?: return null
        return try {
            JSONObject(text)
        } catch (e: JSONException) {
            null
        }
    }

    /**
     * Replaces the file's content with [text] (UTF-8), creating missing parent directories.
     * @return false when it could not be written; the old content, if any, is then left as it was.
     */
    fun write(file: File, text: String): Boolean {
        val temporary = File(file.parentFile ?: File("."), file.name + ".tmp")
        return try {
            file.parentFile?.mkdirs()
            FileOutputStream(temporary).use { out ->
                out.write(text.toByteArray(Charsets.UTF_8))
                out.flush()
                out.fd.sync()
            }
            if (temporary.renameTo(file)) true else { temporary.delete(); false }
        } catch (e: IOException) {
            temporary.delete()
            false
        } catch (e: SecurityException) {
            false
        }
    }

    /** Removes the file; true when it is gone afterwards. */
    fun delete(file: File): Boolean = try {
        !file.exists() || file.delete()
    } catch (e: SecurityException) {
        false
    }
}
