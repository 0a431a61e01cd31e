package dev.ringer.reactnative

import org.json.JSONObject
import java.io.File

/**
 * What the native half keeps across launches in its private folder (`noBackupFilesDir/ringer/`: app-private, left
 * out of backups, so a reinstall or a restored phone starts logged out): the logged-in user's token, so that a
 * killed app woken by FCM logs in natively and answers with no JavaScript, and the server JavaScript chose with
 * `configure` when it is not the manifest's. The token is never logged. Thread-safe.
 *
 * Files: `session.json` `{"token": …, "user_id": …, "server": "https://…"}` (older files have no `server`);
 * `server.json` `{"server": "https://…"}`.
 * @param folder the folder, created on the first write.
 */
class SessionStore(folder: File) {
    /**
     * A login: [token] the user token the app's backend minted, [userId] its subject, [server] the server it was made
     * on (a token belongs to its server); null in a file written before the server was recorded.
     * @property token never in [toString].
     */
    data class Session(val token: String, val userId: String, val server: String? = null) {
        override fun toString(): String = "Session(userId=$userId, server=$server, token=<redacted>)"
    }

    private val lock = Any()
    private val sessionFile = JsonFile(File(folder, "session.json"))
    private val serverFile = JsonFile(File(folder, "server.json"))

    /** The stored login; null when nobody is logged in (or the file is unreadable). */
    fun load(): Session? = synchronized(lock) {
        val json = sessionFile.read() ?: return null
        val token = json.opt("token") as? String
        val userId = json.opt("user_id") as? String
        val server = (json.opt("server") as? String)?.takeIf { it.isNotEmpty() }
        if (token.isNullOrEmpty() || userId.isNullOrEmpty()) null else Session(token, userId, server)
    }

    /** Keeps [session]. @return false when it could not be written. */
    fun save(session: Session): Boolean = synchronized(lock) {
        val json = JSONObject().put("token", session.token).put("user_id", session.userId)
        if (session.server != null) json.put("server", session.server)
        sessionFile.write(json)
    }

    /** Forgets the login (logout, or a login made on another server). */
    fun clear() = synchronized(lock) { sessionFile.delete() }

    /** The server JavaScript chose; null when none is stored (the manifest's meta-data is the default). */
    fun loadServer(): String? = synchronized(lock) {
        (serverFile.read()?.opt("server") as? String)?.takeIf { it.isNotEmpty() }
    }

    /** Keeps the server JavaScript chose, for the next launches. @return false when it could not be written. */
    fun saveServer(server: String): Boolean = synchronized(lock) {
        serverFile.write(JSONObject().put("server", server))
    }

    /** Forgets the server JavaScript chose: the next launches use the manifest's. */
    fun clearServer() = synchronized(lock) { serverFile.delete() }
}
