package dev.ringer.kit

/** Percent-encoding (RFC 3986 §2.1) of ids put into URL paths and queries. */
internal object PercentEncoding {
    /** [text] as UTF-8 with every byte but the unreserved characters (`A–Z a–z 0–9 - . _ ~`) as `%XX`. */
    fun encode(text: String): String {
        val out = StringBuilder(text.length)
        for (byte in text.toByteArray(Charsets.UTF_8)) {
            val b = byte.toInt() and 0xff
            val c = b.toChar()
            if (c in 'A'..'Z' || c in 'a'..'z' || c in '0'..'9' || c == '-' || c == '.' || c == '_' || c == '~') {
                out.append(c)
            } else {
                out.append('%').append(HEX[b shr 4]).append(HEX[b and 0xf])
            }
        }
        return out.toString()
    }

    private const val HEX = "0123456789ABCDEF"
}
