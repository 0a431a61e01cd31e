package dev.ringer.kit

import org.json.JSONArray
import org.json.JSONException
import org.json.JSONObject

/**
 * The JSON conventions of Ringer's API as the Kotlin SDK reads them: snake_case keys and RFC 3339 UTC
 * timestamps with milliseconds (`2026-11-30T12:00:00.123Z`), which the SDK holds as Unix milliseconds.
 *
 * Mirrors RingerWire's `RingerJSON` (Swift): timestamps may omit the fraction, a fraction is snapped to
 * the nearest millisecond, and formatting always writes exactly three fraction digits in UTC.
 */
object RingerJson {
    private val timestampPattern = Regex(
        "^(\\d{4})-(\\d{2})-(\\d{2})T(\\d{2}):(\\d{2}):(\\d{2})(\\.(\\d+))?(Z|([+-])(\\d{2}):(\\d{2}))$")

    /**
     * Parses an RFC 3339 timestamp (`Z` or a `±HH:MM` offset, fraction optional).
     * @return Unix milliseconds, the fraction rounded to the nearest millisecond; null when [text] is not
     *   such a timestamp (including impossible dates such as February 30).
     */
    fun parseTimestamp(text: String): Long? {
        val match = timestampPattern.matchEntire(text) ?: return null
        val g = match.groupValues
        val year = g[1].toInt()
        val month = g[2].toInt()
        val day = g[3].toInt()
        val hour = g[4].toInt()
        val minute = g[5].toInt()
        val second = g[6].toInt()
        if (month !in 1..12 || day < 1 || day > daysInMonth(year, month)) return null
        if (hour > 23 || minute > 59 || second > 59) return null
        var millis = 0L
        val fraction = g[8]
        if (fraction.isNotEmpty()) {
            val padded = (fraction + "0000").substring(0, 4)
            millis = padded.substring(0, 3).toLong() + if (padded[3] >= '5') 1 else 0
        }
        var offsetMinutes = 0L
        if (g[9] != "Z") {
            val offsetHours = g[11].toInt()
            val offsetMins = g[12].toInt()
            if (offsetHours > 23 || offsetMins > 59) return null
            offsetMinutes = (offsetHours * 60L + offsetMins) * if (g[10] == "-") -1 else 1
        }
        val days = daysFromCivil(year.toLong(), month, day)
        val seconds = days * 86_400L + hour * 3600L + minute * 60L + second - offsetMinutes * 60L
        return seconds * 1000L + millis
    }

    /** Formats Unix milliseconds as `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC, the form the server writes. */
    fun formatTimestamp(unixMs: Long): String {
        val days = Math.floorDiv(unixMs, 86_400_000L)
        val msOfDay = Math.floorMod(unixMs, 86_400_000L)
        val z = days + 719_468L
        val era = Math.floorDiv(z, 146_097L)
        val doe = z - era * 146_097L
        val yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        val doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        val mp = (5 * doy + 2) / 153
        val day = doy - (153 * mp + 2) / 5 + 1
        val month = if (mp < 10) mp + 3 else mp - 9
        val year = yoe + era * 400 + if (month <= 2) 1 else 0
        val hour = msOfDay / 3_600_000L
        val minute = msOfDay / 60_000L % 60
        val second = msOfDay / 1000L % 60
        val millis = msOfDay % 1000
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(hour, 2) + ":" + pad(minute, 2) +
            ":" + pad(second, 2) + "." + pad(millis, 3) + "Z"
    }

    /**
     * Parses [text] as a JSON object.
     * @throws RingerWireException when the text is not JSON or its top level is not an object.
     */
    fun parseObject(text: String, what: String): JSONObject {
        val trimmed = text.trim()
        if (!trimmed.startsWith("{")) throw RingerWireException("$what is not a JSON object")
        try {
            return JSONObject(trimmed)
        } catch (e: JSONException) {
            throw RingerWireException("$what is not valid JSON")
        }
    }

    private fun pad(value: Long, width: Int): String {
        val text = value.toString()
        return if (text.length >= width) text else "0".repeat(width - text.length) + text
    }

    private fun isLeap(year: Int): Boolean = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0

    private fun daysInMonth(year: Int, month: Int): Int = when (month) {
        2 -> if (isLeap(year)) 29 else 28
        4, 6, 9, 11 -> 30
        else -> 31
    }

    /** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's civil-calendar arithmetic). */
    private fun daysFromCivil(year: Long, month: Int, day: Int): Long {
        val y = if (month <= 2) year - 1 else year
        val era = Math.floorDiv(y, 400L)
        val yoe = y - era * 400
        val mp = if (month > 2) month - 3 else month + 9
        val doy = (153L * mp + 2) / 5 + day - 1
        val doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097L + doe - 719_468L
    }
}

// Field readers shared by the wire types' fromJson. `what` names the type for the error ("Call").
// A JSON null counts as absent: Swift's Codable decodes a null optional as nil and refuses a null required field.

internal fun JSONObject.present(key: String): Any? = if (!has(key) || isNull(key)) null else get(key)

internal fun JSONObject.reqString(key: String, what: String): String =
    stringOrNull(key, what) ?: throw RingerWireException("$what.$key is missing")

internal fun JSONObject.stringOrNull(key: String, what: String): String? {
    val value = present(key) ?: return null
    return value as? String ?: throw RingerWireException("$what.$key is not a string")
}

internal fun JSONObject.reqLong(key: String, what: String): Long =
    longOrNull(key, what) ?: throw RingerWireException("$what.$key is missing")

internal fun JSONObject.longOrNull(key: String, what: String): Long? {
    val value = present(key) ?: return null
    return when (value) {
        is Int -> value.toLong()
        is Long -> value
        is Double -> if (value == Math.rint(value) && Math.abs(value) < 9.0e15) value.toLong()
            else throw RingerWireException("$what.$key is not an integer")
        else -> throw RingerWireException("$what.$key is not an integer")
    }
}

internal fun JSONObject.reqInt(key: String, what: String): Int = intOrNull(key, what)
    ?: throw RingerWireException("$what.$key is missing")

internal fun JSONObject.intOrNull(key: String, what: String): Int? {
    val value = longOrNull(key, what) ?: return null
    if (value < Int.MIN_VALUE || value > Int.MAX_VALUE) throw RingerWireException("$what.$key is out of range")
    return value.toInt()
}

internal fun JSONObject.reqDouble(key: String, what: String): Double {
    val value = present(key) ?: throw RingerWireException("$what.$key is missing")
    return (value as? Number)?.toDouble() ?: throw RingerWireException("$what.$key is not a number")
}

internal fun JSONObject.reqBool(key: String, what: String): Boolean {
    val value = present(key) ?: throw RingerWireException("$what.$key is missing")
    return value as? Boolean ?: throw RingerWireException("$what.$key is not a boolean")
}

internal fun JSONObject.boolOrNull(key: String, what: String): Boolean? {
    val value = present(key) ?: return null
    return value as? Boolean ?: throw RingerWireException("$what.$key is not a boolean")
}

internal fun JSONObject.reqObject(key: String, what: String): JSONObject =
    objectOrNull(key, what) ?: throw RingerWireException("$what.$key is missing")

internal fun JSONObject.objectOrNull(key: String, what: String): JSONObject? {
    val value = present(key) ?: return null
    return value as? JSONObject ?: throw RingerWireException("$what.$key is not an object")
}

internal fun JSONObject.arrayOrNull(key: String, what: String): JSONArray? {
    val value = present(key) ?: return null
    return value as? JSONArray ?: throw RingerWireException("$what.$key is not an array")
}

/** The objects of an array, each read by [read]; an item that is not an object throws [RingerWireException] naming `$what[index]`. */
internal fun <T> JSONArray.objects(what: String, read: (JSONObject) -> T): List<T> =
    (0 until length()).map { index ->
        read(opt(index) as? JSONObject ?: throw RingerWireException("$what[$index] is not an object"))
    }

/** An array of strings (e.g. readiness problem names), null when absent; a non-string item throws [RingerWireException]. */
internal fun JSONObject.stringListOrNull(key: String, what: String): List<String>? =
    arrayOrNull(key, what)?.let { array ->
        (0 until array.length()).map { index ->
            array.opt(index) as? String ?: throw RingerWireException("$what.$key[$index] is not a string")
        }
    }

internal fun JSONObject.reqTimestamp(key: String, what: String): Long =
    timestampOrNull(key, what) ?: throw RingerWireException("$what.$key is missing")

internal fun JSONObject.timestampOrNull(key: String, what: String): Long? {
    val text = stringOrNull(key, what) ?: return null
    return RingerJson.parseTimestamp(text) ?: throw RingerWireException("$what.$key is not an RFC 3339 timestamp")
}

/** Puts [value] under [key] unless it is null: the server's encoder leaves nil optionals out. */
internal fun JSONObject.putIfSet(key: String, value: Any?): JSONObject {
    if (value != null) put(key, value)
    return this
}
