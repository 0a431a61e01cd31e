package dev.ringer.reactnative

import android.util.AtomicFile
import org.json.JSONException
import org.json.JSONObject
import java.io.FileOutputStream
import java.io.File
import java.io.IOException

/**
 * One JSON object in a file, replaced whole through Android's `AtomicFile` (written beside it, synced, renamed over
 * it): a process killed mid-write leaves the previous content. A missing, unreadable or corrupt file reads as none,
 * so a bad file never stops the app woken to ring. Not thread-safe: its owner serialises calls.
 */
internal class JsonFile(file: File) {
    private val atomic = AtomicFile(file)

    /** The object, or null when the file is missing, unreadable or not a JSON object. */
    fun read(): JSONObject? = try {
        JSONObject(String(atomic.readFully(), Charsets.UTF_8))
    } catch (e: IOException) {
        null
    } catch (e: JSONException) {
        null
    } catch (e: SecurityException) {
        null
    }

    /** Replaces the content with [json]. @return false when it could not be written (the old content stays). */
    fun write(json: JSONObject): Boolean {
        var out: FileOutputStream? = null
        return try {
            out = atomic.startWrite()
            out.write(json.toString().toByteArray(Charsets.UTF_8))
            atomic.finishWrite(out)
            true
        } catch (e: IOException) {
            atomic.failWrite(out)
            false
        } catch (e: SecurityException) {
            atomic.failWrite(out)
            false
        }
    }

    /** Removes the file. */
    fun delete() {
        atomic.delete()
    }
}
