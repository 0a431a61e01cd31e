package dev.ringer.kit

import java.io.File
import java.util.UUID

/**
 * A stable id for this app install (the server's `device_id`): a random lowercase UUID made on first use and
 * kept in a file of the app's private storage, so it is new after a reinstall or "clear data", as the app's
 * FCM token is (Swift: `RingerPhone.installationID`). Never derived from hardware ids, which Android
 * restricts (Android: "Best practices for unique identifiers"). The file must be out of the app's backups
 * (Android: `noBackupFilesDir`), or a phone restored from this one's backup would have this one's id.
 */
object InstallationId {
    /**
     * The id kept in [file], else the one kept in [formerFile] (moved to [file]: written there first, the former
     * file deleted only once that succeeded, so a failure at any step keeps the id), else a new one kept in [file].
     * @param formerFile where an earlier version kept the id; null when there was none.
     * @return the id; when it cannot be written, the former one (left where it was) or a fresh one (not kept), so the
     *   app still works.
     */
    @JvmStatic @JvmOverloads fun load(file: File, formerFile: File? = null): String = synchronized(this) {
        read(file)?.let { return it }
        val former = formerFile?.let { read(it) }
        if (formerFile != null && former != null) {
            if (DurableFile.write(file, former)) DurableFile.delete(formerFile)
            return former
        }
        val id = CallIds.asciiLowercase(UUID.randomUUID().toString())
        DurableFile.write(file, id)
        id
    }

    private fun read(file: File): String? = DurableFile.read(file)?.trim()?.let { CallIds.normalize(it) }
}
