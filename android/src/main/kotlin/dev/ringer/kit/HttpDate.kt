package dev.ringer.kit

/**
 * Reads the HTTP `Date` header in its preferred IMF-fixdate form, `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110
 * §5.6.7). Written by hand because `java.text.SimpleDateFormat` is not thread-safe and `java.time` needs
 * Android API 26.
 */
object HttpDate {
    private val pattern = Regex("^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ([A-Z][a-z]{2}) (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$")
    private val months = listOf("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

    /**
     * Parses an IMF-fixdate.
     * @return Unix milliseconds (a whole second); null for any other form or an impossible date.
     */
    fun parse(text: String): Long? {
        val g = pattern.matchEntire(text)?.groupValues ?: return null
        val month = months.indexOf(g[3]) + 1
        if (month == 0) return null
        val hour = g[5].toInt()
        val minute = g[6].toInt()
        val second = g[7].toInt()
        // 60 is allowed for a leap second (RFC 9110 §5.6.7); it reads as the next second.
        if (hour > 23 || minute > 59 || second > 60) return null
        val iso = g[4] + "-" + (if (month < 10) "0$month" else "$month") + "-" + g[2] + "T" + g[5] + ":" + g[6] + ":00Z"
        val minuteStart = RingerJson.parseTimestamp(iso) ?: return null
        return minuteStart + second * 1000L
    }
}
