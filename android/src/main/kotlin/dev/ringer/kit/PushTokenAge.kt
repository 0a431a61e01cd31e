package dev.ringer.kit

import org.json.JSONObject
import java.io.File
import java.security.MessageDigest

/**
 * When this install got its current FCM token, for [ReadinessCheck]'s stale-token rule: Firebase hands the
 * same token back on every launch, so its age is only known by remembering when it was first seen. Kept in a
 * small JSON file `{"token_sha256":"…","obtained_at_ms":…}` ([DurableFile]); only a SHA-256 digest of the
 * token is stored, so the file holds no credential. Thread-safe within one process.
 *
 * @param file the JSON file; created, with its directories, on the first [observe].
 */
class PushTokenAge(private val file: File) {
    private val lock = Any()

    /**
     * Records that [token] is the current token and returns when it was first seen: [nowMs] for a token not
     * seen before (a rotation or first issue), the earlier time for the same token again.
     * @param nowMs the phone's clock, Unix milliseconds.
     * @return Unix milliseconds.
     */
    fun observe(token: String, nowMs: Long): Long = synchronized(lock) {
        val digest = sha256Hex(token)
        val kept = read()
        if (kept != null && kept.first == digest) return kept.second
        DurableFile.write(file, JSONObject().put("token_sha256", digest).put("obtained_at_ms", nowMs).toString())
        nowMs
    }

    private fun read(): Pair<String, Long>? {
        val json = DurableFile.readObject(file) ?: return null
        val digest = json.opt("token_sha256") as? String ?: return null
        val at = json.opt("obtained_at_ms") as? Number ?: return null
        return Pair(digest, at.toLong())
    }

    private fun sha256Hex(text: String): String {
        val bytes = MessageDigest.getInstance("SHA-256").digest(text.toByteArray(Charsets.UTF_8))
        val hex = StringBuilder(bytes.size * 2)
        for (byte in bytes) {
            val value = byte.toInt() and 0xff
            hex.append(HEX[value shr 4]).append(HEX[value and 0x0f])
        }
        return hex.toString()
    }

    private companion object {
        const val HEX = "0123456789abcdef"
    }
}
