package dev.ringer.kit

import java.io.File
import java.util.UUID

/**
 * A stable id for this app install (the server's `device_id`): a random lowercase UUID made on first use and
 * kept in a file of the app's private storage, so it is new after a reinstall or "clear data", as the app's
 * FCM token is (Swift: `RingerPhone.installationID`). Never derived from hardware ids, which Android
 * restricts (Android: "Best practices for unique identifiers").
 */
object InstallationId {
    /**
     * The id kept in [file], created there when missing or unreadable.
     * @return the id; a fresh one (not kept) when the file cannot be written, so the app still works.
     */
    @JvmStatic fun load(file: File): String = synchronized(this) {
        val kept = DurableFile.read(file)?.trim()?.let { CallIds.normalize(it) }
        if (kept != null) return kept
        val id = CallIds.asciiLowercase(UUID.randomUUID().toString())
        DurableFile.write(file, id)
        id
    }
}
