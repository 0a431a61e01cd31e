package dev.ringer.reactnative

import android.content.ContentProvider
import android.content.ContentValues
import android.database.Cursor
import android.net.Uri

/**
 * Starts the native half when the app's process starts, before `Application.onCreate` and before any service or
 * receiver: Android creates an app's content providers first (ActivityThread.handleBindApplication), so an FCM message
 * that starts a killed app reaches a [RingerReactHost] that already created the phone and logged the stored user in,
 * with no JavaScript and no line of the app's code. Declared in the library's AndroidManifest.xml (manifest merging
 * adds it to every app, Expo or bare), initialised after Firebase's own provider (a lower `initOrder`). It serves no
 * data. A failure here never stops the app: the module reports it when JavaScript calls configure.
 */
class RingerInitProvider : ContentProvider() {
    override fun onCreate(): Boolean {
        val context = context ?: return false
        try {
            RingerReactHost.start(context)
        } catch (e: Exception) {
            // Nothing may crash the app at launch; the module creates the host again and reports why it cannot.
        } catch (e: LinkageError) {
            // The same, for a library missing from the app (Firebase, OkHttp).
        }
        return true
    }

    override fun query(uri: Uri, projection: Array<String>?, selection: String?, selectionArgs: Array<String>?,
                       sortOrder: String?): Cursor? = null

    override fun getType(uri: Uri): String? = null

    override fun insert(uri: Uri, values: ContentValues?): Uri? = null

    override fun delete(uri: Uri, selection: String?, selectionArgs: Array<String>?): Int = 0

    override fun update(uri: Uri, values: ContentValues?, selection: String?, selectionArgs: Array<String>?): Int = 0
}
