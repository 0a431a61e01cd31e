package dev.ringer.kit

/**
 * An answer an [HttpTransport] received.
 *
 * @property status the HTTP status code.
 * @property headers response headers keyed by ASCII-lowercased name (HTTP names are case-insensitive,
 *   RFC 9110 §5.1); a name that came several times holds its values joined with `", "` (RFC 9110 §5.3).
 * @property body the response body; empty when there was none.
 */
class HttpResponse(val status: Int, headers: Map<String, String>, val body: ByteArray) {
    /** The headers, names lowercased whatever case the transport passed them in. */
    val headers: Map<String, String> = headers.mapKeys { lowercaseAscii(it.key) }

    /**
     * One header's value.
     * @param name the header name in any case, e.g. `Date`.
     * @return the value, or null when absent.
     */
    fun header(name: String): String? = headers[lowercaseAscii(name)]

    /** Status and body size only: a body may hold a media token. */
    override fun toString(): String = "HttpResponse(status=$status, ${body.size} bytes)"

    companion object {
        /**
         * ASCII lowercase, the only case change header names need; locale-free (Kotlin's case functions
         * differ between Kotlin 1.3 and 2.x, and locale-aware ones turn `I` into a dotless `ı` in Turkish).
         */
        fun lowercaseAscii(text: String): String {
            val chars = CharArray(text.length)
            for (i in text.indices) {
                val c = text[i]
                chars[i] = if (c in 'A'..'Z') (c + ('a' - 'A')) else c
            }
            return String(chars)
        }
    }
}
