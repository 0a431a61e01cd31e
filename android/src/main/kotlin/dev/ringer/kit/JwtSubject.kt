package dev.ringer.kit

import org.json.JSONException
import org.json.JSONObject

/**
 * Reads the `sub` claim (RFC 7519 §4.1.2) of a compact JWT without verifying it. Decodes base64url (RFC 4648
 * §5) by hand because `java.util.Base64` needs Android API 26.
 */
object JwtSubject {
    /** The `sub` of a three-part compact JWT, or null when it is not one or has no string `sub`. */
    fun of(token: String): String? {
        val parts = token.split('.')
        if (parts.size != 3) return null
        val payload = decodeBase64Url(parts[1]) ?: return null
        return try {
            JSONObject(String(payload, Charsets.UTF_8)).opt("sub") as? String
        } catch (e: JSONException) {
            null
        }
    }

    /** Bytes of base64url text with or without `=` padding; null for any other character or a bad length. */
    internal fun decodeBase64Url(text: String): ByteArray? {
        val trimmed = text.trimEnd('=')
        if (trimmed.length % 4 == 1) return null
        val out = java.io.ByteArrayOutputStream(trimmed.length * 3 / 4)
        var buffer = 0
        var bits = 0
        for (c in trimmed) {
            val value = when (c) {
                in 'A'..'Z' -> c - 'A'
                in 'a'..'z' -> c - 'a' + 26
                in '0'..'9' -> c - '0' + 52
                '-', '+' -> 62
                '_', '/' -> 63
                else -> return null
            }
            buffer = (buffer shl 6) or value
            bits += 6
            if (bits >= 8) {
                bits -= 8
                out.write((buffer shr bits) and 0xff)
            }
        }
        return out.toByteArray()
    }
}
